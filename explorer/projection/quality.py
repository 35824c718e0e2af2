"""Trustworthiness of a projection: how far each point's nearest neighbours in the picture
are from it in the original space (scikit-learn's quantity, computed in chunks of rows)."""

from __future__ import annotations

import numpy as np

TRUSTWORTHINESS_NEIGHBORS = 5
TRUSTWORTHINESS_QUERIES = 2000
"""Above this many points, trustworthiness is estimated from this many random points."""

FLOAT32_ABOVE = 1000
""":func:`trustworthiness` compares float32 vectors in float32 above this many points."""


def _row_distances(rows: np.ndarray, points: np.ndarray, points_sq: np.ndarray) -> np.ndarray:
    """``|row - point|^2 - |row|^2`` for every row and point: each row's squared distances
    shifted by a constant, so they rank the points exactly as the distances do."""
    distances = rows @ points.T
    distances *= -2.0
    distances += points_sq
    return distances


def trustworthiness(
    X: np.ndarray,
    embedding: np.ndarray,
    n_neighbors: int = TRUSTWORTHINESS_NEIGHBORS,
    max_queries: int | None = TRUSTWORTHINESS_QUERIES,
    random_state: int = 0,
    chunk: int = 256,
) -> float:
    """Trustworthiness of ``embedding`` ``(n, k)`` as a picture of ``X`` ``(n, d)``.

    The quantity of ``sklearn.manifold.trustworthiness(X, embedding, n_neighbors=...)``
    (Venna and Kaski, 2001): each point's ``n_neighbors`` nearest neighbours in the picture
    that are not among its nearest in ``X`` are penalised by how far down they rank in
    ``X``; 1.0 means no penalty. Computed in chunks of rows instead of sorting the whole
    ``n x n`` distance matrix: scikit-learn's function holds two ``n x n`` arrays and took
    3.5-7 s for 10,000 points on 2 cores, most of a PCA fit's time (this function: 1.4 s
    exact, 0.3 s estimated). Equal to scikit-learn's value in the tests (1e-9 in float64; a
    rank may differ where two distances agree to rounding error, so float32 vectors of more
    than :data:`FLOAT32_ABOVE` points, compared in float32, agree to about 1e-6).

    With more than ``max_queries`` points (``None``: no limit), the penalty is averaged over
    ``max_queries`` points drawn at random (``random_state``), each ranked against *all*
    points: an unbiased estimate of the exact value (standard deviation 0.002 over seeds
    for a PCA of 10,000 sentence vectors).
    """
    X = np.asarray(X)
    # float32 vectors of more than FLOAT32_ABOVE points are compared in float32: their
    # distance matrix is 4x faster to compute than in float64 (0.07 s -> 0.02 s for 2,000 x
    # 384), and a rank can only change where two distances agree to about 1e-6.
    wide = X.dtype != np.float32 or X.shape[0] <= FLOAT32_ABOVE
    X = X.astype(np.float64 if wide else np.float32, copy=False)
    embedding = np.asarray(embedding, dtype=np.float64)
    n, k = X.shape[0], int(n_neighbors)
    if embedding.shape[0] != n:
        raise ValueError(f"X has {n} rows but the embedding has {embedding.shape[0]}.")
    if not 1 <= k < n / 2:
        raise ValueError(f"n_neighbors must be at least 1 and below {n / 2:g}, not {k}.")
    queries = np.arange(n)
    if max_queries is not None and n > max_queries:
        rng = np.random.default_rng(random_state)
        queries = np.sort(rng.choice(n, size=max_queries, replace=False))
    X_sq = (X * X).sum(axis=1)
    embedding_sq = (embedding * embedding).sum(axis=1)
    penalty = 0
    for start in range(0, len(queries), chunk):
        rows = queries[start : start + chunk]
        own = (np.arange(len(rows)), rows)
        near_in_picture = _row_distances(embedding[rows], embedding, embedding_sq)
        near_in_picture[own] = np.inf
        picked = np.argpartition(near_in_picture, k - 1, axis=1)[:, :k]
        original = _row_distances(X[rows], X, X_sq)
        original[own] = np.inf
        threshold = np.take_along_axis(original, picked, axis=1)
        # Rank of each picked neighbour in X: 1 + the points strictly closer to the row.
        ranks = (original[:, None, :] < threshold[:, :, None]).sum(axis=2) + 1
        penalty += int(np.maximum(ranks - k, 0).sum())
    penalty *= n / len(queries)
    return float(1.0 - penalty * 2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0)))
