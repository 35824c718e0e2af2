"""Home: what contextual embeddings are, and a card for every page of the explorer."""

from __future__ import annotations

import streamlit as st

from explorer.model.hub import DEFAULT_MODEL
from explorer.model.summary import model_notice
from explorer.ui import messages
from explorer.ui.model_in_use import current_model, current_model_label
from explorer.ui.pages import HOME, PAGES
from explorer.ui.widgets import header

header("pages/home.py")
notice = st.container()  # what the model in use does, once it is loaded (after the cards)
columns = st.columns(2)
for index, page in enumerate(p for p in PAGES if p is not HOME):
    with columns[index % 2].container(border=True):
        st.markdown(f"#### {page.title}")
        st.markdown(page.blurb)
        st.page_link(page.path, label=f"Open {page.title}", icon=page.icon)

st.caption(
    "Every page starts with a built-in example and has a **Show code** box with a short "
    f"transformers program that prints the same numbers. The bundled model, {DEFAULT_MODEL} "
    "(a small 6-layer BERT), works offline; pick another encoder in the sidebar if it is in "
    "this server's Hugging Face cache or allowed by its operator."
)

# Loaded last, so that on a fresh server the cards are on screen while the model loads.
messages.info(model_notice(current_model(), current_model_label()), notice)
