"""Streamlit caching around the library: the only module of ``explorer`` that imports Streamlit.

The model is a shared resource, loaded once per server process and keyed by its *name*.
Results are cached by hashable inputs (model name, tuples of texts, strategy strings), so a
rerun that only changes a display option runs no forward pass. Arguments that must not be
hashed (progress callbacks) start with an underscore.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

import explorer
from explorer.backend import DEFAULT_MODEL, Model, Tokenization
from explorer.embeddings import CorpusEmbeddings
from explorer.words import Occurrence

MODEL_KEY = "model_name"
"""Session-state key of the model every page uses (the last one that loaded)."""


@st.cache_resource(show_spinner="Loading the model (once per server)…", max_entries=3)
def get_model(name: str = DEFAULT_MODEL) -> Model:
    """The loaded model called ``name``; raises ``ValueError`` when it cannot be loaded."""
    return explorer.load_model(name)


def current_model_name() -> str:
    """Name of the model chosen in the sidebar (the bundled default until another loads)."""
    return st.session_state.get(MODEL_KEY, DEFAULT_MODEL)


def current_model() -> Model:
    """The model chosen in the sidebar, loaded (cached)."""
    return get_model(current_model_name())


@st.cache_data(show_spinner=False, max_entries=256)
def tokenize(model_name: str, text: str, pair: str | None = None) -> Tokenization:
    """Cached :meth:`Model.tokenize`."""
    return get_model(model_name).tokenize(text, pair)


@st.cache_data(show_spinner="Running the model…", max_entries=64)
def hidden_states(model_name: str, text: str, pair: str | None = None) -> np.ndarray:
    """Cached :meth:`Model.hidden_states`: ``(layers + 1, tokens, hidden)``."""
    return get_model(model_name).hidden_states(text, pair)


@st.cache_data(show_spinner="Running the model…", max_entries=64)
def word_layer_vectors(
    model_name: str, texts: tuple[str, ...], word: str, subwords: str = "mean"
) -> tuple[list[Occurrence], np.ndarray]:
    """Cached :func:`explorer.word_layer_vectors`: ``(layers + 1, occurrences, hidden)``."""
    return explorer.word_layer_vectors(get_model(model_name), list(texts), word, subwords)


@st.cache_data(show_spinner=False, max_entries=16)
def embed_corpus(
    model_name: str,
    texts: tuple[str, ...],
    exclude_special: bool = False,
    _progress: Callable[[int, int], None] | None = None,
) -> CorpusEmbeddings:
    """Cached :func:`explorer.embed_corpus`; ``_progress(done, total)`` is not part of the key."""
    return explorer.embed_corpus(
        get_model(model_name), list(texts), _progress, exclude_special=exclude_special
    )
