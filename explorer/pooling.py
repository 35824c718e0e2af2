"""Sentence pooling: one vector per text from its token vectors, using the attention mask.

``cls`` takes position 0 (``[CLS]``, or ``<s>`` for RoBERTa); ``mean`` and ``max`` run over
the tokens the mask selects, so padding never counts; ``mean_max`` concatenates the two.

Pooling is applied to every layer separately, and the layer choice (``layers``) then combines
the pooled per-layer vectors (:meth:`explorer.VectorChoice.combine`). For ``cls`` and ``mean``
that is the same as pooling the combined token vectors (both are linear); for ``max`` with
several layers it is the per-layer max, summed or concatenated. This order lets one forward
pass serve every (pooling, layers) pair.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
import torch

Pooling = Literal["cls", "mean", "max", "mean_max"]
POOLINGS: tuple[str, ...] = get_args(Pooling)
"""Every pooling, in the order the pages list them."""

BASE_POOLINGS = ("cls", "mean", "max")
"""Poolings computed from the hidden states (:func:`pool_hidden`)."""

PARTS = {"mean_max": ("mean", "max")}
"""Poolings made of others: their base poolings, concatenated in this order."""

POOLING_LABELS = {
    "cls": "[CLS] token",
    "mean": "Mean of tokens",
    "max": "Max over tokens",
    "mean_max": "Mean + max (concatenated)",
}
"""Legend and menu names of the poolings."""


def pooling_labels(cls_token: str | None) -> dict[str, str]:
    """:data:`POOLING_LABELS` with the first token named as the model writes it (``"<s> token"``
    for a RoBERTa- or MPNet-style tokenizer), for sentences about that model's numbers."""
    first = f"{cls_token} token" if cls_token else "First token"
    return {**POOLING_LABELS, "cls": first}


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
    weights = mask.to(hidden.dtype)
    counts = weights.sum(dim=1).clamp(min=1e-9)[None, :, None]
    mean = (weights[None, :, None, :] @ hidden)[:, :, 0] / counts
    return {"cls": hidden[:, :, 0], "mean": mean, "max": _masked_max(hidden, mask)}


def _masked_max(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``max`` of :func:`pool_hidden`: ``(layers, batch, dim)``.

    In a batch of texts of similar length most rows have no padding: their maximum is taken
    over all tokens as they are, and only the other rows are copied and masked (half the
    memory traffic of masking the whole batch, measured on the store's batches)."""
    partial = (~mask.all(dim=1)).nonzero()[:, 0]
    floor = torch.finfo(hidden.dtype).min
    if 2 * len(partial) > mask.shape[0]:
        maxed = hidden.masked_fill(~mask[None, :, :, None], floor).amax(dim=2)
    else:
        maxed = hidden.amax(dim=2)
        if len(partial):
            rows = hidden[:, partial].masked_fill_(~mask[partial][None, :, :, None], floor)
            maxed[:, partial] = rows.amax(dim=2)
    empty = ~mask.any(dim=1)
    if empty.any():
        maxed[:, empty] = 0
    return maxed


def pooling_parts(pooling: str) -> tuple[str, ...]:
    """The base poolings ``pooling`` is made of: ``("mean", "max")`` for ``mean_max``, else
    ``(pooling,)``. ``ValueError`` for an unknown pooling."""
    return PARTS.get(validate_pooling(pooling), (pooling,))


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to unit L2 norm (zero rows stay zero). ``(n, d)`` in, ``(n, d)`` out."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
