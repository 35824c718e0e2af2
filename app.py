"""Contextual Embedding Explorer: the router and the shared sidebar (model picker)."""

from __future__ import annotations

import streamlit as st

from explorer import cache
from explorer.backend import DEFAULT_MODEL
from explorer.markup import escape_markdown
from explorer.warmup import warm_up_umap

st.set_page_config(page_title="Contextual Embedding Explorer", page_icon="🔎", layout="wide")

BUNDLED_LABEL = "all-MiniLM-L6-v2 (bundled, offline)"
OTHER_LABEL = "Other: a Hugging Face id or a local folder…"
COMMON_MODELS = (
    "bert-base-uncased",
    "bert-base-cased",
    "distilbert-base-uncased",
    "roberta-base",
)

HOME = st.Page("pages/home.py", title="Home", icon=":material/home:", default=True)
PAGES = [
    HOME,
    st.Page("pages/tokens.py", title="Tokens", icon=":material/text_fields:"),
    st.Page("pages/layers.py", title="Layers", icon=":material/stacks:"),
    st.Page("pages/context.py", title="Word in context", icon=":material/compare_arrows:"),
    st.Page("pages/projections.py", title="Projections", icon=":material/scatter_plot:"),
    st.Page("pages/probe.py", title="Which layer?", icon=":material/science:"),
    st.Page("pages/similarity.py", title="Similarity & search", icon=":material/search:"),
]


def model_picker():
    """Sidebar: choose a model; keep the previous one working if the new one fails to load.

    Returns an empty sidebar slot for :func:`model_info`."""
    st.sidebar.header("Model")
    choice = st.sidebar.selectbox(
        "Encoder",
        (BUNDLED_LABEL, *COMMON_MODELS, OTHER_LABEL),
        key="sidebar.model_choice",
        help="The bundled model works offline. Others load from the local Hugging Face "
        "cache or, with a network, from the hub.",
    )
    if choice == OTHER_LABEL:
        wanted = st.sidebar.text_input(
            "Model id or folder",
            key="sidebar.model_other",
            placeholder="e.g. google/electra-small-discriminator or /path/to/model",
        ).strip()
    else:
        wanted = DEFAULT_MODEL if choice == BUNDLED_LABEL else choice
    failed = st.session_state.get("sidebar.failed", {})
    if wanted and wanted != cache.current_model_name():
        if wanted not in failed:
            try:
                cache.get_model(wanted)
            except ValueError as error:
                failed[wanted] = str(error)
                st.session_state["sidebar.failed"] = failed
            else:
                st.session_state[cache.MODEL_KEY] = wanted
        if wanted in failed:
            message = escape_markdown(failed[wanted])
            st.sidebar.error(f"{message}\n\nStill using **{cache.current_model_name()}**.")
    return st.sidebar.empty()


def model_info(slot) -> None:
    """The model in use, in ``slot`` (loads it if no page has yet)."""
    with slot.container():
        model = cache.current_model()
        st.caption(f"In use: **{model.name}**")
        st.caption(
            f"{model.num_layers} layers · hidden size {model.hidden_size} · "
            f"vocabulary {model.vocab_size:,} · {model.num_parameters / 1e6:.1f} M parameters "
            f"· up to {model.max_length} tokens · {'uncased' if model.lowercase else 'cased'}"
        )


# numba compiles UMAP for 10-30 s on first use: do it in the background, once per process,
# while the first page is read.
warm_up_umap()
info = model_picker()
page = st.navigation(PAGES)
if page.url_path == HOME.url_path:
    # The home page needs no model: on a fresh server it is drawn first and the model loads
    # after it (about 4 s sooner on screen). Other pages may st.stop() on bad input, which
    # would drop anything drawn after them, so their sidebar is filled first.
    page.run()
    model_info(info)
else:
    model_info(info)
    page.run()
