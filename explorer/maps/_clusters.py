"""Clusters with names: group the full-space vectors, then name each group by its words.

:func:`cluster` runs k-means (a chosen ``k``, or the ``k`` in 2..12 with the best silhouette)
or HDBSCAN (scikit-learn's; points in no dense group get ``-1``, "noise") on the vectors in
the full space, not on the 2-D map. With ``normalize=True`` (the default) rows are scaled to
unit length first, so k-means groups by cosine similarity, as the rest of the explorer
compares texts.

:func:`cluster_terms` names the groups with class-based TF-IDF (c-TF-IDF, as BERTopic): all
texts of a cluster are one document; a word's weight in cluster ``c`` is its frequency there
(count / words in ``c``) times ``log(1 + A / f)``, with ``A`` the mean number of words per
cluster and ``f`` the word's count over all clusters. Words frequent in one cluster and rare
elsewhere win; English stop words are left out (scikit-learn's ``CountVectorizer``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

METHODS = ("kmeans", "hdbscan")
ClusterMethod = Literal["kmeans", "hdbscan"]
LABELS = {"kmeans": "k-means", "hdbscan": "HDBSCAN"}

AUTO_K_MAX = 12
"""Automatic k tries 2..min(AUTO_K_MAX, n - 1)."""

SILHOUETTE_SAMPLE = 3000
"""Above this many points the silhouette is computed on a random sample of this size."""

KMEANS_INIT = 4
"""k-means restarts (``n_init``)."""

MIN_POINTS = 3
NOISE = -1
NOISE_NAME = "noise"
SEPARATOR = " · "


@dataclass(frozen=True)
class Clusters:
    """``labels`` ``(n,)`` int: the cluster of each point, ``0..k-1`` (``-1`` = noise for
    HDBSCAN); ``k`` the number of clusters (noise not counted); ``method``; ``silhouettes``
    ``{k: score}`` tried by the automatic choice of k (empty otherwise); ``notes``."""

    labels: np.ndarray
    k: int
    method: str
    silhouettes: dict[int, float]
    notes: tuple[str, ...] = ()

    @property
    def noise(self) -> int:
        """How many points are in no cluster."""
        return int((self.labels == NOISE).sum())


def validate_cluster_method(method: str) -> str:
    """Return ``method`` if it is one of :data:`METHODS`, else raise ``ValueError``."""
    if method not in METHODS:
        raise ValueError(f"Unknown clustering {method!r}; choose one of {METHODS}")
    return method


def prepare(vectors: np.ndarray, normalize: bool = True) -> np.ndarray:
    """``vectors`` ``(n, d)`` as float64, rows scaled to unit length if ``normalize``."""
    X = np.asarray(vectors, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"Expected vectors (points x dim), got shape {X.shape}.")
    if not np.isfinite(X).all():
        raise ValueError("The vectors contain NaN or infinite values; nothing to cluster.")
    if normalize:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        X = X / np.maximum(norms, 1e-12)
    return X


def _kmeans(X: np.ndarray, k: int, random_state: int) -> np.ndarray:
    from sklearn.cluster import KMeans

    model = KMeans(n_clusters=k, n_init=KMEANS_INIT, random_state=random_state)
    return model.fit_predict(X)


def silhouette(X: np.ndarray, labels: np.ndarray, random_state: int = 0) -> float:
    """scikit-learn's silhouette score of ``labels`` on ``X``, on a random sample of
    :data:`SILHOUETTE_SAMPLE` points above that many."""
    from sklearn.metrics import silhouette_score

    sample = SILHOUETTE_SAMPLE if len(X) > SILHOUETTE_SAMPLE else None
    return float(silhouette_score(X, labels, sample_size=sample, random_state=random_state))


def cluster(
    vectors: np.ndarray,
    method: ClusterMethod = "kmeans",
    k: int | None = None,
    random_state: int = 0,
    *,
    normalize: bool = True,
    min_cluster_size: int | None = None,
) -> Clusters:
    """Cluster ``vectors`` ``(n, d)``.

    ``method="kmeans"``: ``k`` clusters (``None``: the k in ``2..min(12, n - 1)`` with the best
    silhouette, its scores in ``silhouettes``), ``n_init=4``, ``random_state``.
    ``method="hdbscan"``: scikit-learn's HDBSCAN with ``min_cluster_size`` (default
    ``max(5, n // 100)``); ``k`` is ignored. See the module docstring for ``normalize``.

    Raises ``ValueError`` for an unknown method, ``k < 2``, ``k >= n``, fewer than 3 points,
    non-finite vectors, or points that are all the same.
    """
    validate_cluster_method(method)
    X = prepare(vectors, normalize)
    n = X.shape[0]
    if n < MIN_POINTS:
        raise ValueError(f"Clustering needs at least {MIN_POINTS} points; you have {n}.")
    if np.ptp(X, axis=0).max() == 0:
        raise ValueError(f"All {n} vectors are identical, so there is nothing to group.")
    if method == "hdbscan":
        return _hdbscan(X, min_cluster_size)
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            raise ValueError(f"k must be a whole number, not {k!r}.")
        if k < 2:
            raise ValueError(f"k must be at least 2 (one cluster says nothing), not {k}.")
        if k >= n:
            raise ValueError(f"k must be below the number of points ({n}), not {k}.")
        return Clusters(_kmeans(X, int(k), random_state), int(k), method, {})
    scores: dict[int, float] = {}
    best: tuple[float, int, np.ndarray] | None = None
    distinct = len(np.unique(X, axis=0))
    for candidate in range(2, min(AUTO_K_MAX, n - 1, distinct) + 1):
        labels = _kmeans(X, candidate, random_state)
        if len(np.unique(labels)) < 2:
            continue
        scores[candidate] = silhouette(X, labels, random_state)
        if best is None or scores[candidate] > best[0]:
            best = (scores[candidate], candidate, labels)
    if best is None:
        raise ValueError("The points do not fall into two or more groups; choose k yourself.")
    notes = (f"k = {best[1]} had the best silhouette ({best[0]:.3f}) of k = 2..{max(scores)}.",)
    return Clusters(best[2], best[1], method, scores, notes)


def _hdbscan(X: np.ndarray, min_cluster_size: int | None) -> Clusters:
    from sklearn.cluster import HDBSCAN

    n = X.shape[0]
    size = max(5, n // 100) if min_cluster_size is None else int(min_cluster_size)
    if size < 2:
        raise ValueError(f"min_cluster_size must be at least 2, not {size}.")
    size = min(size, n)
    labels = HDBSCAN(min_cluster_size=size, copy=True).fit_predict(X)
    k = int(labels.max()) + 1
    notes = []
    if k == 0:
        notes.append(
            f"HDBSCAN found no group of at least {size} close points: every point is noise. "
            "Try k-means, or more texts."
        )
    return Clusters(labels.astype(np.int64), k, "hdbscan", {}, tuple(notes))


def cluster_terms(
    texts: Sequence[str], labels: Sequence[int] | np.ndarray, top: int = 3
) -> dict[int, list[tuple[str, float]]]:
    """The ``top`` most distinctive words of each cluster with their c-TF-IDF weights.

    ``texts[i]`` belongs to cluster ``labels[i]``. Returns ``{label: [(word, weight), ...]}``
    for every label present (noise, ``-1``, included: its words still count in every word's
    total), best first, ties broken alphabetically. A cluster with no words left after stop
    words gets an empty list.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    labels = np.asarray(labels)
    if len(texts) != len(labels):
        raise ValueError(f"Got {len(texts)} texts but {len(labels)} labels.")
    if top < 1:
        raise ValueError(f"top must be at least 1, not {top}.")
    classes = sorted(int(c) for c in np.unique(labels))
    documents = [" ".join(texts[i] for i in np.flatnonzero(labels == c)) for c in classes]
    try:
        counts = CountVectorizer(stop_words="english").fit(documents)
    except ValueError:  # no word at all outside the stop words
        return {c: [] for c in classes}
    X = counts.transform(documents).toarray().astype(np.float64)
    words = counts.get_feature_names_out()
    weights = ctfidf(X)
    result = {}
    for row, c in enumerate(classes):
        present = np.flatnonzero(X[row] > 0)
        order = sorted(present, key=lambda j: (-weights[row, j], words[j]))[:top]
        result[c] = [(str(words[j]), float(weights[row, j])) for j in order]
    return result


def ctfidf(counts: np.ndarray) -> np.ndarray:
    """Class-based TF-IDF of a ``(classes, words)`` count matrix: each row's counts divided
    by its total, times ``log(1 + A / f)`` (``A`` mean words per class, ``f`` each word's
    total count)."""
    counts = np.asarray(counts, dtype=np.float64)
    per_class = counts.sum(axis=1, keepdims=True)
    frequency = counts.sum(axis=0)
    average = per_class.mean()
    tf = counts / np.maximum(per_class, 1.0)
    return tf * np.log(1.0 + average / np.maximum(frequency, 1.0))


def cluster_names(
    texts: Sequence[str], labels: Sequence[int] | np.ndarray, top: int = 3
) -> dict[int, str]:
    """``{label: "word · word · word"}``: each cluster's ``top`` most distinctive words
    (:func:`cluster_terms`); noise is named "noise", a cluster without words "cluster i"."""
    names = {}
    for c, terms in cluster_terms(texts, labels, top).items():
        if c == NOISE:
            names[c] = NOISE_NAME
        else:
            names[c] = SEPARATOR.join(w for w, _ in terms) or f"cluster {c + 1}"
    return names


def cluster_labels(labels: Sequence[int] | np.ndarray, names: Mapping[int, str]) -> list[str]:
    """One legend/CSV label per point: ``"1: football · match · goal"`` (clusters numbered
    from 1), ``"noise"`` for ``-1``."""
    return [
        NOISE_NAME if int(c) == NOISE else f"{int(c) + 1}: {names.get(int(c), '')}".rstrip(": ")
        for c in labels
    ]
