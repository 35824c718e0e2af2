"""How faithful a 2-D/3-D map is to the full vector space, point by point.

A map (PCA, UMAP, t-SNE) puts some points side by side that are far apart in the full space, and the
other way round. These functions answer the next question a person asks of a map: which texts are
*really* closest to this one, and how many of them does the map keep close? :func:`trustworthiness`
scores a whole map with scikit-learn's quantity (computed in chunks of rows). Full-space neighbours
come from :func:`explorer.similarity.neighbors` (the one k-NN, cosine); map neighbours are Euclidean
on the map's coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from explorer._markup import shorten
from explorer._shown import extremes, join, percent
from explorer.maps._clumps import clumps_sentence, label_clumps
from explorer.similarity import neighbors

DEFAULT_K = 10
"""Neighbours compared per point by default."""


@dataclass(frozen=True)
class Inspection:
    """One point's neighbourhood: ``indices``/``scores`` are its ``k`` nearest rows in the
    full space (cosine, best first), ``on_map`` its ``k`` nearest rows on the map, ``kept``
    how many rows the two share."""

    row: int
    indices: np.ndarray
    scores: np.ndarray
    on_map: np.ndarray
    kept: int

    @property
    def k(self) -> int:
        return len(self.indices)

    def summary(self) -> str:
        """The panel's sentence: how many of the full-space neighbours the map keeps."""
        return (
            f"The map keeps {self.kept} of these {self.k} nearest neighbours among this "
            f"point's {self.k} nearest points on the map"
            + (
                ": what you see around it is what the model sees."
                if self.kept >= 0.7 * self.k
                else "; the rest are drawn elsewhere, so its closest texts in the full space "
                "are not the ones next to it on the map."
            )
        )


def _check(vectors: np.ndarray, coords: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, int]:
    vectors, coords = np.asarray(vectors), np.asarray(coords, dtype=np.float64)
    if vectors.ndim != 2 or coords.ndim != 2 or len(vectors) != len(coords):
        raise ValueError(
            f"Expected vectors (n, d) and map coordinates (n, 2 or 3) for the same points, "
            f"got {vectors.shape} and {coords.shape}."
        )
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"k must be a whole number of at least 1, not {k!r}.")
    if len(vectors) < 2:
        raise ValueError("A map needs at least 2 points to compare neighbours.")
    return vectors, coords, min(int(k), len(vectors) - 1)


BRUTE_FORCE_ROWS = 64
"""Up to this many query rows, map neighbours are found by computing every distance (no tree
to build: 1 ms instead of 20 ms for one point of a 20,000-point map)."""


def _map_neighbors(coords: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """``(len(rows), k)`` nearest rows on the map (Euclidean, ties by index), self excluded."""
    rows = np.asarray(rows, dtype=np.int64)
    if len(rows) <= BRUTE_FORCE_ROWS:
        result = np.empty((len(rows), k), np.int64)
        for i, row in enumerate(rows):
            distances = ((coords - coords[row]) ** 2).sum(axis=1)
            distances[row] = np.inf
            nearest = np.argpartition(distances, k - 1)[:k]
            # every row as close as the k-th, so that ties are broken by index
            candidates = np.flatnonzero(distances <= distances[nearest].max())
            result[i] = candidates[np.lexsort((candidates, distances[candidates]))][:k]
        return result
    from sklearn.neighbors import NearestNeighbors

    finder = NearestNeighbors(n_neighbors=k + 1).fit(coords)
    _, found = finder.kneighbors(coords[rows])
    # drop each row itself, or its (k + 1)-th neighbour when the tree did not return it
    drop = found == rows[:, None]
    drop[~drop.any(axis=1), -1] = True
    return found[~drop].reshape(len(rows), k)


def inspect_point(
    vectors: np.ndarray, coords: np.ndarray, row: int, k: int = DEFAULT_K
) -> Inspection:
    """The neighbourhood of point ``row``: its ``k`` nearest rows of ``vectors (n, d)`` and of
    the map ``coords (n, 2|3)`` (``k`` is lowered to ``n - 1`` for tiny maps)."""
    vectors, coords, k = _check(vectors, coords, k)
    if (
        isinstance(row, bool)
        or not isinstance(row, int | np.integer)
        or not 0 <= row < len(vectors)
    ):
        raise ValueError(f"No point {row!r}: the map has points 0 to {len(vectors) - 1}.")
    found = neighbors(vectors, int(row), k)
    on_map = _map_neighbors(coords, np.array([int(row)]), k)[0]
    kept = len(set(found.indices.tolist()) & set(on_map.tolist()))
    return Inspection(int(row), found.indices, found.scores, on_map, kept)


def preservation(vectors: np.ndarray, coords: np.ndarray, k: int = DEFAULT_K) -> np.ndarray:
    """For every point, the share (0-1) of its ``k`` nearest rows in the full space that are
    also among its ``k`` nearest points on the map: ``(n,)`` float32. Low values are the
    points the map misplaces."""
    vectors, coords, k = _check(vectors, coords, k)
    rows = np.arange(len(vectors))
    full = neighbors(vectors, rows, k).indices
    on_map = _map_neighbors(coords, rows, k)
    full.sort(axis=1)
    on_map.sort(axis=1)
    shared = [
        np.intersect1d(a, b, assume_unique=True).size for a, b in zip(full, on_map, strict=True)
    ]
    return np.asarray(shared, dtype=np.float32) / k


TRUST_READINGS = (
    (0.95, "almost every point's neighbours on the map are also close in the full space"),
    (
        0.85,
        "most neighbourhoods on the map are real, but some points sit next to texts that are "
        "far away in the full space",
    ),
    (
        float("-inf"),
        "many points sit next to texts that are far away in the full space: read clusters with "
        "care",
    ),
)
"""``(lowest score, reading)``, best first: a trustworthiness score as shown (two decimals)
reads as the first whose lowest score it reaches."""

TRUST_CAUTION = (
    "It says whether points close on the map are close in the full space; it does not say "
    "that close texts in the full space stay together"
)
"""What trustworthiness does not measure (the sentence after the reading, without its end)."""


def describe_trustworthiness(value: float, k: int) -> str:
    """The trustworthiness score in plain words, for a page: read at the two decimals it is
    shown with (0.949 shows 0.95 and reads as 0.95 does)."""
    shown = round(float(value), 2)
    reading = next(text for lowest, text in TRUST_READINGS if shown >= lowest)
    return (
        f"Trustworthiness {value:.2f} (with {k} neighbour{'s' if k != 1 else ''}): {reading}. "
        f"{TRUST_CAUTION} (colour by neighbourhood kept to see that, point by point)."
    )


def neighbour_overlap(a: np.ndarray, b: np.ndarray, k: int = DEFAULT_K) -> np.ndarray:
    """How alike two representations of the same ``n`` points are, point by point: the
    Jaccard index (|A ∩ B| / |A ∪ B|) of each point's ``k`` nearest rows under ``a (n, d1)``
    and under ``b (n, d2)`` (cosine, through :func:`explorer.similarity.neighbors`). Returns
    ``(n,)`` float32 in 0-1; its mean is the figure to report (1 = the same neighbourhoods)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 2 or b.ndim != 2 or len(a) != len(b):
        raise ValueError(
            f"Expected two (n, d) arrays for the same points, got {a.shape} and {b.shape}."
        )
    if len(a) < 2:
        raise ValueError("Comparing neighbourhoods needs at least 2 points.")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"k must be a whole number of at least 1, not {k!r}.")
    k = min(int(k), len(a) - 1)
    rows = np.arange(len(a))
    first, second = neighbors(a, rows, k).indices, neighbors(b, rows, k).indices
    shared = np.array(
        [np.intersect1d(x, y, assume_unique=True).size for x, y in zip(first, second, strict=True)]
    )
    return (shared / (2 * k - shared)).astype(np.float32)


def label_codes(labels) -> tuple[np.ndarray, list[str]]:
    """``labels`` (any values, compared as strings) as integer codes ``(n,)`` int64 and the
    distinct labels in order of first appearance (``names[codes[i]]`` is label ``i``).

    Never a fixed-width string array: NumPy gives every element of one the longest label's
    width, so 5,000 points with one 40,000-character label took 800 MB (and every copy or
    index of it as much again); codes cost 8 bytes a point whatever the labels hold."""
    cells = np.empty(len(labels), dtype=object)
    cells[:] = [str(label) for label in labels]
    codes, names = pd.factorize(cells)
    return codes.astype(np.int64, copy=False), [str(name) for name in names]


def label_agreement(vectors: np.ndarray, labels, k: int = 5) -> float:
    """Share (0-1) of the points' ``k`` nearest rows (cosine, full space) that carry the same
    label as the point: how well a space keeps labelled groups apart."""
    labels, _ = label_codes(labels)
    if len(labels) != len(vectors):
        raise ValueError(f"Got {len(vectors)} vectors but {len(labels)} labels.")
    if len(vectors) < 2:
        raise ValueError("Label agreement needs at least 2 points.")
    k = min(int(k), len(vectors) - 1)
    found = neighbors(np.asarray(vectors), np.arange(len(vectors)), k).indices
    return float((labels[found] == labels[:, None]).mean())


def map_notice(
    coords: np.ndarray,
    labels=None,
    *,
    trust: float | None = None,
    k: int = 5,
    max_points: int = 5_000,
    what: str = "label",
    method: str | None = None,
    whats: str | None = None,
) -> str:
    """What a map shows, in one or two plain sentences (plain text: labels are user text,
    escape to show; a label it names is shortened to
    :data:`explorer._markup.SHOWN_CHARS` characters).

    With labels (2 or more groups, fewer groups than half the points): the share of each
    point's ``k`` nearest points on the map ``coords (n, 2|3)`` that carry its label, against
    the share a random labelling would give, and the tightest and most mixed labels. Without:
    how many points, and whether map neighbours are real (``trust``, the map's
    trustworthiness). A low ``trust`` (< 0.85) is always mentioned. Above ``max_points``
    points, the shares are estimated from a fixed random sample of that many points. Labels
    that agree with their neighbours but are each broken into many small clumps
    (:mod:`explorer.maps._clumps`) are not called clear groups; the sentence says what to try
    (PCA unless ``method`` is ``"pca"``, more neighbours for UMAP). ``what`` names what
    colours the points (a label, a cluster, a column's value), ``whats`` its plural (default
    ``what + "s"``).
    """
    whats = what + "s" if whats is None else whats
    coords = np.asarray(coords, dtype=np.float64)
    if coords.ndim != 2 or len(coords) < 2:
        raise ValueError(f"Expected map coordinates (n >= 2, 2 or 3), got {coords.shape}.")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"k must be a whole number of at least 1, not {k!r}.")
    n = len(coords)
    caution = (
        f" Trustworthiness is only {trust:.2f}: some points sit next to texts that are far "
        "away in the full space, so read the groups with care."
        if trust is not None and trust < 0.85
        else ""
    )
    names, groups = (None, None) if labels is None else label_codes(labels)
    if names is not None and len(names) != n:
        raise ValueError(f"Got {n} points but {len(names)} labels.")
    counts = None if names is None else np.bincount(names, minlength=len(groups))
    if groups is None or not 2 <= len(groups) <= n / 2:
        if trust is None or caution:
            return f"The map shows {n:,} points." + caution
        return (
            f"The map shows {n:,} points, and its neighbourhoods are real (trustworthiness "
            f"{trust:.2f}): points side by side are also close in the full space."
        )
    k = min(int(k), n - 1)
    rows = np.arange(n)
    if n > max_points:
        rows = np.sort(np.random.default_rng(0).choice(n, max_points, replace=False))
    found = _map_neighbors(coords, rows, k)
    same = (names[found] == names[rows][:, None]).mean(axis=1)
    share = float(same.mean())
    chance = float((counts * (counts - 1)).sum() / (n * (n - 1)))
    lift = (share - chance) / max(1.0 - chance, 1e-9)
    verdict = (
        f"the {whats} form clear groups"
        if lift >= 0.5
        else f"the {whats} partly separate"
        if lift >= 0.15
        else f"the {whats} are mixed together"
    )
    if lift >= 0.15:
        split = clumps = label_clumps(coords[rows], names[rows], names=groups)
        split = clumps_sentence(clumps, what, method, whats)
        verdict = verdict if split is None else f"neighbours agree, {split}"
    text = (
        f"On the map, {share:.0%} of each point's {k} nearest points share its {what} "
        f"({chance:.0%} if the {whats} were shuffled): {verdict}."
    )
    sampled = names[rows]
    by_label = {code: float(same[sampled == code].mean()) for code in np.unique(sampled).tolist()}
    if len(by_label) >= 2:
        text += _tightest(by_label, groups, whats)
    return text + caution


def _tightest(by_label: dict[int, float], groups, whats: str) -> str:
    """The labels (codes into ``groups``) whose share ``by_label`` of same-label neighbours is
    the highest and the lowest as shown (whole percentages), every one that ties there named
    (more than three: counted); nothing when the two differ by less than 5 points."""
    codes, shares = list(by_label), list(by_label.values())
    high, low = extremes(shares, as_percent=True)
    top, bottom = percent(shares[high[0]]), percent(shares[low[0]])
    if int(top[:-1]) - int(bottom[:-1]) < 5:
        return ""

    def named(found: list[int]) -> str:
        if len(found) > 3:
            return f"{len(found)} {whats}"
        return join([f"“{shorten(groups[codes[i]])}”" for i in found])

    tight = (
        f"{named(high)} are the tightest groups ({top} each)"
        if len(high) > 1
        else f"{named(high)} is the tightest group ({top})"
    )
    return f" {tight}, {named(low)} the most mixed ({bottom}{' each' if len(low) > 1 else ''})."


# -- trustworthiness of a whole map ----------------------------------------------------------

TRUSTWORTHINESS_NEIGHBORS = 5
TRUSTWORTHINESS_QUERIES = 2000
"""Above this many points, trustworthiness is estimated from this many random points."""

FLOAT32_ABOVE = 1000
""":func:`trustworthiness` compares float32 vectors in float32 above this many points."""

TRUSTWORTHINESS_BLAS_THREADS = 1
"""BLAS threads for :func:`trustworthiness`'s chunks of distances: one. Its many short matrix
products made two OpenBLAS threads spin-wait for each other on the busy 2-core machine: 1.7-2.2 s
(0.43 s of CPU) against 0.7-0.9 s (0.17-0.20 s of CPU) on one thread, 2,000 queries among
5,000 t-SNE points, the two alternating in one process."""


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
    with threadpool_limits(limits=TRUSTWORTHINESS_BLAS_THREADS, user_api="blas"):
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
