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


def require_router() -> None:
    """Rerun under app.py's ``st.navigation`` when a page was started on its own.

    Streamlit treats a ``pages/`` folder beside the main script as a legacy multipage app
    until ``st.navigation`` runs once in the process. A fresh server whose first request is a
    deep link (``/tokens``) therefore runs the page file alone: no sidebar, no model picker.
    Leaving that legacy mode and rerunning makes app.py route the same URL.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def current_model_name() -> str:
    """Name of the model chosen in the sidebar (the bundled default until another loads)."""
    require_router()
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


@st.cache_data(show_spinner="Running the model…", max_entries=32)
def context_token_states(model_name: str, texts: tuple[str, ...]) -> np.ndarray:
    """Cached :func:`explorer.context.content_token_states`: ``(layers + 1, tokens, hidden)``,
    the non-special tokens of all ``texts``."""
    from explorer.context import content_token_states

    return content_token_states(get_model(model_name), list(texts))


@st.cache_data(show_spinner=False, max_entries=16)
def embed_corpus_with_progress(
    model_name: str, texts: tuple[str, ...], exclude_special: bool = False
) -> CorpusEmbeddings:
    """Cached :func:`explorer.embed_corpus` that shows an ``st.progress`` bar while it runs.

    The bar is created here, inside the cached function, because Streamlit records the
    elements a cached function touches and replays them on a cache hit: a bar made by the
    caller and moved through ``embed_corpus(_progress=...)`` is replayed onto a block of an
    earlier run and fails with ``CacheReplayClosureError``. The bar is emptied at the end.
    """
    bar = st.progress(0.0, text=f"Embedding {len(texts):,} texts…")

    def report(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Embedding texts… {done:,} of {total:,}")

    try:
        return explorer.embed_corpus(
            get_model(model_name), list(texts), report, exclude_special=exclude_special
        )
    finally:
        bar.empty()


@st.cache_data(show_spinner=False, max_entries=64)
def sentence_projection(
    model_name: str,
    texts: tuple[str, ...],
    pooling: str,
    layers: str | int,
    method: str = "pca",
    n_components: int = 2,
    random_state: int | None = 0,
    n_neighbors: int = 15,
    perplexity: float = 30.0,
):
    """Cached fitted :class:`explorer.projection.Projector` of the sentence vectors of
    ``texts`` (``pooling`` then ``layers``); reuses :func:`embed_corpus_with_progress`, so
    it runs no forward pass once the corpus is embedded. ``embedding_`` is ``(texts, k)``."""
    from explorer.projection import Projector

    vectors = embed_corpus_with_progress(model_name, texts).sentence(pooling, layers)
    return Projector(method, n_components, random_state, n_neighbors, perplexity).fit(vectors)


@st.cache_data(show_spinner=False, max_entries=64)
def word_projection(
    model_name: str,
    texts: tuple[str, ...],
    word: str,
    layers: str | int,
    method: str = "pca",
    n_components: int = 2,
    random_state: int | None = 0,
    n_neighbors: int = 15,
    perplexity: float = 30.0,
    subwords: str = "mean",
):
    """Cached ``(occurrences, Projector)`` for every occurrence of ``word`` in ``texts``
    (subwords combined with ``subwords``, then ``layers``); reuses :func:`word_layer_vectors`."""
    from explorer.layers import combine_layers
    from explorer.projection import Projector

    occurrences, per_layer = word_layer_vectors(model_name, texts, word, subwords)
    projector = Projector(method, n_components, random_state, n_neighbors, perplexity)
    return occurrences, projector.fit(combine_layers(per_layer, layers))
