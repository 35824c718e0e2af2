"""Sentence pooling: one vector per text from its token vectors, using the attention mask.

``cls`` takes position 0 (``[CLS]``, or ``<s>`` for RoBERTa); ``mean`` and ``max`` run over
the tokens the mask selects, so padding never counts; ``mean_max`` concatenates the two.

Pooling is applied to every layer separately, and layer strategies then combine the pooled
per-layer vectors. For ``cls`` and ``mean`` that is the same as pooling the combined token
vectors (both are linear); for ``max`` with a multi-layer strategy it is the per-layer max,
summed or concatenated. This order lets one forward pass serve every (pooling, layers) pair.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import torch

from explorer.layers import LayerStrategy, combine_layers

POOLINGS = ("cls", "mean", "max", "mean_max")
Pooling = Literal["cls", "mean", "max", "mean_max"]
BASE_POOLINGS = ("cls", "mean", "max")
"""Poolings computed from the hidden states; ``mean_max`` is built from two of them."""

LABELS = {
    "cls": "[CLS] token",
    "mean": "Mean of tokens",
    "max": "Max over tokens",
    "mean_max": "Mean + max (concatenated)",
}


def validate_pooling(pooling: str) -> str:
    """Return ``pooling`` if it is one of :data:`POOLINGS`, else raise ``ValueError``."""
    if pooling not in POOLINGS:
        raise ValueError(f"Unknown pooling {pooling!r}; choose one of {POOLINGS}")
    return pooling


def pool_hidden(hidden: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
    """Pool a batch of hidden states over tokens, for every layer at once.

    ``hidden`` is ``(layers, batch, tokens, dim)``; ``mask`` is ``(batch, tokens)`` bool,
    True for the tokens that count in ``mean`` and ``max``. Returns ``cls``, ``mean`` and
    ``max``, each ``(layers, batch, dim)`` float32. A row with no selected token gives zeros
    for ``mean`` and ``max``.
    """
    weights = mask.to(hidden.dtype)[None, :, :, None]
    counts = weights.sum(dim=2).clamp(min=1e-9)
    mean = (hidden * weights).sum(dim=2) / counts
    floor = torch.finfo(hidden.dtype).min
    maxed = hidden.masked_fill(~mask[None, :, :, None], floor).amax(dim=2)
    maxed = torch.where(mask.any(dim=1)[None, :, None], maxed, torch.zeros_like(maxed))
    return {"cls": hidden[:, :, 0], "mean": mean, "max": maxed}


def combine_pooled(
    pooled: dict[str, np.ndarray], pooling: str, layers: LayerStrategy
) -> np.ndarray:
    """Sentence vectors from per-layer pooled vectors.

    ``pooled`` maps each of :data:`BASE_POOLINGS` to ``(num_layers + 1, n, dim)``. Returns
    ``(n, d)`` float32 where ``d`` is ``dim`` times 4 for ``concat_last4`` and times 2 for
    ``mean_max``.
    """
    validate_pooling(pooling)
    if pooling == "mean_max":
        parts = [combine_layers(pooled[name], layers) for name in ("mean", "max")]
        return np.concatenate(parts, axis=-1)
    return combine_layers(pooled[pooling], layers)


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to unit L2 norm (zero rows stay zero). ``(n, d)`` in, ``(n, d)`` out."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
