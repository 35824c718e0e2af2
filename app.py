"""Contextual Embedding Explorer: the router, with the model picker in the sidebar."""

from __future__ import annotations

import streamlit as st

from explorer.server.malloc import return_freed_memory, trim_soon
from explorer.server.warmup import warm_up_umap
from explorer.ui.model_in_use import model_info, model_picker
from explorer.ui.navigation import route
from explorer.ui.presentation import sidebar_state, toggle
from explorer.ui.prewarm import prewarm_soon

st.set_page_config(page_title="Contextual Embedding Explorer", page_icon="🔎", layout="wide")
return_freed_memory()  # once per process: large freed arrays go back to the system

page = route()
st.set_page_config(initial_sidebar_state=sidebar_state(toggle()))
info = model_picker()
try:
    if page.url_path == "":
        # The home page needs no model: on a fresh server it is drawn first and the model
        # loads after it. Other pages may st.stop() on bad input, which would drop anything
        # drawn after them, so their sidebar is filled first.
        page.run()
        model_info(info)
    else:
        model_info(info)
        page.run()
finally:
    # numba compiles UMAP for 10-30 s on first use: do it in the background, once per
    # process, while the first page is read (started after the page is drawn, which it would
    # slow down; also after a page's st.stop()).
    warm_up_umap()
    # EXPLORER_PREWARM: every page's built-in example, computed in the background once per
    # process, after the first page is drawn.
    prewarm_soon()
    # What this run replaced (figures, texts, tokens) was freed into the heap: give its free
    # pages back to the system, in the background and at most every few seconds.
    trim_soon()
