"""Attention: every layer x head, what each head does, rollout and norm-weighted attention,
and the masked-LM lens."""

from __future__ import annotations

import streamlit as st

from explorer import attention
from explorer.codegen.attention import attention_snippet
from explorer.data.examples import ATTENTION_PAIR, TUTORIAL
from explorer.figures.attention import (
    comparison,
    head_heatmap,
    head_view,
    overview_grid,
    statistic_labels,
    statistics_table,
)
from explorer.figures.attention_notices import head_sentence, influence_notice, what_to_notice
from explorer.server import limits
from explorer.ui import attention_heads, messages, presentation
from explorer.ui.model_in_use import current_model
from explorer.ui.widgets import URL, header, option_labels, show_code

header("pages/attention.py")
model = current_model()

settings = presentation.controls("attention.settings")
text = settings.text_area("Text", TUTORIAL, key="attention.text", bind=URL, height=80)
pair = None
if settings.checkbox(
    "Add a second sentence",
    key="attention.pair_on",
    bind=URL,
    help="With a pair, lines between the two sentences are orange in the head view.",
):
    pair = settings.text_area(
        "Second sentence", ATTENTION_PAIR, key="attention.pair", bind=URL, height=68
    )

try:
    result = attention_heads.analysis(model.ref, text, pair)
except ValueError as error:
    messages.error(error)
    st.stop()

tokens = result.tokenization.tokens
layers, heads, n = result.attentions.shape[:3]
if result.tokenization.truncated:
    st.warning(limits.attention_note(model, n))
specials = (model.tokenizer.cls_token or "[CLS]", model.tokenizer.sep_token or "[SEP]")
st.info(what_to_notice(result.stats, *specials), icon=":material/lightbulb:")

# -- overview -------------------------------------------------------------------------------
st.subheader("Every layer and head")
st.caption(
    f"{layers} layers x {heads} heads; each small square is one head's {n} x {n} attention "
    "matrix (rows: the attending token, columns: the token attended to; darker = more)."
    + (" Long inputs are pooled into blocks of tokens." if n > 24 else "")
)
st.plotly_chart(overview_grid(result.attentions), key="attention.grid")

names = statistic_labels(*specials)  # "on <s>" for a model whose first token is <s>
table = statistics_table(result.stats, names)
left, right = st.columns(2)
statistic = left.selectbox("Filter heads by", list(names.values()), index=2, key="attention.filter")
floor = right.slider(
    f"Show heads with {statistic} at least",
    0.0,
    float(max(1.0, table[statistic].max())),
    0.0,
    0.05,
    key="attention.floor",
)
shown = table[table[statistic] >= floor].sort_values(statistic, ascending=False)
attention_heads.head_table(shown, len(table), statistic, names.values(), n)

# -- one head -------------------------------------------------------------------------------
st.subheader("One head, large")
left, right = st.columns(2)
layer = left.selectbox("Layer", range(1, layers + 1), index=0, key="attention.layer", bind=URL)
head = right.selectbox("Head", range(1, heads + 1), index=0, key="attention.head", bind=URL)
matrix = result.attentions[layer - 1, head - 1]
best, share, entropy = attention.strongest_pattern(result.stats, layer, head)
st.markdown(head_sentence(layer, head, best, share, entropy, *specials))
big, lines = st.tabs(["Heatmap", "Head view (lines)"])
big.plotly_chart(
    head_heatmap(matrix, tokens, f"Layer {layer}, head {head}", scale=presentation.scale()),
    key="attention.big",
)
focus = lines.selectbox(
    "Show only the lines of",
    [None, *range(n)],
    key="attention.focus",
    format_func=option_labels(
        [(None, "every token")] + [(i, f"{i}: {tokens[i]}") for i in range(n)]
    ),
)
lines.caption("Left: the attending token; right: the token it attends to. Thicker = more.")
lines.plotly_chart(
    head_view(matrix, tokens, result.tokenization.segment_ids, focus, scale=presentation.scale()),
    key="attention.lines",
)

# -- raw vs norm-weighted vs rollout -----------------------------------------------------------
st.subheader("Is a large weight a large influence?")
influence = attention.layer_influence(result.attentions, result.rollout, result.norms, layer)
if influence.weighted is None:
    messages.info(result.norms_note or "Norm-weighted attention is not available here.")
st.markdown(influence_notice(influence, tokens, specials))
weighted = influence.raw if influence.weighted is None else influence.weighted
st.plotly_chart(
    comparison(influence.raw, weighted, influence.rollout, tokens, scale=presentation.scale()),
    key="attention.compare",
)
show_code(
    attention_snippet(model.ref, text, pair, layer, head),
    caption=f"The attentions, shares on {messages.escape('/'.join(specials[::-1]))}, rollout "
    "and norm-weighted attention with plain transformers (eager attention returns the weights).",
)

# -- masked-LM lens -------------------------------------------------------------------------
# The analysis is not needed below: a session waiting for the lens's turn held it (164 MB for a
# 512-token BERT-base text; eight sessions took the server to 2.8 GB).
del result, matrix
attention_heads.ablation_section(model.ref, text, pair)
st.subheader("Masked-language-model lens")
attention_heads.lens_section(model.ref)
