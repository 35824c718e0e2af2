"""Compare models: model A (the sidebar's) against model B, tokens and layers side by side."""

from __future__ import annotations

import streamlit as st

from explorer.data.examples import TOKENS_TEXT
from explorer.ui import compare_models, messages, presentation
from explorer.ui.widgets import URL, header, option_labels

header("pages/compare.py")

settings = presentation.controls("compare.settings")
left, right = settings.columns(2)
pair = compare_models.choose_pair(left)
corpus = right.selectbox(
    "Built-in texts",
    tuple(compare_models.CORPORA),
    format_func=option_labels(compare_models.CORPORA.items()),
    key="compare.corpus",
    bind=URL,
    help="The texts both models read for the counts of tokens and for the layers' CKA.",
)
text = settings.text_area(
    "A text to tokenize",
    TOKENS_TEXT,
    key="compare.text",
    bind=URL,
    height=68,
    help="Shown through both tokenizers, side by side.",
)
if pair is None:
    st.stop()

models = pair.models()
for side, model, name in zip((pair.a, pair.b), models, "AB", strict=True):
    messages.caption(
        f"Model {name}: {side.label} · {model.num_layers} layers × {model.hidden_size} · "
        f"vocabulary {model.vocab_size:,} · {model.num_parameters / 1e6:.1f} M parameters"
    )
texts = compare_models.corpus_texts(corpus)

compare_models.tokens_section(pair, text, texts)
compare_models.layers_section(pair, texts)
compare_models.curves_section(pair)
compare_models.maps_section(pair, texts)
