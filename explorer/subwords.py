"""How a word's subword vectors become one: the subword modes and the function applying them.

A word the tokenizer splits ("embeddings" -> ``em``, ``##bed``, ``##ding``, ``##s``) has one
vector per piece; :func:`aggregate_subwords` combines them under one of :data:`SUBWORD_MODES`.
This module owns the modes, their labels and their check; :mod:`explorer.words` (which finds
occurrences and runs the model) and :class:`explorer.VectorChoice` (which carries a mode) both
import it. Imports NumPy only.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

SUBWORD_MODES = ("first", "last", "mean", "max", "sum")

SUBWORD_LABELS = dict(
    zip(
        SUBWORD_MODES,
        (
            "First subword",
            "Last subword",
            "Mean of subwords",
            "Max over subwords",
            "Sum of subwords",
        ),
        strict=True,
    )
)
"""How pages name each subword mode."""
SubwordMode = Literal["first", "last", "mean", "max", "sum"]


def validate_subwords(subwords: str) -> str:
    """Return ``subwords`` if it is one of :data:`SUBWORD_MODES`, else raise ``ValueError``."""
    if subwords not in SUBWORD_MODES:
        raise ValueError(f"Unknown subword mode {subwords!r}; choose one of {SUBWORD_MODES}")
    return subwords


def aggregate_subwords(vectors: np.ndarray, subwords: str = "mean") -> np.ndarray:
    """One vector from a word's subword vectors: ``(..., k, dim)`` in, ``(..., dim)`` float32
    out (``(k, dim) -> (dim,)``; ``(layers, k, dim) -> (layers, dim)`` for every layer at once).

    ``subwords`` is one of :data:`SUBWORD_MODES`.
    """
    subwords = validate_subwords(subwords)
    vectors = np.asarray(vectors)
    if vectors.ndim < 2 or vectors.shape[-2] == 0:
        raise ValueError(f"Expected (..., k, dim) subword vectors, k >= 1; got {vectors.shape}.")
    if subwords == "first":
        return vectors[..., 0, :].astype(np.float32)
    if subwords == "last":
        return vectors[..., -1, :].astype(np.float32)
    reduce = {"mean": np.mean, "max": np.max, "sum": np.sum}[subwords]
    return reduce(vectors, axis=-2).astype(np.float32)
