"""Word in context: one word, several sentences, how similar are its contextual vectors?"""

from __future__ import annotations

import streamlit as st

from explorer import context as ctx
from explorer.codegen.context import context_snippet
from explorer.data import corpora, uploads
from explorer.figures.context import layer_similarity_chart, sense_gap_chart, similarity_heatmap
from explorer.layers import layer_choices, layers_label
from explorer.server import limits
from explorer.ui import compute, messages, presentation, sources
from explorer.ui.model import current_model, current_model_name
from explorer.ui.widgets import header, layers_select, show_code, subwords_select

DEFAULT_STRATEGY = "last"

st.session_state.setdefault("context.text", ctx.DEFAULT_TEXT)
st.session_state.setdefault("context.word", ctx.DEFAULT_WORD)


header("pages/context.py")
notice = st.container()  # what to notice, filled once the numbers are known

model = current_model()
name = current_model_name()

left, right = st.columns([3, 1])
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
        placeholder="Choose an ambiguous word…",
        on_change=sources.load_sense_example,
        help="Built-in sentences, three for each sense of the word, with their senses.",
    )

strategies = layer_choices(model.num_layers)
options = st.columns([2, 2, 3], vertical_alignment="bottom")
strategy = layers_select(
    options[0],
    "context.strategy",
    strategies,
    label="Layer strategy (heatmap)",
    help="How the hidden states of all layers become one vector per occurrence. The last "
    "layer is the default: it is the most contextual, and its numbers are the right-hand "
    "end of the layer-by-layer chart below.",
)
subwords = subwords_select(
    options[1],
    "context.subwords",
    help="A word split into several tokens (em ##bed ##ding ##s) gets one vector from these.",
)
center = options[2].toggle(
    "Mean-centre (remove the common direction)",
    key="context.center",
    bind="query-params",
    help="Subtract, at every layer, the mean vector of all tokens of these sentences ([CLS] "
    "and [SEP] left out) before "
    "taking cosines. Raw contextual vectors share a large common direction (anisotropy), so "
    "all cosines are high; centring removes it. Under a layer strategy, the layer means are "
    "combined the same way as the vectors.",
)

try:
    lines, senses = ctx.parse_labelled_sentences(text)
    kept = compute.cap_tokens(name, uploads.from_lists(lines), limits.MAX_CONTEXT_TOKENS, "memory")
    sentences = list(kept.data.texts)
    senses = senses[: len(sentences)]
    occurrences, per_layer, _ = compute.word_layer_vectors(name, tuple(sentences), word, subwords)
    token_states = compute.context_token_states(name, tuple(sentences))
except ValueError as error:
    messages.error(error)
    st.stop()
if kept.note:
    messages.info(kept.note)

if len(occurrences) > ctx.MAX_OCCURRENCES:
    st.warning(
        f"The word occurs {len(occurrences)} times; the page compares the first "
        f"{ctx.MAX_OCCURRENCES} ({ctx.MAX_OCCURRENCES * (ctx.MAX_OCCURRENCES - 1) // 2} pairs). "
        "Remove some sentences to compare others."
    )
    occurrences, per_layer = ctx.cap_occurrences(occurrences, per_layer)
labels = ctx.occurrence_labels(occurrences, sentences, senses=senses)
if len(occurrences) >= 2:  # what to notice comes first
    means = ctx.layer_means(token_states) if center else None
    pairs = ctx.pair_labels(len(occurrences))
    kinds = ctx.pair_kinds(occurrences, senses)
    by_layer = ctx.pair_similarities(per_layer, means)
    messages.info(ctx.what_to_notice(word, by_layer, kinds, pairs), notice)

st.subheader(
    f"{len(occurrences)} occurrence{'' if len(occurrences) == 1 else 's'} of "
    f"“{messages.escape(word.strip())}”",
    anchor=False,
)
st.markdown(
    "\n".join(
        f"- **#{i + 1}** {'' if s is None else f'_{messages.escape(s)}_ · '}"
        f"{ctx.highlight_html(sentences[o.text_index], o.char_start, o.char_end)} "
        f"<small>(sentence {o.text_index + 1})</small>"
        for i, o in enumerate(occurrences)
        for s in [senses[o.text_index]]
    ),
    unsafe_allow_html=True,
)
if len(occurrences) < 2:
    messages.info(
        f"“{word.strip()}” occurs only once: you need at least two occurrences to compare. "
        "Add a sentence that uses it again, ideally in another sense."
    )
    st.stop()
matrix = ctx.similarity_matrix(per_layer, strategy, means)
baseline = ctx.anisotropy_baseline(token_states, means)
centred_note = " (mean-centred)" if center else ""

try:
    gap = ctx.sense_gap(by_layer, kinds)
except ValueError as error:
    messages.info(error)
else:
    st.plotly_chart(
        sense_gap_chart(gap, baseline, word, title=f"Same sense vs different senses{centred_note}"),
        width="stretch",
        key="context.gap",
    )
    left_out = kinds.count("same sentence") + kinds.count("unlabelled")
    st.caption(ctx.gap_caption(gap, left_out))
if not center:
    messages.caption(ctx.layer_zero_note(by_layer, word))

heatmap_column, chart_column = st.columns(2)
with heatmap_column:
    st.plotly_chart(
        similarity_heatmap(
            matrix,
            ctx.short_labels(occurrences, sentences, senses),
            labels,
            title=f"Cosine similarity: {layers_label(strategy).lower()}{centred_note}",
            scale=presentation.scale(),
        ),
        width="stretch",
        key="context.heatmap",
    )
with chart_column:
    st.plotly_chart(
        layer_similarity_chart(
            by_layer,
            pairs,
            baseline,
            ctx.pair_members(labels),
            title=f"Similarity of each pair, layer by layer{centred_note}",
            kinds=kinds,
        ),
        width="stretch",
        key="context.by_layer",
    )
st.caption(
    f"Heatmap colours span the values shown: read the numbers. The dashed line is the mean "
    f"cosine of {ctx.describe_baseline_pairs(token_states.shape[1])} of tokens of these "
    "sentences (special tokens left out): what two unrelated tokens score at that layer. A "
    "pair is only telling by how far it sits above that line. Dotted lines are pairs from one "
    "sentence: they score high whatever the senses, because both occurrences see the same "
    "words around them and attention mixes those same words into both vectors."
)

st.subheader("Every pair under every layer strategy", anchor=False)
table = ctx.layers_table(per_layer, strategies, means)
table.insert(0, "Kind", kinds)
st.dataframe(
    table,
    width="stretch",
    column_config={
        layers_label(s): st.column_config.NumberColumn(
            layers_label(s, short=True), help=layers_label(s), format="%.3f"
        )
        for s in strategies
    },
)

if word.strip().lower() in corpora.SENSE_WORDS:
    st.page_link(
        "pages/projections.py",
        label=f"See “{messages.escape(word.strip())}” in all its built-in sentences on a map "
        "(Projections)",
        icon=":material/scatter_plot:",
        query_params=ctx.projections_link(word),
    )
show_code(context_snippet(name, sentences, word, strategy, subwords, center=center))
