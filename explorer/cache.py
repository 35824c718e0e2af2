"""Streamlit caching around the library: the only module of ``explorer`` that imports Streamlit.

The model is a shared resource, loaded once per server process and keyed by its *name*.
Results are cached by hashable inputs (model name, tuples of texts, strategy strings), so a
rerun that only changes a display option runs no forward pass. Arguments that must not be
hashed (progress callbacks) start with an underscore.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

import explorer
from explorer.backend import DEFAULT_MODEL, Model, Tokenization
from explorer.embeddings import CorpusEmbeddings
from explorer.markup import escape_markdown
from explorer.words import Occurrence


def _tuple_key(values: tuple) -> bytes:
    """Cache key of a tuple argument (texts, labels, words): its pickle.

    Streamlit hashes a tuple item by item in Python, about 15 microseconds per text: 0.1 s
    of every rerun of the projections page with 2,000 texts (three cached calls). Pickling
    the whole tuple takes under a millisecond and keys it just as exactly.
    """
    return pickle.dumps(values, protocol=5)


HASH_TUPLES = {tuple: _tuple_key}
"""``hash_funcs`` of every cached function that takes a tuple of texts."""

PROGRESS_MIN_TEXTS = 32
"""Corpora at least this large show a progress bar while they are embedded."""

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


def show_error(error: Exception) -> None:
    """Show a library error on the page as plain text (``st.error`` renders Markdown, and
    messages quote the user's own text)."""
    st.error(escape_markdown(str(error)))


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


@st.cache_data(show_spinner="Running the model…", max_entries=64, hash_funcs=HASH_TUPLES)
def word_layer_vectors(
    model_name: str, texts: tuple[str, ...], word: str, subwords: str = "mean"
) -> tuple[list[Occurrence], np.ndarray]:
    """Cached :func:`explorer.word_layer_vectors`: ``(layers + 1, occurrences, hidden)``."""
    return explorer.word_layer_vectors(get_model(model_name), list(texts), word, subwords)


@st.cache_data(show_spinner="Running the model…", max_entries=32, hash_funcs=HASH_TUPLES)
def context_token_states(model_name: str, texts: tuple[str, ...]) -> np.ndarray:
    """Cached :func:`explorer.context.content_token_states`: ``(layers + 1, tokens, hidden)``,
    the non-special tokens of all ``texts``."""
    from explorer.context import content_token_states

    return content_token_states(get_model(model_name), list(texts))


def _progress_bar(text: str):
    """An ``st.progress`` bar and a ``(done, total)`` callback that moves it."""
    bar = st.progress(0.0, text=text)

    def report(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{text} {done:,} of {total:,}")

    return bar, report


@st.cache_resource(show_spinner=False, max_entries=16, hash_funcs=HASH_TUPLES)
def embed_corpus(
    model_name: str, texts: tuple[str, ...], exclude_special: bool = False
) -> CorpusEmbeddings:
    """Cached :func:`explorer.embed_corpus`, with an ``st.progress`` bar for large corpora.

    A shared resource rather than cached data: ``st.cache_data`` unpickles a fresh copy on
    every hit (62 MB for 2,000 texts of the bundled model, 0.03-0.1 s, twice in a rerun of
    the projections page). The arrays of :class:`~explorer.embeddings.CorpusEmbeddings` are
    read-only, so sessions cannot change each other's vectors.

    The bar is created here, inside the cached function, because Streamlit records the
    elements a cached function touches and replays them on a cache hit: a bar made by the
    caller and moved from inside would be replayed onto a block of an earlier run and fail
    with ``CacheReplayClosureError``. The bar is emptied at the end.
    """
    if len(texts) < PROGRESS_MIN_TEXTS:
        return explorer.embed_corpus(
            get_model(model_name), list(texts), exclude_special=exclude_special
        )
    bar, report = _progress_bar(f"Embedding {len(texts):,} texts…")
    try:
        return explorer.embed_corpus(
            get_model(model_name), list(texts), report, exclude_special=exclude_special
        )
    finally:
        bar.empty()


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=HASH_TUPLES)
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
    ``texts`` (``pooling`` then ``layers``); reuses :func:`embed_corpus`, so
    it runs no forward pass once the corpus is embedded. ``embedding_`` is ``(texts, k)``."""
    from explorer.projection import Projector

    vectors = embed_corpus(model_name, texts).sentence(pooling, layers)
    return Projector(method, n_components, random_state, n_neighbors, perplexity).fit(vectors)


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=HASH_TUPLES)
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


# -- "Which layer?" (probe) page ------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=8, hash_funcs=HASH_TUPLES)
def probe_word_features(model_name: str, texts: tuple[str, ...], words: tuple[str, ...]):
    """Cached :func:`explorer.probe.word_features` (every subword mode, one forward pass),
    with a progress bar made here (see :func:`embed_corpus` for why)."""
    from explorer.probe import word_features

    bar, report = _progress_bar("Running the model…")
    try:
        return word_features(get_model(model_name), texts, words, progress=report)
    finally:
        bar.empty()


def _probe_stack(
    model_name: str, texts: tuple[str, ...], words: tuple[str, ...] | None, strategy: str
) -> np.ndarray:
    if words is None:
        return embed_corpus(model_name, texts).per_layer(strategy)
    return probe_word_features(model_name, texts, words).vectors[strategy]


@st.cache_data(show_spinner=False, max_entries=64, hash_funcs=HASH_TUPLES)
def probe_layer_scores(
    model_name: str,
    texts: tuple[str, ...],
    labels: tuple[str, ...],
    words: tuple[str, ...] | None,
    strategy: str,
    folds: int = 5,
    random_state: int = 0,
):
    """Cached :func:`explorer.probe.score_layers` for one strategy (a pooling when ``words``
    is None, else a subword mode; one probe per word), with a progress bar. Features come
    from the cached forward pass, so a new strategy or fold count runs no model."""
    from explorer.probe import plan_folds, score_layers

    plan = plan_folds(labels, words, folds, random_state)
    stack = _probe_stack(model_name, texts, words, strategy)
    bar, report = _progress_bar(f"Probing every layer ({strategy})… layer")
    try:
        return score_layers(stack, plan, report).assign(strategy=strategy)
    finally:
        bar.empty()


@st.cache_data(show_spinner=False, max_entries=32, hash_funcs=HASH_TUPLES)
def probe_cnn_scores(
    model_name: str,
    texts: tuple[str, ...],
    labels: tuple[str, ...],
    words: tuple[str, ...] | None,
    layer: int,
    folds: int = 5,
    random_state: int = 0,
):
    """Cached :func:`explorer.heads.cnn_scores` on layer ``layer``'s token sequences (one
    forward pass, not cached itself: it is ``texts x tokens x hidden``), with progress bars."""
    from explorer.heads import cnn_scores, token_sequences
    from explorer.probe import plan_folds

    plan = plan_folds(labels, words, folds, random_state)
    bar, report = _progress_bar("Token vectors for the CNN…")
    try:
        sequences, mask = token_sequences(get_model(model_name), texts, layer, report)
    finally:
        bar.empty()
    bar, report = _progress_bar("Training the CNN head… epoch")
    try:
        return cnn_scores(sequences, mask, plan, report)
    finally:
        bar.empty()


# -- page helpers -----------------------------------------------------------------------------


def vector_downloads(
    columns: Sequence,
    vectors: np.ndarray,
    frame: pd.DataFrame,
    stem: str,
    key: str,
    npy_label: str = "Vectors",
    csv_label: str = "Vectors with text (.csv)",
) -> None:
    """Two download buttons in ``columns[0]`` and ``columns[1]``: ``vectors`` ``(n, dim)`` as
    ``<stem>.npy`` and ``frame`` (from :func:`explorer.export.vectors_frame`) as
    ``<stem>.csv``; widget keys ``<key>.download_npy`` and ``<key>.download_csv``."""
    from explorer import export

    columns[0].download_button(
        f"{npy_label} (.npy, {vectors.shape[0]} × {vectors.shape[1]})",
        export.to_npy_bytes(vectors),
        file_name=f"{stem}.npy",
        mime="application/octet-stream",
        on_click="ignore",
        key=f"{key}.download_npy",
    )
    columns[1].download_button(
        csv_label,
        export.to_csv_bytes(frame),
        file_name=f"{stem}.csv",
        mime="text/csv",
        on_click="ignore",
        key=f"{key}.download_csv",
    )
