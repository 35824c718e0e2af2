"""Tokens: how the model cuts a text into word pieces, with ids, segments and offsets."""

from __future__ import annotations

import streamlit as st

from explorer.codegen.tokens import tokens_snippet
from explorer.data.examples import TOKENS_PAIR, TOKENS_TEXT, TOKENS_WORD
from explorer.figures.tokens import token_chips_html, token_counts, tokens_notice
from explorer.ui import compute, messages, presentation, word_pieces
from explorer.ui.model_in_use import current_model
from explorer.ui.navigation import leave_legacy_pages_mode
from explorer.ui.widgets import show_code

LONG = 160  # more tokens than this: the chips and the table scroll instead of growing

leave_legacy_pages_mode()
model = current_model()

st.title("Tokens")
specials = [t for t in (model.tokenizer.cls_token, model.tokenizer.sep_token) if t]
(st.expander("About this page") if presentation.is_on() else st).markdown(
    "Before a transformer sees any text, its tokenizer cuts the text into **tokens** from a "
    f"fixed vocabulary ({model.vocab_size:,} entries here). Common words are one token; rarer "
    "words are split into pieces, and special tokens"
    + (f" such as {' and '.join(f'`{t}`' for t in specials)}" if specials else "")
    + " are added. Every token gets its own contextual vector on the other pages."
)

settings = presentation.controls("tokens.settings")
text = settings.text_area("Text", TOKENS_TEXT, key="tokens.text", bind="query-params", height=100)
pair = None
if settings.checkbox(
    "Add a second sentence (sentence pair)",
    key="tokens.pair_on",
    bind="query-params",
    help="BERT was trained on pairs of sentences; the second one gets segment id 1.",
):
    pair = settings.text_area(
        "Second sentence", TOKENS_PAIR, key="tokens.pair", bind="query-params", height=68
    )

try:
    tokenization = compute.tokenize(model.ref, text, pair)
except ValueError as error:
    messages.error(error)
    st.stop()

counts = token_counts(tokenization)
messages.info(tokens_notice(tokenization))
if tokenization.truncated:
    st.warning(
        f"The input is longer than this model's limit of {model.max_length} tokens: only the "
        f"first **{len(tokenization)} tokens** were kept (they reach character "
        f"{counts.covered_characters:,} of {len(tokenization.text):,} in the text). "
        "The model never sees the rest."
    )

word_pieces.count_metrics(counts, tokenization.truncated and not tokenization.pair)

st.subheader("What the model reads")
show_ids = st.toggle(
    "Ids under the tokens",
    value=True,
    key="tokens.ids",
    bind="query-params",
    help="Each token's id: its row in the vocabulary and in the embedding matrix.",
)
# A long text gets a scrolling box so the table stays within reach.
chips = st.container(height=340) if len(tokenization) > LONG else st.container()
chips.html(token_chips_html(tokenization, show_ids=show_ids))
st.caption(
    "One colour per word; pieces of a split word sit together (the `##` says the piece "
    "continues a word). Grey chips are special tokens. The small number under a token is its "
    "id (the model sees only these numbers); hover a piece for its offsets."
)

word_pieces.token_table(tokenization, LONG)

st.subheader("Try a word")
word = st.text_input(
    "A word to split",
    TOKENS_WORD,
    key="tokens.word",
    bind="query-params",
    help="Words missing from the vocabulary are cut into the longest pieces it has.",
)
try:
    pieces = compute.tokenize(model.ref, word)
except ValueError as error:
    messages.info(error)
else:
    st.html(token_chips_html(pieces, show_special=False))
    found = token_counts(pieces)
    if found.words == 1 and found.pieces == 1:
        st.caption("One token: this word is in the vocabulary as it is.")
    elif found.words == 1:
        st.caption(
            f"Not in the vocabulary as a whole: the tokenizer builds it from {found.pieces} "
            "pieces, each the longest match it finds. The model has to put its meaning back "
            "together from them."
        )
    else:
        st.caption(f"{found.words} words, {found.pieces} tokens.")

show_code(tokens_snippet(model.ref, text, pair, model.max_length))
word_pieces.vocabulary_section(model.ref, text)
