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
float16 without SIMD (0.9 s of CPU for the same rows); :mod:`explorer.similarity._halffloat`
converts it
exactly with integer operations instead (0.3 s), still more than reading float32.
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, NamedTuple

import numpy as np

from explorer.similarity._halffloat import converter

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

MIN_BLOCKS_PER_WORKER = 16
"""Fewer blocks than this per thread are scanned by one thread (20,000 rows: starting
threads costs more than it saves, measured)."""


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
    candidates = n - 1 if rows is not None else n
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= candidates:
        what = "other rows (the query row is left out)" if rows is not None else "rows"
        raise ValueError(
            f"k must be a whole number from 1 to {candidates}, the number of {what}; got {k!r}."
        )
    k = int(k)
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
        indices[start:stop], scores[start:stop] = _search(
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
                _raise_bad_row(vectors, begin + int(np.argmax(~finite)))
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
        outside = (rows < 0) | (rows >= n)
        if outside.any():
            raise ValueError(
                f"Query row {int(rows[np.argmax(outside)])} is out of range: vectors has {n} "
                f"rows, numbered 0 to {n - 1}."
            )
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


# -- the scan ----------------------------------------------------------------------------------


def _search(
    vectors: np.ndarray,
    norms: np.ndarray | None,
    queries: np.ndarray,
    exclude: np.ndarray | None,
    k: int,
    metric: str,
    block_rows: int,
    workers: int,
    dtype: type,
) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(m, k)`` and scores ``(m, k)`` of ``queries (m, d)``, ``workers`` threads."""
    n = len(vectors)
    blocks = -(-n // block_rows)
    parts = max(1, min(workers, blocks // MIN_BLOCKS_PER_WORKER))
    # contiguous ranges of whole blocks, one per worker
    edges = [min(n, (blocks * p // parts) * block_rows) for p in range(parts + 1)]
    queries = np.ascontiguousarray(queries, dtype=dtype)
    query_sq = np.vecdot(queries, queries)

    def scan(start: int, stop: int) -> tuple[np.ndarray, np.ndarray, int | None]:
        with np.errstate(over="ignore", invalid="ignore"):  # bad rows are reported instead
            return _scan(
                start,
                stop,
                vectors,
                norms,
                queries,
                query_sq,
                exclude,
                k,
                metric,
                block_rows,
                dtype,
            )

    if parts == 1:
        found = [scan(0, n)]
    else:
        with ThreadPoolExecutor(parts) as pool:
            found = list(pool.map(scan, edges[:-1], edges[1:]))
    bad = [row for _, _, row in found if row is not None]
    if bad:
        _raise_bad_row(vectors, min(bad))
    keys, indices = found[0][:2]
    for more_keys, more_indices, _ in found[1:]:
        keys, indices = _merge(keys, indices, more_keys, more_indices, k)
    scores = 0.0 - keys if metric == "cosine" else keys + 0.0  # never -0.0
    return indices, scores.astype(np.float32, copy=False)


def _raise_bad_row(vectors: np.ndarray, row: int) -> None:
    finite = np.isfinite(np.asarray(vectors[row], dtype=np.float64)).all()
    problem = "values too large for float32 arithmetic" if finite else "NaN or infinite values"
    raise ValueError(f"Row {row} of vectors has {problem}.")


def _scan(
    start: int,
    stop: int,
    vectors: np.ndarray,
    norms: np.ndarray | None,
    queries: np.ndarray,
    query_sq: np.ndarray,
    exclude: np.ndarray | None,
    k: int,
    metric: str,
    block_rows: int,
    dtype: type,
) -> tuple[np.ndarray, np.ndarray, int | None]:
    """Best ``(keys, indices)``, each ``(m, <= k)``, of rows ``start:stop``; lower key is better.

    The third value is the first row with NaN or infinite values (or overflowing ones), or
    ``None``; the scan stops there.
    """
    m = len(queries)
    keys = np.empty((m, 0), np.float32)
    indices = np.empty((m, 0), np.int64)
    # scaled so that one product gives minus the cosine (times |x|) or -2 x.q
    if metric == "cosine":
        queries = queries * -_inverse_norms(query_sq)[:, None]
    else:
        queries = queries * -2.0
    convert = converter(vectors, dtype, block_rows)
    if norms is not None:  # once per range, not per block
        inverse_norms = _inverse(norms[start:stop]) if metric == "cosine" else None
        squared_norms = np.square(norms[start:stop]) if metric != "cosine" else None
    for begin in range(start, stop, block_rows):
        end = min(begin + block_rows, stop)
        block = convert(vectors[begin:end])
        if norms is None:
            row_sq = np.vecdot(block, block)
            finite = np.isfinite(row_sq)  # NaN or inf in a row makes its squared norm so
        elif squared_norms is not None:
            row_sq = squared_norms[begin - start : end - start]
        # one query: a dot product per row (faster than BLAS gemv on a cached block)
        dots = np.vecdot(block, queries[0])[None, :] if m == 1 else queries @ block.T
        if norms is not None:
            finite = np.isfinite(dots).all(axis=0)  # NaN or inf in a row makes its dots so
        if not finite.all():
            return keys, indices, begin + int(np.argmax(~finite))
        if metric == "cosine":
            if norms is None:
                dots *= _inverse_norms(row_sq)
            else:
                dots *= inverse_norms[begin - start : end - start]
            block_keys = np.clip(dots, -1.0, 1.0, out=dots)
        else:
            dots += row_sq
            dots += query_sq[:, None]
            np.clip(dots, 0.0, np.inf, out=dots)  # faster than np.maximum on big blocks
            block_keys = np.sqrt(dots, out=dots)
        block_keys = block_keys.astype(np.float32, copy=False)  # rank what is returned
        if exclude is not None:
            inside = np.flatnonzero((exclude >= begin) & (exclude < end))
            block_keys[inside, exclude[inside] - begin] = np.inf
        width = block_keys.shape[1]
        cuts = [0, width]
        if indices.shape[1] < k:
            # The first block in pieces of doubling width: the best of a few columns, then
            # each piece (~k candidates a query expected) against the best so far. One
            # argpartition of a whole wide block costs more than the rest of the scan.
            cuts = [0, min(width, max(8 * k, 256))]
            while cuts[-1] < width:
                cuts.append(min(width, 2 * cuts[-1]))
        for a, b in itertools.pairwise(cuts):
            keys, indices = _take(keys, indices, block_keys[:, a:b], begin + a, k)
    return keys, indices, None


def _take(
    keys: np.ndarray, indices: np.ndarray, block_keys: np.ndarray, begin: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """The best ``k`` per query of ``(keys, indices)`` and ``block_keys (m, r)`` of rows
    ``begin ...``, sorted by (key, index)."""
    m, r = block_keys.shape
    if indices.shape[1] == k:
        # only keys below the k-th best so far can enter (ties go to the earlier row)
        flat = np.flatnonzero(block_keys < keys[:, -1:])
        if len(flat) <= 8 * k * m:  # the usual case after the first block: few
            query, column = np.divmod(flat, r)
            return _merge_few(keys, indices, query, block_keys[query, column], column + begin)
    local = _smallest(block_keys, k)
    return _merge(keys, indices, np.take_along_axis(block_keys, local, axis=1), local + begin, k)


def _inverse_norms(squared: np.ndarray) -> np.ndarray:
    """``1 / sqrt(squared)``, and 0 where ``squared`` is 0 (zero vectors score 0)."""
    return _inverse(np.sqrt(squared))


def _inverse(norms: np.ndarray) -> np.ndarray:
    """``1 / norms``, and 0 where a norm is 0."""
    return np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)


def _smallest(keys: np.ndarray, k: int) -> np.ndarray:
    """Column positions ``(m, min(k, r))`` of the ``k`` smallest ``keys (m, r)`` per row.

    Among keys equal to the k-th smallest, the lowest positions are kept (argpartition
    alone would keep an arbitrary few of them). The positions are not sorted.
    """
    m, r = keys.shape
    if r <= k:
        return np.broadcast_to(np.arange(r), (m, r))
    part = np.argpartition(keys, k - 1, axis=1)[:, :k]
    kth = np.take_along_axis(keys, part, axis=1).max(axis=1, keepdims=True)
    for j in np.flatnonzero(np.count_nonzero(keys <= kth, axis=1) > k):
        tied = np.flatnonzero(keys[j] <= kth[j])
        part[j] = tied[np.lexsort((tied, keys[j, tied]))[:k]]
    return part


def _merge(
    keys: np.ndarray, indices: np.ndarray, more_keys: np.ndarray, more_indices: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best of two candidate sets ``(m, a)`` and ``(m, b)``, sorted by (key, index)."""
    keys = np.concatenate([keys, more_keys], axis=1)
    indices = np.concatenate([indices, more_indices], axis=1)
    order = np.lexsort((indices, keys), axis=1)[:, :k]
    return np.take_along_axis(keys, order, axis=1), np.take_along_axis(indices, order, axis=1)


def _merge_few(
    keys: np.ndarray,
    indices: np.ndarray,
    query: np.ndarray,
    more_keys: np.ndarray,
    more_indices: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The best ``k`` per query of ``(keys, indices) (m, k)`` and a few ``more`` candidates.

    Candidate ``i`` belongs to query ``query[i]``. The candidates are rows after all of
    ``indices``, in increasing row order per query, so one stable sort by (query, key) keeps
    equal keys in row order without sorting by index too.
    """
    m, k = keys.shape
    if len(query) == 0:
        return keys, indices
    owner = np.concatenate([np.repeat(np.arange(m), k), query])
    all_keys = np.concatenate([keys.ravel(), more_keys])
    all_indices = np.concatenate([indices.ravel(), more_indices])
    order = np.lexsort((all_keys, owner))
    counts = np.bincount(owner, minlength=m)
    first = np.cumsum(counts) - counts
    best = order[first[:, None] + np.arange(k)]
    return all_keys[best], all_indices[best]
