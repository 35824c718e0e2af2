"""IsoScore (Rudman, Gillman, Rayne and Eickhoff 2022, "IsoScore: Measuring the Uniformity of
Embedding Space Utilization", Findings of ACL): how evenly a cloud of points uses the
dimensions of its space, 1 when every direction carries the same variance, 0 when all of it
lies along one direction.

The paper's point against the usual isotropy number, the average cosine of random pairs: a
cosine depends on where the cloud's mean lies, not on its spread. Points spread along one line
through the origin have an average cosine near 0 and look isotropic; the same cloud shifted
away from the origin looks anisotropic. IsoScore looks only at the spread: its steps, as the
paper and its authors' code take them, are

1. turn the points to their principal axes (PCA), so that the covariance is diagonal;
2. take that diagonal, the variance along each axis (``n`` numbers for ``n`` dimensions);
3. scale it to length ``sqrt(n)``, the length of the all-ones diagonal of an isotropic cloud;
4. the isotropy defect ``delta``: its distance from the all-ones diagonal over the largest
   such distance, ``sqrt(2 (n - sqrt(n)))`` (all variance on one axis), so ``0 <= delta <= 1``;
5. the fraction of dimensions used, ``phi = (n - delta^2 (n - sqrt(n)))^2 / n^2``, between
   ``1/n`` and 1;
6. IsoScore ``= (n phi - 1) / (n - 1)``, rescaled to run from 0 to 1.

Worked through, step 5 gives ``n phi = (sum of variances)^2 / (sum of squared variances)``
(the variances' participation ratio). With ``k`` of ``n`` axes carrying equal variance and
the rest none, ``n phi = k``, so IsoScore is ``(k - 1) / (n - 1)``: ``1 + IsoScore (n - 1)``
reads as "the number of dimensions the points use evenly" (:func:`dimensions_used`).
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

BLAS_THREADS = 1
"""BLAS threads for the Gram matrix and its eigenvalues: one. On the busy 2-core machine two
OpenBLAS threads spin-waited for each other: 1,161 x 768 (How contextual?'s tokens of a
BERT-base-sized model, one layer) took 4.6-5.9 s of wall time and 0.75-0.94 s of CPU, one
thread 0.54-0.68 s and 0.06 s (the 13 layers: 11-13 s of CPU before)."""


def axis_variances(vectors: np.ndarray) -> np.ndarray:
    """Variances of ``vectors`` ``(m points, n dimensions)`` along their principal axes, largest
    first: the diagonal of the covariance after PCA (steps 1-2 of IsoScore). ``(n,)`` float64;
    with fewer points than dimensions the axes past the points' span get 0."""
    x = np.asarray(vectors, dtype=np.float64)
    m, n = x.shape
    x = x - x.mean(axis=0)
    # The eigenvalues of the covariance are those of the smaller Gram matrix (same non-zero
    # spectrum): n x n for many points, m x m for few.
    with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
        gram = x.T @ x if m >= n else x @ x.T
        values = np.clip(np.linalg.eigvalsh(gram)[::-1], 0.0, None) / (m - 1)
    return np.concatenate([values, np.zeros(n - len(values))])


def isoscore(vectors: np.ndarray) -> float:
    """IsoScore of the point cloud ``vectors`` ``(m points, n dimensions)``: a float from 0
    (all the variance along one direction) to 1 (the same variance in every direction), the
    published algorithm (steps in the module's docstring).

    It measures the points' spread only: moving, rotating or scaling the cloud does not change
    it. ``m`` points span at most ``m - 1`` directions, so IsoScore is at most ``(m - 2) /
    (n - 1)`` with fewer points than dimensions; a sample of an isotropic distribution scores
    below 1 by its sampling noise (measured: 0.97 for 50 points per dimension in 10
    dimensions, 0.83 for 5 per dimension in 384).

    ``ValueError`` for fewer than 2 points or 2 dimensions, non-finite values, or points that
    are all the same.
    """
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"IsoScore needs a 2-D array (points x dimensions), not shape {x.shape}.")
    m, n = x.shape
    if m < 2 or n < 2:
        raise ValueError(
            f"IsoScore needs at least 2 points in at least 2 dimensions; got {m} x {n}."
        )
    if not np.isfinite(x).all():
        raise ValueError("The vectors contain NaN or infinite values.")
    variances = axis_variances(x)
    length = np.linalg.norm(variances)
    if length <= 1e-12 * max(1.0, float(np.abs(x).max()) ** 2):
        raise ValueError(f"All {m} vectors are the same: they have no spread to measure.")
    normalised = variances * np.sqrt(n) / length
    defect = np.linalg.norm(normalised - 1.0) / np.sqrt(2 * (n - np.sqrt(n)))
    used = (n - defect**2 * (n - np.sqrt(n))) ** 2 / n**2
    return float(np.clip((n * used - 1) / (n - 1), 0.0, 1.0))


def dimensions_used(score: float, dimensions: int) -> float:
    """``1 + score (dimensions - 1)``: how many of ``dimensions`` an IsoScore of ``score``
    stands for, as if that many directions carried equal variance and the rest none."""
    return 1.0 + float(score) * (int(dimensions) - 1)
