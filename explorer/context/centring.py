"""Mean-centring: the per-layer mean token vector of the given sentences, and subtracting it.

Contextual vectors share a large common direction; subtracting, per layer, the mean token
vector of the sentences (:func:`layer_means` of :func:`content_token_states`) removes it.
Under a layer choice the per-layer means are combined the *same* way, which is the same as
centring each layer first because every layer choice is linear (select, sum, mean or
concatenate layers): ``combine(v) - combine(m) == combine(v - m)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.model import Model


def content_token_states(model: Model, texts: Sequence[str]) -> np.ndarray:
    """Hidden states of every non-special token of ``texts``, all layers, one batched pass.

    Returns ``(num_layers + 1, n_tokens, hidden)`` float32, the tokens of all texts one after
    the other ([CLS], [SEP] and other special tokens left out).
    """
    texts = list(texts)
    if not texts:
        raise ValueError("No texts given: pass at least one sentence.")
    states = model.hidden_states_batch(texts)
    kept = []
    for text, stack in zip(texts, states, strict=True):
        special = np.asarray(model.tokenize(text).special, dtype=bool)
        kept.append(stack[:, ~special])
    return np.concatenate(kept, axis=1).astype(np.float32, copy=False)


def layer_means(token_states: np.ndarray) -> np.ndarray:
    """Mean token vector of every layer: ``(L+1, n_tokens, H)`` in, ``(L+1, H)`` float32 out."""
    token_states = np.asarray(token_states, dtype=np.float32)
    if token_states.ndim != 3 or token_states.shape[1] == 0:
        raise ValueError(
            f"Expected token states of shape (layers + 1, tokens, hidden) with at least one "
            f"token, got {token_states.shape}."
        )
    return token_states.mean(axis=1)


def centred(per_layer: np.ndarray, center: np.ndarray | None) -> np.ndarray:
    """``per_layer`` ``(L+1, n, H)`` minus ``center`` ``(L+1, H)`` at every layer (as float32;
    unchanged when ``center`` is ``None``). ``ValueError`` for shapes that do not match."""
    per_layer = np.asarray(per_layer, dtype=np.float32)
    if per_layer.ndim != 3:
        raise ValueError(
            f"Expected vectors of shape (layers + 1, n, hidden), got {per_layer.shape}."
        )
    if center is None:
        return per_layer
    center = np.asarray(center, dtype=np.float32)
    if center.shape != (per_layer.shape[0], per_layer.shape[2]):
        raise ValueError(
            f"The centre must have shape (layers + 1, hidden) = "
            f"{(per_layer.shape[0], per_layer.shape[2])}, got {center.shape}."
        )
    return per_layer - center[:, None, :]
