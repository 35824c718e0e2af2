"""Tokens: how the model cuts a text into word pieces, with ids, segments and offsets."""

from __future__ import annotations

import streamlit as st

from explorer.codegen.tokens import tokens_snippet
from explorer.data.examples import TOKENS_PAIR, TOKENS_TEXT, TOKENS_WORD
from explorer.figures.tokens import token_chips_html, token_counts, tokens_notice, tokens_table
from explorer.ui import compute, messages
from explorer.ui.model import current_model
from explorer.ui.navigation import leave_legacy_pages_mode
from explorer.ui.widgets import show_code

LONG = 160  # more tokens than this: the chips and the table scroll instead of growing

COLUMNS = {
    "position": st.column_config.NumberColumn("#", help="Position in the model input"),
    "token": st.column_config.TextColumn("token", help="The vocabulary entry"),
    "text": st.column_config.TextColumn("text", help="The characters this token covers"),
    "id": st.column_config.NumberColumn("id", help="Row of the embedding matrix", format="%d"),
    "segment_id": st.column_config.NumberColumn(
        "segment", help="Token type id: 0 for the first sentence, 1 for the second"
    ),
    "attention_mask": st.column_config.NumberColumn(
        "mask", help="Attention mask: 1 = a real token the model attends to"
    ),
    "start": st.column_config.NumberColumn("start", help="First character (offset)"),
    "end": st.column_config.NumberColumn("end", help="One past the last character"),
    "word_id": st.column_config.NumberColumn(
        "word", help="Which word of its sentence the token belongs to (None: special token)"
    ),
    "special": st.column_config.CheckboxColumn("special", help="[CLS], [SEP], ... added"),
    "subword": st.column_config.CheckboxColumn(
        "subword", help="Continues the word of the token before it (##...)"
    ),
}

leave_legacy_pages_mode()
model = current_model()

st.title("Tokens")
st.markdown(
    "Before a transformer sees any text, its tokenizer cuts the text into **tokens** from a "
    f"fixed vocabulary ({model.vocab_size:,} entries here). Common words are one token; rarer "
    "words are split into pieces, and special tokens such as `[CLS]` and `[SEP]` are added. "
    "Every token gets its own contextual vector on the other pages."
)

text = st.text_area("Text", TOKENS_TEXT, key="tokens.text", bind="query-params", height=100)
pair = None
if st.checkbox(
    "Add a second sentence (sentence pair)",
    key="tokens.pair_on",
    bind="query-params",
    help="BERT was trained on pairs of sentences; the second one gets segment id 1.",
):
    pair = st.text_area(
        "Second sentence", TOKENS_PAIR, key="tokens.pair", bind="query-params", height=68
    )

try:
    tokenization = compute.tokenize(model.name, text, pair)
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

columns = st.columns(4)
columns[0].metric("Characters", f"{counts.characters:,}", border=True)
columns[1].metric(
    "Words",
    f"{counts.words:,}",
    help="Words as the tokenizer's pre-tokenizer splits the text: punctuation counts as a word.",
    border=True,
)
columns[2].metric(
    "Tokens",
    f"{counts.tokens:,}",
    help=f"Word pieces plus {counts.special} special tokens.",
    border=True,
)
columns[3].metric(
    "Tokens per word",
    f"{counts.tokens_per_word:.2f}",
    help=f"Word pieces per word, special tokens left out; {counts.split_words} word(s) split.",
    border=True,
)

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

st.subheader("Token table")
st.dataframe(
    tokens_table(tokenization),
    width="stretch",
    hide_index=True,
    column_config=COLUMNS,
    height=38 + 35 * min(len(tokenization), LONG),  # every row up to LONG, then scroll
)

st.subheader("Try a word")
word = st.text_input(
    "A word to split",
    TOKENS_WORD,
    key="tokens.word",
    bind="query-params",
    help="Words missing from the vocabulary are cut into the longest pieces it has.",
)
try:
    pieces = compute.tokenize(model.name, word)
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

show_code(tokens_snippet(model.name, text, pair, model.max_length))
