"""Layers: the hidden states of one text, layer by layer (distributions, statistics, outliers)."""

from __future__ import annotations

import streamlit as st

from explorer import layerstats
from explorer.codegen.layers import layers_snippet
from explorer.data import corpora
from explorer.data.examples import TUTORIAL
from explorer.figures.layers import (
    HISTOGRAM_MODES,
    layer_grid,
    layer_histogram,
    layer_name,
    summary_notice,
    token_histogram,
)
from explorer.ui import compute, layer_by_layer, messages, presentation
from explorer.ui.model_in_use import current_model, current_model_label
from explorer.ui.widgets import header, option_labels, show_code

DEFAULT_LAYER = 5
METRICS = {
    "mean": "mean",
    "std": "std",
    "norm": "norm (L2)",
    "max_abs": "max |value|",
    "kurtosis": "kurtosis",
}


header("pages/layers.py")
notice = st.container()  # what to notice, filled once the numbers are known

model = current_model()
settings = presentation.controls("layers.settings")
text = settings.text_area("Text", value=TUTORIAL, key="layers.text", bind="query-params", height=80)
try:
    tokenization = compute.tokenize(model.ref, text)
    hidden = compute.hidden_states(model.ref, text)  # (L + 1, T, H), one cached forward pass
except ValueError as error:
    messages.error(error)
    st.stop()

num_layers, num_tokens, hidden_size = hidden.shape[0] - 1, hidden.shape[1], hidden.shape[2]
labels = layerstats.token_labels(tokenization.tokens)
special_names = ", ".join(
    dict.fromkeys(t for t, s in zip(tokenization.tokens, tokenization.special, strict=True) if s)
)
st.caption(
    f"**{messages.escape(current_model_label())}**: hidden states of shape "
    f"({num_layers + 1}, {num_tokens}, "
    f"{hidden_size}) = embedding output + {num_layers} layers × {num_tokens} tokens × "
    f"{hidden_size} values." + (" The text was truncated." if tokenization.truncated else "")
)

first_token = layerstats.default_token(
    tokenization.tokens, tokenization.special, corpora.SENSE_WORDS
)
if st.session_state.get("layers.token_of") != text:  # a new text: start at its own first word
    if "layers.token_of" in st.session_state:  # (on the first run a shared link's token holds)
        st.session_state.pop("layers.token", None)  # the widget starts again at first_token
    st.session_state["layers.token_of"] = text
left, middle, right = settings.columns([2, 3, 2])
token = left.selectbox(
    "Token",
    range(num_tokens),
    index=first_token,
    format_func=option_labels(enumerate(labels)),
    key="layers.token",
    bind="query-params",
    help="Position: token, as the tokenizer cut the text. The first ambiguous word (bank, "
    "bat, ...) or else the first content word is chosen for you.",
)
layer = middle.slider(
    "Layer",
    0,
    num_layers,
    value=min(DEFAULT_LAYER, num_layers),
    key="layers.layer",
    bind="query-params",
    help=f"0 = the embedding output (before any attention), {num_layers} = the last layer.",
)
include_special = right.toggle(
    "Include special tokens",
    value=True,
    key="layers.special",
    help=f"Count {special_names or 'the special tokens'} in the all-token histogram, the "
    "statistics table and the outliers. Their vectors are often unlike any word's.",
)
try:
    keep = layerstats.token_mask(num_tokens, include_special, tokenization.special)
except ValueError as error:
    messages.warning(error)
    include_special = True
    keep = layerstats.token_mask(num_tokens)
token_name = f"token {token} ({tokenization.tokens[token]!r})"

summary = layerstats.layer_summary(hidden, token, include_special, tokenization.special)
messages.info(summary_notice(summary, tokenization.tokens[token]), notice)
st.subheader("Summary: every layer at a glance", anchor=False)
layer_by_layer.summary_table(summary, tokenization.tokens[token])
st.caption("Details below: open a section to see the distributions behind these numbers.")

st.subheader(f"One token at one layer: {token_name}, {layer_name(layer)}")
numbers = layerstats.vector_statistics(hidden[layer, token])
for column, (key, label) in zip(st.columns(len(METRICS)), METRICS.items(), strict=True):
    column.metric(label, f"{numbers[key]:.2f}" if key == "kurtosis" else f"{numbers[key]:.4f}")
left, right = st.columns(2)
mode = left.radio(
    "All tokens of the layer as",
    HISTOGRAM_MODES,
    format_func={"combined": "one histogram", "overlay": "one curve per token"}.get,
    horizontal=True,
    key="layers.mode",
)
log_counts = right.toggle(
    "Log count axis",
    value=False,
    key="layers.log_counts",
    help="A log scale shows the rare large values in the tails of the histograms.",
)
left, right = st.columns(2)
left.plotly_chart(
    token_histogram(hidden[layer, token], labels[token], layer, log_counts=log_counts),
    width="stretch",
    key="layers.token_histogram",
)
right.plotly_chart(
    layer_histogram(hidden[layer], labels, layer, token, mode, keep=keep, log_counts=log_counts),
    width="stretch",
    key="layers.layer_histogram",
)
st.caption(
    "Left: the distribution of one vector's values (one count per dimension). Right: all "
    "tokens of the layer. Most values sit near 0; the long tails are a few dimensions with "
    "large magnitude (see *Outlier dimensions* below)."
)

with st.expander(f"The same token at every layer: {token_name}"):
    st.plotly_chart(
        layer_grid(hidden[:, token], labels[token], layer, log_counts=log_counts),
        width="stretch",
        key="layers.grid",
    )

statistics = layer_by_layer.statistics(hidden, include_special, tokenization.special)
layer_by_layer.outliers(hidden, statistics, layer, labels, tokenization, include_special)

layer_by_layer.norms(hidden, labels, token, layer)
cka_code = layer_by_layer.cka_section(model.ref, text, hidden, tokenization.special, special_names)
layer_by_layer.positions_section(model.ref)
show_code(layers_snippet(model.ref, text, layer, token, include_special), cka_code)
