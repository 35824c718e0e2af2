"""Home: what contextual embeddings are, and a card for every page of the explorer."""

from __future__ import annotations

import streamlit as st

from explorer.model.hub import DEFAULT_MODEL
from explorer.model.summary import model_notice
from explorer.ui import messages
from explorer.ui.model_in_use import current_model, current_model_label, loaded_model
from explorer.ui.pages import HOME, PAGES, ModelTokens, card_blurb
from explorer.ui.widgets import header

header("pages/home.py")
notice = st.container()  # what the model in use does, once it is loaded (after the cards)
model = loaded_model()  # None on a fresh server: the cards come first, the model after them
tokens = None if model is None else ModelTokens.of(model.tokenizer)
columns = st.columns(2)
blurbs = {}
for index, page in enumerate(p for p in PAGES if p is not HOME):
    with columns[index % 2].container(border=True):
        st.markdown(f"#### {page.title}")
        blurbs[page] = st.empty()
        blurbs[page].markdown(card_blurb(page, tokens))
        st.page_link(page.path, label=f"Open {page.title}", icon=page.icon)

st.caption(
    "Every page starts with a built-in example and has a **Show code** box with a short "
    f"transformers program that prints the same numbers. The bundled model, {DEFAULT_MODEL} "
    "(a small 6-layer BERT), works offline; pick another encoder in the sidebar if it is in "
    "this server's Hugging Face cache or allowed by its operator."
)

# Loaded last, so that on a fresh server the cards are on screen while the model loads.
model = current_model()
if tokens is None:  # the cards name the model's own tokens now that it is here
    tokens = ModelTokens.of(model.tokenizer)
    for page, slot in blurbs.items():
        if card_blurb(page, tokens) != page.blurb:
            slot.markdown(card_blurb(page, tokens))
messages.info(model_notice(model, current_model_label()), notice)
