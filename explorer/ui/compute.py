"""Cached computations of the model: tokens, hidden states, word vectors, embedded corpora.

Results are shared by every session of the server and keyed by hashable inputs (the model's
:class:`~explorer.model.ref.ModelRef`, tuples of texts, option strings), so a rerun that only
changes a display option runs no forward pass. The large ones live in
:class:`explorer.server.memo.Memo` budgets, bounded in bytes as well as entries
(:data:`BUDGETS`): a shared server's memory stays on a plateau whatever its visitors send.
Arrays handed out are read-only, so sessions cannot change each other's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np
import streamlit as st

import explorer
from explorer.choice import VectorChoice
from explorer.data import uploads
from explorer.embeddings import CorpusEmbeddings
from explorer.model import Tokenization
from explorer.model.ref import ModelRef
from explorer.server import limits
from explorer.server.malloc import trim_soon
from explorer.server.memo import Cancelled, Memo, Pool
from explorer.ui import messages
from explorer.ui.model_in_use import MODELS, load
from explorer.ui.progress import progress_bar
from explorer.words import Occurrence

T = TypeVar("T")
A = TypeVar("A")

MB = 1024 * 1024

POOL = Pool(max_bytes=limits.RESULTS_BYTES, max_running=2, max_heavy=1)
"""What every cache of the server holds together (the memos below and the Attention page's),
and who computes: of the two turns (the machines have two cores), a heavy computation
(:func:`heavy_texts`, :func:`heavy_points`) may take one, so the other is always free for light
ones; heavy ones queue for theirs, one at a time. Before, two heavy requests (a t-SNE of
20,000 uploaded vectors, an AlignedUMAP of every layer) held both turns and a two-sentence
Similarity request waited 298 s (issue 23; ``python -m bench.fairness``).
A server with the bundled model loaded starts at 550-700 MB; on top of the results kept here
come the results being computed (at most two at once, the machines have two cores: eight
sessions computing word vectors of 10,000 tokens side by side took the server to 2.75 GB), each
up to about 250 MB at the request caps (a 5,000-text corpus with every layer and pooling is
160 MB before its batches' activations). 448 MB of results keeps that sum under the 2 GB a
shared demo is given (``python -m bench.soak``; with 896 MB, one visitor's soak peaked at
1.7 GB; with 640 MB, eight sessions at once peaked at 2.5 GB, 0.3 GB of it their uploaded
CSVs, which Streamlit keeps in memory; with 512 MB, 5 MB CSVs and the heap trimmed after each
run, 2.09 GB). Each memo's own budget keeps one kind of result from taking it all. With a
larger model the pool shrinks by the extra bytes of its weights (:func:`fit_pool`,
:func:`explorer.server.limits.results_budget`)."""


def fit_pool() -> None:
    """Shrink (or grow back) :data:`POOL` to :func:`explorer.server.limits.results_budget` of the
    weights alive now (:attr:`MODELS.bytes <explorer.model.cache.ModelCache.bytes>`: trained
    models and random-weights baselines, those still held by a page run included): a larger
    model leaves less room for results. Called after every model load and before every cached
    computation; the pool drops its oldest results down to the new budget at once."""
    POOL.resize(limits.results_budget(MODELS.bytes))


MODELS.after_load = fit_pool


BUDGETS = {
    "states": Memo(max_bytes=192 * MB, max_entries=64, pool=POOL),
    "words": Memo(max_bytes=192 * MB, max_entries=64, pool=POOL),
    "corpora": Memo(max_bytes=384 * MB, max_entries=16, pool=POOL),
    "projections": Memo(max_bytes=64 * MB, max_entries=64, pool=POOL),
    "probes": Memo(max_bytes=128 * MB, max_entries=64, pool=POOL),
}
"""Memory budgets of the shared caches, each within :data:`POOL`."""

PROGRESS_MIN_TEXTS = 32
"""Corpora at least this large show a progress bar while they are embedded."""

LIGHT_TOKENS = 4_000
"""Most tokens (estimated, :func:`estimated_tokens`) a light computation runs through the
model: about 1 s of one core for the bundled model. More is heavy."""

LIGHT_POINTS = 500
"""Most points a light computation maps, clusters or compares (UMAP or t-SNE of 500 points:
1-2 s). More is heavy; a PCA is light up to :data:`LIGHT_PCA_POINTS`."""

LIGHT_PCA_POINTS = 20_000
"""Most points of a light PCA (0.3 s for 20,000 x 384 with one thread)."""


def estimated_tokens(texts) -> int:
    """Tokens the model will read for ``texts``, estimated before tokenizing: 4 characters a
    token, at most 512 per text (the models' length), 2 special tokens each."""
    return sum(min(len(text) // 4, 510) + 2 for text in texts)


def heavy_texts(texts) -> bool:
    """Whether a forward pass over ``texts`` goes to the heavy lane (:data:`LIGHT_TOKENS`)."""
    return estimated_tokens(texts) > LIGHT_TOKENS


def heavy_points(n: int, method: str | None = None) -> bool:
    """Whether a computation over ``n`` points (a map of ``method``, clusters, neighbours)
    goes to the heavy lane (:data:`LIGHT_POINTS`, :data:`LIGHT_PCA_POINTS` for PCA)."""
    return n > (LIGHT_PCA_POINTS if method == "pca" else LIGHT_POINTS)


def asker() -> tuple[str | None, Callable[[], None] | None]:
    """``(owner, check)`` of the script run of this thread (none outside one): the session's
    id, and a check that raises Streamlit's rerun or stop exception when the run should end (a
    rerun of the session is pending, it was stopped, or its browser has gone; the run then
    ends quietly, as at an ``st`` call). :func:`explorer.server.memo.checkpoint` runs it."""
    from explorer.ui._streamlit_runtime import Runtime, StopException, get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return None, None
    session, yield_check = ctx.session_id, ctx.yield_check

    def check() -> None:
        yield_check()  # raises if a rerun or stop is pending (a disconnect asks for a stop)
        if Runtime.exists() and not Runtime.instance().is_active_session(session):
            raise StopException()

    return session, check


def cached(
    budget: str,
    key: Hashable,
    compute: Callable[[], T],
    spinner: str | None = None,
    heavy: bool = False,
) -> T:
    """``compute()`` through the memo ``BUDGETS[budget]``, keyed by ``key``, in a turn of the
    heavy lane or the light one (``heavy``: the caller knows the request's size) for this
    session; a spinner with ``spinner`` while it runs (not on a hit). A computation that needs
    another result computes it in the same turn: ``heavy`` must cover what ``compute`` asks.
    A computation whose session has gone or reran stops at its next progress callback; one
    replaced by the session's newer heavy request stops the run with a note."""
    memo = BUDGETS[budget]
    if key in memo:
        return memo.get(key, compute)
    fit_pool()
    owner, check = asker()
    try:
        with st.spinner(spinner) if spinner is not None else contextlib.nullcontext():
            return memo.get(key, compute, heavy, owner, check)
    except Cancelled:
        messages.info("This request was replaced by a newer one of yours.")
        st.stop()
    finally:
        # A computation frees its working memory into the heap: hand the free pages back
        # now (in the background), not only when a run ends, since other visitors' long
        # runs are still going.
        trim_soon()


def cached_from(
    budget: str,
    key: Hashable,
    inputs: Callable[[], A],
    compute: Callable[[A], T],
    heavy: Callable[[A], bool],
    spinner: str | None = None,
) -> T:
    """:func:`cached` ``compute(inputs())``, with ``inputs()`` (vectors to map, say) got first
    in their own turns, and the lane chosen from them (``heavy(inputs)``); a hit runs
    neither."""
    memo = BUDGETS[budget]
    if key in memo:
        return memo.get(key, lambda: compute(inputs()))
    fit_pool()
    ready = inputs()
    return cached(budget, key, lambda: compute(ready), spinner, heavy(ready))


def clear() -> None:
    """Forget every cached result (tests; an operator's reset)."""
    for memo in BUDGETS.values():
        memo.clear()


def _read_only(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    return value


@st.cache_data(show_spinner=False, max_entries=256)
def tokenize(model_ref: ModelRef, text: str, pair: str | None = None) -> Tokenization:
    """Cached :meth:`Model.tokenize`."""
    return load(model_ref).tokenize(text, pair)


def hidden_states(model_ref: ModelRef, text: str, pair: str | None = None) -> np.ndarray:
    """Cached :meth:`Model.hidden_states`: ``(layers + 1, tokens, hidden)``, read-only."""
    return cached(
        "states",
        ("hidden", model_ref, text, pair),
        lambda: _read_only(load(model_ref).hidden_states(text, pair)),
        "Running the model…",
    )


def word_layer_vectors(
    model_ref: ModelRef, texts: tuple[str, ...], word: str, subwords: str = "mean"
) -> tuple[list[Occurrence], np.ndarray, str | None]:
    """Cached :func:`explorer.server.limits.word_layer_vectors`: the first
    :data:`~explorer.server.limits.MAX_OCCURRENCES` occurrences, their vectors
    ``(layers + 1, occurrences, hidden)`` (read-only) and a note when more were left out."""

    def compute():
        occurrences, vectors, note = limits.word_layer_vectors(
            load(model_ref), texts, word, subwords
        )
        return occurrences, _read_only(vectors), note

    return cached(
        "words",
        (model_ref, texts, word, subwords),
        compute,
        "Running the model…",
        heavy_texts(texts),
    )


def word_vectors(
    model_ref: ModelRef, texts: tuple[str, ...], word: str, choice: VectorChoice
) -> tuple[list[Occurrence], np.ndarray, str | None]:
    """:func:`word_layer_vectors` under ``choice``'s subword mode with its layers combined
    (:func:`explorer.layers.combine_layers`; its pooling does not apply to a word): the
    occurrences, their vectors ``(occurrences, dim)`` (read-only) and the cap's note, cached
    on their own. Every layer of 5,000 BERT-base-sized occurrences is 200 MB, more than the
    results pool keeps beside the model's weights, so a map that asked for them recomputed
    every forward pass on every rerun (15-18 s, issue 32); one layer choice of them is 15 MB
    (60 MB concatenating the last four)."""
    from explorer.layers import combine_layers

    key = VectorChoice(layers=choice.layers, subwords=choice.subwords)  # what the vectors are

    def compute():
        occurrences, per_layer, note = word_layer_vectors(model_ref, texts, word, key.subwords)
        return occurrences, _read_only(combine_layers(per_layer, key.layers)), note

    return cached(
        "words",
        ("layer choice", model_ref, texts, word, key),
        compute,
        "Running the model…",
        heavy_texts(texts),
    )


def context_token_states(model_ref: ModelRef, texts: tuple[str, ...]) -> np.ndarray:
    """Cached :func:`explorer.context.content_token_states`: ``(layers + 1, tokens, hidden)``,
    the non-special tokens of all ``texts``, read-only."""
    from explorer.context import content_token_states

    return cached(
        "states",
        ("content", model_ref, texts),
        lambda: _read_only(content_token_states(load(model_ref), list(texts))),
        "Running the model…",
        heavy_texts(texts),
    )


def embed_corpus(
    model_ref: ModelRef, texts: tuple[str, ...], exclude_special: bool = False
) -> CorpusEmbeddings:
    """Cached :func:`explorer.embed_corpus`, with a progress bar for large corpora. The
    arrays of :class:`~explorer.embeddings.CorpusEmbeddings` are read-only."""

    def compute() -> CorpusEmbeddings:
        model = load(model_ref)
        if len(texts) < PROGRESS_MIN_TEXTS:
            return explorer.embed_corpus(model, list(texts), exclude_special=exclude_special)
        with progress_bar(f"Embedding {len(texts):,} texts…") as report:
            return explorer.embed_corpus(
                model, list(texts), report, exclude_special=exclude_special
            )

    return cached("corpora", (model_ref, texts, exclude_special), compute, heavy=heavy_texts(texts))


def cap_tokens(
    model_ref: ModelRef,
    data: uploads.LabelledTexts,
    max_tokens: int = limits.MAX_TOKENS,
    scale: limits.Scale = "work",
) -> limits.Kept:
    """Cached :func:`explorer.server.limits.cap_tokens` (it tokenizes every text: 0.1 s for 5,000):
    ``max_tokens`` of the bundled model, scaled for the model in use."""
    return cached(
        "states",
        ("cap", model_ref, data, max_tokens, scale),
        lambda: limits.cap_tokens(load(model_ref), data, max_tokens, scale),
    )


@st.cache_resource(show_spinner="Opening the saved corpus…", max_entries=4)
def open_store(path: str):
    """The corpus store at ``path`` (:func:`explorer.data.store.open_corpus`), opened once per
    server: its vectors are memory maps, shared by every session."""
    from explorer.data.store import open_corpus

    return open_corpus(path)


def store_rows(path: str, rows: tuple[int, ...]):
    """Rows ``rows`` of the saved corpus at ``path`` with every input column (a DataFrame)."""
    return cached("corpora", ("store rows", path, rows), lambda: open_store(path).take(list(rows)))
