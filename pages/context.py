"""Word in context: one word, several sentences, how similar are its contextual vectors?"""

from __future__ import annotations

import streamlit as st

from explorer import context
from explorer.choice import VectorChoice
from explorer.codegen.context import context_snippet
from explorer.data import corpora, uploads
from explorer.layers import layer_choices
from explorer.server import limits
from explorer.subwords import SUBWORD_LABELS
from explorer.ui import compute, messages, presentation, sources, word_in_context
from explorer.ui.model_in_use import current_model
from explorer.ui.widgets import header, layers_select, show_code, subwords_select

DEFAULT_STRATEGY = "last"

st.session_state.setdefault("context.text", context.DEFAULT_TEXT)
st.session_state.setdefault("context.word", context.DEFAULT_WORD)


header("pages/context.py")
notice = st.container()  # what to notice, filled once the numbers are known

model = current_model()

settings = presentation.controls("context.settings")
left, right = settings.columns([3, 1])
with left:
    text = st.text_area(
        "Sentences, one per line, each optionally after its sense: `river | We sat on the bank.`",
        key="context.text",
        bind="query-params",
        height=160,
        help="The sense before a `|` (or a tab) labels every occurrence in that sentence; the "
        "page then compares pairs of the same sense with pairs of different senses. Lines "
        "without a sense are compared too, but not counted in that comparison.",
    )
with right:
    word = st.text_input("Word to compare", key="context.word", bind="query-params")
    st.selectbox(
        "Load an example",
        corpora.SENSE_WORDS,
        index=None,
        key="context.example",
        placeholder="Ambiguous word…",
        on_change=sources.load_sense_example,
        help="Built-in sentences, three for each sense of the word, with their senses.",
    )

strategies = layer_choices(model.num_layers)
options = settings.columns([2, 2, 3], vertical_alignment="bottom")
strategy = layers_select(
    options[0],
    "context.layers",
    strategies,
    label="Layer strategy (heatmap)",
    help="How the hidden states of all layers become one vector per occurrence. The last "
    "layer is the default: it is the most contextual, and its numbers are the right-hand "
    "end of the layer-by-layer chart below.",
    old_key="context.strategy",  # links made before the rename
)
subwords = subwords_select(
    options[1],
    "context.subwords",
    help="A word split into several tokens (em ##bed ##ding ##s) gets one vector from these.",
)
choice = VectorChoice(
    layers=strategy, subwords=subwords, post=word_in_context.post_select(options[2])
)  # its pooling does not apply: a word is its own subwords

try:
    lines, senses = context.parse_labelled_sentences(text)
    kept = compute.cap_tokens(
        model.ref, uploads.from_lists(lines), limits.MAX_CONTEXT_TOKENS, "memory"
    )
    sentences = list(kept.data.texts)
    senses = senses[: len(sentences)]
    occurrences, per_layer, _ = compute.word_layer_vectors(
        model.ref, tuple(sentences), word, choice.subwords
    )
    token_states = compute.context_token_states(model.ref, tuple(sentences))
except ValueError as error:
    messages.error(error)
    st.stop()
if kept.note:
    messages.info(kept.note)

if len(occurrences) > context.MAX_OCCURRENCES:
    st.warning(
        f"The word occurs {len(occurrences)} times; the page compares the first "
        f"{context.MAX_OCCURRENCES} "
        f"({context.MAX_OCCURRENCES * (context.MAX_OCCURRENCES - 1) // 2} pairs). "
        "Remove some sentences to compare others."
    )
    occurrences, per_layer = context.cap_occurrences(occurrences, per_layer)
raw = per_layer
key = (model.ref, tuple(sentences), word, choice.subwords, len(occurrences))
per_layer, token_states = word_in_context.postprocessed(key, per_layer, token_states, choice)
if len(occurrences) >= 2:  # what to notice comes first
    pairs = context.pair_labels(len(occurrences))
    kinds = context.pair_kinds(occurrences, senses)
    by_layer = context.pair_similarities(per_layer)
    matrix = context.similarity_matrix(per_layer, choice.layers)
    split = SUBWORD_LABELS[choice.subwords] if any(o.num_tokens > 1 for o in occurrences) else None
    said = context.what_to_notice(
        word, by_layer, kinds, pairs, choice.layers, matrix, choice.post_name, split
    )
    messages.info(said, notice)

word_in_context.occurrence_list(word, occurrences, sentences, senses)
if len(occurrences) < 2:
    messages.info(
        f"“{word.strip()}” occurs only once: you need at least two occurrences to compare. "
        "Add a sentence that uses it again, ideally in another sense."
    )
    st.stop()
baseline = context.anisotropy_baseline(token_states)
centred_note = word_in_context.TITLES[choice.post]

word_in_context.sense_gap(by_layer, kinds, baseline, word, centred_note)
if choice.post == "none":
    messages.caption(context.layer_zero_note(by_layer, word))
else:
    messages.info(word_in_context.rogue_note(raw, per_layer, choice, word))

word_in_context.pair_charts(
    matrix,
    by_layer,
    baseline,
    occurrences,
    sentences,
    senses,
    choice.layers,
    kinds,
    token_states.shape[1],
    centred_note,
)
word_in_context.pairs_table(per_layer, strategies, None, kinds)

if word.strip().lower() in corpora.SENSE_WORDS:
    st.page_link(
        "pages/projections.py",
        label=f"See “{messages.escape(word.strip())}” in all its built-in sentences on a map "
        "(Projections)",
        icon=":material/scatter_plot:",
        query_params=context.projections_link(word),
    )
show_code(context_snippet(model.ref, sentences, word, choice, senses=senses))
