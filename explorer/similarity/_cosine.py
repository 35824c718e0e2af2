"""Cosine similarity, with a guard for zero vectors."""

from __future__ import annotations

import numpy as np


def cosine_similarity(a: np.ndarray, b: np.ndarray | None = None) -> float | np.ndarray:
    """Cosine similarity of vectors or of the rows of matrices.

    ``a (d,)`` and ``b (d,)`` give a float; ``a (n, d)`` and ``b (m, d)`` give ``(n, m)``;
    ``b=None`` compares the rows of ``a`` with each other. A zero vector has similarity 0
    with everything. Raises ``ValueError`` when the dimensions differ.
    """
    a = np.asarray(a, dtype=np.float64)
    b = a if b is None else np.asarray(b, dtype=np.float64)
    if a.ndim not in (1, 2) or b.ndim not in (1, 2):
        raise ValueError(f"Expected vectors or matrices, got shapes {a.shape} and {b.shape}.")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"Vectors of different sizes: {a.shape[-1]} and {b.shape[-1]}.")
    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
    b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)
    result = np.clip(a_unit @ b_unit.T, -1.0, 1.0)
    if np.ndim(result) == 0:
        return float(result)
    return result.astype(np.float32)
