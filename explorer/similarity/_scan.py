"""The scan behind :func:`explorer.similarity.neighbors`: blocks of rows scored on worker
threads, the ``k`` best of each block kept and merged, ties to the lower row index."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from explorer.similarity._halffloat import converter

MIN_BLOCKS_PER_WORKER = 16
"""Fewer blocks than this per thread are scanned by one thread (20,000 rows: starting
threads costs more than it saves, measured)."""


def nearest_in_blocks(
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
        raise_bad_row(vectors, min(bad))
    keys, indices = found[0][:2]
    for more_keys, more_indices, _ in found[1:]:
        keys, indices = _merge(keys, indices, more_keys, more_indices, k)
    scores = 0.0 - keys if metric == "cosine" else keys + 0.0  # never -0.0
    return indices, scores.astype(np.float32, copy=False)


def raise_bad_row(vectors: np.ndarray, row: int) -> None:
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
