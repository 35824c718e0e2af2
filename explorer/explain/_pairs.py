"""Exact token-pair decompositions of a cosine between two pooled sentence vectors.

Every pooling but ``cls`` makes the sentence vector a sum of per-token parts: a text's
*contributions* ``C`` (one row per token) with ``C.sum(axis=0) == u``. The cosine is
bilinear in the two sums, so ``cos(u, v) = sum_ij C_a[i] . C_b[j] / (|u| |v|)``, exactly:

* ``mean``: ``C[i]`` is token ``i``'s vector divided by the number of tokens pooled.
* ``max``: dimension ``d`` of one layer's max comes from one token (the first of any tie),
  so ``C[i, d]`` holds that value for the token holding the maximum and 0 elsewhere; the
  product ``u_d v_d`` then belongs to the pair of tokens holding the two maxima.
* ``mean_max``: the two parts side by side, so the pairs are the sum of both decompositions.

Layer choices are linear maps of the per-layer vectors (select, sum, average or concatenate;
:func:`layer_weights` reads the map off :func:`explorer.layers.combine_layers`). Pooling
runs per layer first, as the library does (:mod:`explorer.pooling`): the per-layer
contributions are formed, then combined with the same map, and their rows still sum to the
combined sentence vector. So every (pooling, layers) pair but ``cls`` decomposes exactly.
"""

from __future__ import annotations

import numpy as np

from explorer.layers import Layers, combine_layers
from explorer.pooling import pooling_parts


def layer_weights(layers: Layers, num_layers: int) -> np.ndarray:
    """The layer choice as a matrix: ``(num_layers + 1, k)`` float64 with ``k`` 4 for
    ``concat_last4`` (column ``c`` picks the layer of the ``c``-th concatenated block) and 1
    otherwise, so that ``combine_layers(stack, layers)`` equals ``sum_l W[l, c] stack[l]`` in
    block ``c``. Taken from :func:`explorer.layers.combine_layers` on the identity, so the two
    cannot disagree."""
    identity = np.eye(num_layers + 1, dtype=np.float32)[:, :, None]
    return np.asarray(combine_layers(identity, layers), dtype=np.float64)


def combine_tokens(per_layer: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``(L+1, T, H)`` per-layer token vectors -> ``(T, k * H)`` under ``weights``
    (:func:`layer_weights`), in float64."""
    combined = np.einsum("lk,lth->tkh", weights, per_layer.astype(np.float64, copy=False))
    return combined.reshape(combined.shape[0], -1)


def contributions(
    hidden: np.ndarray, pooling: str, layers: Layers, mask: np.ndarray | None = None
) -> np.ndarray:
    """Each token's part of the sentence vector: ``(T, D)`` float64 whose rows sum to the
    vector :func:`explorer.sentence_embeddings` gives for this text.

    ``hidden`` is ``(L+1, T, H)`` (:meth:`explorer.Model.hidden_states`); ``mask`` ``(T,)``
    bool marks the tokens pooled (all by default; rows of the others are zero). ``pooling``
    is ``mean``, ``max`` or ``mean_max``: ``cls`` has no per-token parts (``ValueError``).
    """
    hidden = np.asarray(hidden, dtype=np.float64)
    mask = np.ones(hidden.shape[1], dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    weights = layer_weights(layers, hidden.shape[0] - 1)
    parts = []
    for name in pooling_parts(pooling):
        if name == "mean":
            per_layer = hidden * (mask / max(int(mask.sum()), 1))[None, :, None]
        elif name == "max":
            per_layer = _max_parts(hidden, mask)
        else:
            raise ValueError(
                "cls pooling takes one token's vector, which every token shaped through "
                "attention: it has no exact per-token parts (explain_similarity uses "
                "integrated gradients for it)."
            )
        parts.append(combine_tokens(per_layer, weights))
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)


def _max_parts(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``(L+1, T, H)``: each layer's max over the masked tokens, kept at the token holding it."""
    parts = np.zeros_like(hidden)
    if not mask.any():
        return parts  # the library's max of an empty selection is zeros
    masked = np.where(mask[None, :, None], hidden, -np.inf)
    holder = masked.argmax(axis=1)[:, None, :]  # (L+1, 1, H): first token of any tie
    np.put_along_axis(parts, holder, np.take_along_axis(hidden, holder, axis=1), axis=1)
    return parts


def pair_matrix(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``(T_a, T_b)`` float64: ``first[i] . second[j] / (|u| |v|)`` with ``u``, ``v`` the row
    sums of the two contribution arrays; the entries sum to ``cos(u, v)`` (0 for a zero
    vector)."""
    u, v = first.sum(axis=0), second.sum(axis=0)
    norms = np.linalg.norm(u) * np.linalg.norm(v)
    if norms == 0:
        return np.zeros((len(first), len(second)))
    return first @ second.T / norms
