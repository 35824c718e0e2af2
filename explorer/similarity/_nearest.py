"""Exact k nearest neighbours of a row or a vector, read in blocks of rows.

:func:`neighbors` is the one k-NN of the explorer: the neighbour inspector on the map, search
in Similarity & search and the saved-corpus store all call it, so they agree on the same
neighbours, the same scores and the same order (ties go to the lower row index).

Why exact and blocked, without an approximate index: one query reads every row once, a
matrix-vector product limited by memory bandwidth more than arithmetic. At 384 float32
dimensions, 1,000,000 memory-mapped rows are 1.5 GB, and one query over all of them took
0.18 to 0.22 s on a 2-core machine with the file in the page cache (0.13 to 0.20 s with the
row norms given), 5 to 13 ms over 20,000 rows in memory, where a brute-force NumPy one-liner
took 1.5 s and a 1.5 GB temporary (``python -m bench.neighbors``, load average about 1; at
load 5 from other processes every time about triples).
Time grows linearly with the rows, so a few million rows stay within a second a query, with
nothing to build, no second copy of the vectors and the true neighbours as the answer. An
approximate index (faiss, hnswlib) pays off beyond that, or for many queries a second; it
is not a dependency.

Working memory is one block of scores per worker thread, whatever the number of rows: a
block of rows is a view of the (possibly memory-mapped) array, never copied unless its dtype
needs converting (float16 or integers to float32). Row norms are computed block by block, so
the whole array is never normalised into a copy.

The time is reading the rows: about 0.13 to 0.15 s of CPU for one query over 1,000,000 x 384
float32 rows with their norms given (0.24 s without), one core reading about 10 GB/s, half of
that in wall time on two free cores. A float16 array is half the bytes, but NumPy converts
float16 without SIMD (0.9 s of CPU for the same rows); ``_halffloat`` converts it exactly
with integer operations instead (0.3 s), still more than reading float32. The scan itself (blocks
of rows over worker threads, the k best kept per block and merged) is ``_scan``'s.
"""

from __future__ import annotations

import os
from typing import Literal, NamedTuple

import numpy as np

from explorer.similarity._halffloat import converter
from explorer.similarity._scan import nearest_in_blocks, raise_bad_row

METRICS = ("cosine", "euclidean")
"""Valid ``metric`` values: cosine similarity (higher is closer) or Euclidean distance."""

Metric = Literal["cosine", "euclidean"]

BLOCK_ROWS = 4096
"""Rows scored at once by default (6 MB at 384 float32 dims: the block stays in the CPU's
cache between the dot products and the row norms, which is faster than larger blocks)."""

MAX_BLOCK_SCORES = 1 << 22
"""Most scores (queries x rows) one block holds; a batch of queries is split to stay under
it (16 MB of float32 per worker)."""

MAX_WORKERS = 4
"""Threads used by default (at most the number of CPUs): a scan is memory-bound, and more
threads than this add nothing on common machines."""


class Neighbors(NamedTuple):
    """The result of :func:`neighbors`, best first.

    ``indices`` (int64) are rows of ``vectors``; ``scores`` (float32) are the cosine
    similarities (highest first) or Euclidean distances (lowest first). Both have shape
    ``(k,)`` for one query and ``(m, k)`` for a batch of ``m`` queries.
    """

    indices: np.ndarray
    scores: np.ndarray


def validate_metric(metric: str) -> Metric:
    """``metric`` if it is one of :data:`METRICS`; otherwise ``ValueError`` listing them."""
    if metric not in METRICS:
        raise ValueError(f"Unknown metric {metric!r}; choose one of {METRICS}.")
    return metric


def neighbors(
    vectors: np.ndarray,
    query: int | np.ndarray,
    k: int = 10,
    metric: Metric = "cosine",
    *,
    norms: np.ndarray | None = None,
    block_rows: int = BLOCK_ROWS,
    workers: int | None = None,
) -> Neighbors:
    """The ``k`` rows of ``vectors`` nearest to ``query``, exactly, best first.

    ``vectors`` is an ``(n, d)`` array of real numbers, possibly a read-only
    ``np.load(path, mmap_mode="r")``; it is read ``block_rows`` rows at a time. ``query`` is

    * an ``int``: a row of ``vectors``, which is left out of its own result;
    * a 1-D array of integers ``(m,)``: ``m`` rows at once, each left out of its own result;
    * a vector ``(d,)`` of floats;
    * a batch ``(m, d)`` of float vectors.

    Integer arrays are always row indices, float arrays always vectors.

    Returns :class:`Neighbors` with ``indices`` (int64) and ``scores`` (float32), shape
    ``(k,)`` for one query and ``(m, k)`` for a batch. ``metric="cosine"`` scores by cosine
    similarity, highest first; a zero vector (row or query) has similarity 0 with everything.
    ``metric="euclidean"`` scores by distance, lowest first, computed as
    ``sqrt(|x|² - 2 x·q + |q|²)``: distances closer to 0 than about 1e-3 times the vectors'
    norm are not resolved (a duplicate row may show 0.0004 rather than 0). Equal scores are
    ordered by row index, lower first, so results are deterministic.

    ``norms`` ``(n,)``, if given, are the rows' Euclidean norms
    (``np.linalg.norm(vectors, axis=1)``, e.g. kept by a corpus store or from
    :func:`row_norms`); they are trusted, not checked against ``vectors``, and save computing
    them block by block (about half the time of a query over many rows).

    Arithmetic is float32 (float64 if ``vectors`` is float64). ``workers`` threads (default:
    the CPU count, at most :data:`MAX_WORKERS`; fewer when each would get fewer than
    :data:`MIN_BLOCKS_PER_WORKER` blocks) scan contiguous parts of the rows. Working memory
    is one block of scores per thread, whatever ``n``.

    Raises ``ValueError`` for vectors that are not a non-empty 2-D array of numbers, an
    unknown metric, ``k`` outside ``1 ..`` the number of candidate rows (``n``, or ``n - 1``
    for a row-index query), a query of the wrong width or with NaN or infinite values, a row
    index out of range, and a row of ``vectors`` with NaN or infinite values (found during the
    scan: the first such row is named).
    """
    vectors = _check_vectors(vectors)
    metric = validate_metric(metric)
    n, d = vectors.shape
    dtype = np.float64 if vectors.dtype == np.float64 else np.float32
    rows, batch, single = _check_query(query, n, d, dtype)
    k = _check_k(k, n, by_row=rows is not None)
    if norms is not None:
        norms = _check_norms(norms, n, dtype)
    block_rows = _positive_int(block_rows, "block_rows")
    workers = min(os.cpu_count() or 1, MAX_WORKERS) if workers is None else workers
    workers = _positive_int(workers, "workers")

    m = len(rows) if rows is not None else len(batch)
    indices = np.empty((m, k), np.int64)
    scores = np.empty((m, k), np.float32)
    chunk = max(1, MAX_BLOCK_SCORES // block_rows)
    for start in range(0, m, chunk):
        stop = min(start + chunk, m)
        if rows is not None:
            exclude = rows[start:stop]
            queries = np.asarray(vectors[exclude], dtype=dtype)
            bad = ~np.isfinite(queries).all(axis=1)
            if bad.any():
                raise ValueError(
                    f"The query row {int(exclude[np.argmax(bad)])} of vectors has NaN or "
                    "infinite values."
                )
        else:
            exclude, queries = None, batch[start:stop]
        indices[start:stop], scores[start:stop] = nearest_in_blocks(
            vectors, norms, queries, exclude, k, metric, block_rows, workers, dtype
        )
    if single:
        return Neighbors(indices[0], scores[0])
    return Neighbors(indices, scores)


def row_norms(vectors: np.ndarray, *, block_rows: int = BLOCK_ROWS) -> np.ndarray:
    """The Euclidean norm of every row of ``vectors (n, d)``: ``(n,)`` float32, in blocks.

    What :func:`neighbors` takes as ``norms=`` (a corpus store computes them once). Raises
    ``ValueError`` like :func:`neighbors` for bad vectors, naming the first row with NaN or
    infinite values.
    """
    vectors = _check_vectors(vectors)
    block_rows = _positive_int(block_rows, "block_rows")
    dtype = np.float64 if vectors.dtype == np.float64 else np.float32
    norms = np.empty(len(vectors), np.float32)
    convert = converter(vectors, dtype, block_rows)
    with np.errstate(over="ignore", invalid="ignore"):
        for begin in range(0, len(vectors), block_rows):
            block = convert(vectors[begin : begin + block_rows])
            squared = np.vecdot(block, block)
            finite = np.isfinite(squared)
            if not finite.all():
                raise_bad_row(vectors, begin + int(np.argmax(~finite)))
            norms[begin : begin + len(block)] = np.sqrt(squared)
    return norms


# -- validation --------------------------------------------------------------------------------


def _positive_int(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}.")
    return int(value)


def _check_vectors(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors)  # a memmap stays a view of the file: no copy
    if vectors.ndim != 2:
        raise ValueError(f"vectors must be a 2-D array (n, d); got shape {vectors.shape}.")
    if vectors.shape[0] == 0 or vectors.shape[1] == 0:
        raise ValueError(f"vectors is empty (shape {vectors.shape}): nothing to search.")
    if vectors.dtype.kind not in "fiu":
        raise ValueError(f"vectors must hold real numbers, not dtype {vectors.dtype}.")
    return vectors


def _check_norms(norms: np.ndarray, n: int, dtype: type) -> np.ndarray:
    norms = np.asarray(norms)
    if norms.shape != (n,) or norms.dtype.kind not in "fiu":
        raise ValueError(
            f"norms must be the {n} rows' norms, shape ({n},); got shape {norms.shape}, "
            f"dtype {norms.dtype}."
        )
    norms = norms.astype(dtype, copy=False)
    bad = ~np.isfinite(norms) | (norms < 0)
    if bad.any():
        raise ValueError(
            f"norms must be finite and not negative; norms[{int(np.argmax(bad))}] is "
            f"{norms[np.argmax(bad)]}."
        )
    return norms


def check_row_query(row: int, k: int, n: int) -> tuple[int, int]:
    """``(row, k)`` as ints after the checks :func:`neighbors` makes of a query by one row
    index among ``n`` rows and of its ``k``, with the same ``ValueError`` messages: for a
    search of those rows that does not go through :func:`neighbors` (a store's neighbour index,
    :func:`explorer.data.store.ann.nearest`)."""
    if isinstance(row, bool | np.bool_) or not isinstance(row, int | np.integer):
        raise ValueError(f"query must be a row index (int), not {row!r}.")
    _check_rows(np.array([row], dtype=np.int64), n)
    return int(row), _check_k(k, n, by_row=True)


def _check_rows(rows: np.ndarray, n: int) -> None:
    outside = (rows < 0) | (rows >= n)
    if outside.any():
        raise ValueError(
            f"Query row {int(rows[np.argmax(outside)])} is out of range: vectors has {n} "
            f"rows, numbered 0 to {n - 1}."
        )


def _check_k(k: int, n: int, *, by_row: bool) -> int:
    """``k`` as an int: a whole number from 1 to the candidates (``n``, or ``n - 1`` when the
    query is a row, which is left out)."""
    candidates = n - 1 if by_row else n
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= candidates:
        what = "other rows (the query row is left out)" if by_row else "rows"
        raise ValueError(
            f"k must be a whole number from 1 to {candidates}, the number of {what}; got {k!r}."
        )
    return int(k)


def _check_query(
    query: int | np.ndarray, n: int, d: int, dtype: type
) -> tuple[np.ndarray | None, np.ndarray | None, bool]:
    """``(rows, None, single)`` for row indices, ``(None, batch (m, d), single)`` for vectors."""
    if isinstance(query, bool | np.bool_):
        raise ValueError(f"query must be a row index or a vector of {d} numbers, not {query!r}.")
    array = np.asarray(query)
    if array.dtype.kind in "iu":
        if array.ndim > 1:
            raise ValueError(
                f"Row indices must be one int or a 1-D array of ints; got shape {array.shape}."
            )
        rows = array.reshape(-1).astype(np.int64)
        _check_rows(rows, n)
        return rows, None, array.ndim == 0
    if array.dtype.kind != "f" or array.ndim not in (1, 2):
        raise ValueError(
            f"query must be a row index (int), a vector (d,) or a batch (m, d) of floats with "
            f"d = {d}; got {type(query).__name__} of shape {array.shape}, dtype {array.dtype}."
        )
    if array.shape[-1] != d:
        raise ValueError(f"The query has width {array.shape[-1]}, but the vectors have d = {d}.")
    batch = np.ascontiguousarray(array.reshape(-1, d), dtype=dtype)
    bad = ~np.isfinite(batch).all(axis=1)
    if bad.any():
        where = "" if array.ndim == 1 else f" (query {int(np.argmax(bad))} of the batch)"
        raise ValueError(f"The query has NaN or infinite values{where}.")
    with np.errstate(over="ignore"):
        too_large = not np.isfinite(np.vecdot(batch, batch)).all()
    if too_large:
        raise ValueError("The query's values are too large for float32 arithmetic.")
    return None, batch, array.ndim == 1
