"""Do two models give a text the same neighbours? And one model's map turned onto another's."""

from __future__ import annotations

import numpy as np


def nearest_sets(vectors: np.ndarray, k: int) -> np.ndarray:
    """Each row's ``k`` nearest other rows by cosine similarity in the full space (itself left
    out; ties broken by the lower row index): ``(n, k)`` int64, best first."""
    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2:
        raise ValueError(f"Expected an (n, dim) array of vectors; got shape {vectors.shape}.")
    n = len(vectors)
    if not 1 <= k < n:
        raise ValueError(f"k must be between 1 and {n - 1} (the other texts); got {k}.")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    scores = unit @ unit.T
    np.fill_diagonal(scores, -np.inf)
    # Stable sort of the negated scores: equal scores keep the lower index first.
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]


def neighbour_agreement(vectors_a: np.ndarray, vectors_b: np.ndarray, k: int = 10) -> np.ndarray:
    """Per text, the share of its ``k`` nearest neighbours (cosine, full space, itself left
    out) that both models agree on: ``|N_a(i) ∩ N_b(i)| / k``, ``(n,)`` float64 in [0, 1].

    ``vectors_a`` ``(n, da)`` and ``vectors_b`` ``(n, db)`` are the same ``n`` texts under two
    models (the sizes may differ). 1: the same ``k`` neighbours; 0: none in common.
    """
    a, b = np.asarray(vectors_a), np.asarray(vectors_b)
    if a.ndim != 2 or b.ndim != 2 or len(a) != len(b):
        raise ValueError(
            f"Expected the same texts under both models, (n, dim_a) and (n, dim_b); got "
            f"{a.shape} and {b.shape}."
        )
    near_a, near_b = nearest_sets(a, k), nearest_sets(b, k)
    return np.array(
        [len(set(x) & set(y)) / k for x, y in zip(near_a.tolist(), near_b.tolist(), strict=True)]
    )


def align_map(reference: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``other`` ``(n, d)`` (a map of the same ``n`` points) turned onto ``reference``
    ``(n, d)`` by orthogonal Procrustes: both centred and scaled to unit size, the rotation
    (or reflection) that brings ``other`` closest to ``reference`` applied, then moved to
    ``reference``'s centre and size. Distances within ``other`` keep their ratios."""
    from scipy.linalg import orthogonal_procrustes

    ref, oth = np.asarray(reference, np.float64), np.asarray(other, np.float64)
    if ref.shape != oth.shape or ref.ndim != 2:
        raise ValueError(f"Both maps need the same shape (n, d); got {ref.shape} and {oth.shape}.")
    ref_centre, oth_centre = ref.mean(axis=0), oth.mean(axis=0)
    ref_c, oth_c = ref - ref_centre, oth - oth_centre
    ref_size, oth_size = np.linalg.norm(ref_c), np.linalg.norm(oth_c)
    if ref_size == 0 or oth_size == 0:
        return np.broadcast_to(ref_centre, ref.shape).copy()
    rotation, _ = orthogonal_procrustes(oth_c / oth_size, ref_c / ref_size)
    return (oth_c / oth_size) @ rotation * ref_size + ref_centre


def pca_map(vectors: np.ndarray) -> np.ndarray:
    """The two principal components of ``vectors`` ``(n, dim)``: ``(n, 2)`` float64 (PCA by
    SVD of the centred rows; the signs are arbitrary, :func:`align_map` settles them)."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or len(x) < 3:
        raise ValueError(f"A map needs an (n, dim) array with n >= 3; got shape {x.shape}.")
    x = x - x.mean(axis=0)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    components = x @ vt[:2].T
    if components.shape[1] < 2:
        components = np.hstack([components, np.zeros((len(x), 2 - components.shape[1]))])
    return components


def paired_maps(vectors_a: np.ndarray, vectors_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2-D maps of the same texts under two models: PCA of each model's vectors, B's map
    turned onto A's by orthogonal Procrustes (:func:`align_map`), so a text sits in about
    the same place in both when the models agree. Returns ``((n, 2), (n, 2))``."""
    map_a = pca_map(vectors_a)
    return map_a, align_map(map_a, pca_map(vectors_b))
