"""Layers compared: centred linear CKA (Kornblith et al., 2019, "Similarity of Neural Network
Representations Revisited").

``CKA(X, Y) = ||Y^T X||_F^2 / (||X^T X||_F ||Y^T Y||_F)`` for column-centred ``X`` ``(n, p)``
and ``Y`` ``(n, q)``: the same ``n`` examples (here tokens) described by two representations.
It is 1 for representations equal up to a rotation and an overall scale, invariant to
orthogonal transforms and isotropic scaling, not to other linear maps. Equivalently
``<K, L>_F / (||K||_F ||L||_F)`` with the Gram matrices ``K = X X^T``, ``L = Y Y^T``; the
cheaper form is used (Gram matrices when there are fewer examples than features).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.context.centring import content_token_states
from explorer.model import Model

MAX_TOKENS = 1000
"""Tokens :func:`layer_cka` compares at most (the first ones, text by text): the Gram
matrices of BERT-base's 13 layers then take about 100 MB."""


def _centred(matrix, what: str) -> np.ndarray:
    """``matrix`` ``(n, p)`` in float64 with its columns centred, divided by its largest
    ``|value|`` before and after centring (CKA is invariant to an overall scale: no overflow
    near the float limits, no underflow of the products for tiny values); a column whose
    values are all equal is exactly 0. ``ValueError`` for a non-finite value."""
    array = np.asarray(matrix, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"{what} must be an (examples, features) array; got shape {array.shape}.")
    if len(array) < 2:
        raise ValueError(f"CKA needs at least 2 examples; {what} has {len(array)}.")
    if not np.isfinite(array).all():
        raise ValueError(f"{what} holds NaN or infinite values: CKA needs finite numbers.")
    array = _unit_scale(array)
    centred = array - array.mean(axis=0)
    centred[:, np.ptp(array, axis=0) == 0] = 0.0  # a constant column is no variation at all
    return _unit_scale(centred)


def _unit_scale(array: np.ndarray) -> np.ndarray:
    largest = np.abs(array).max()
    return array / largest if largest > 0 else array


def linear_cka(X: np.ndarray, Y: np.ndarray) -> float:
    """Centred linear CKA of ``X`` ``(n, p)`` and ``Y`` ``(n, q)``, rows the same examples.

    Returns a float in [0, 1]; 0 when either representation is constant. ``ValueError`` for
    fewer than 2 examples, different numbers of rows, or a NaN or infinite value.
    """
    x, y = _centred(X, "X"), _centred(Y, "Y")
    if len(x) != len(y):
        raise ValueError(f"X has {len(x)} examples and Y {len(y)}: CKA compares the same ones.")
    if len(x) < min(x.shape[1], y.shape[1]):
        k, m = x @ x.T, y @ y.T
        cross, self_x, self_y = np.sum(k * m), np.linalg.norm(k), np.linalg.norm(m)
    else:
        cross = np.linalg.norm(y.T @ x) ** 2
        self_x, self_y = np.linalg.norm(x.T @ x), np.linalg.norm(y.T @ y)
    if self_x == 0 or self_y == 0:
        return 0.0
    return float(np.clip(cross / (self_x * self_y), 0.0, 1.0))


def cka_matrix(states: np.ndarray) -> np.ndarray:
    """CKA of every layer with every other: ``states`` ``(L+1, n, H)`` (the same ``n``
    tokens at every layer) -> ``(L+1, L+1)`` float64, symmetric, ones on the diagonal (for
    layers that are not constant). ``ValueError`` naming a layer with a NaN or infinite value."""
    states = np.asarray(states)
    if states.ndim != 3:
        raise ValueError(
            f"Expected states of shape (layers + 1, tokens, hidden); got {states.shape}."
        )
    grams = []
    for index, layer in enumerate(states):
        x = _centred(layer, f"Layer {index}")
        grams.append(x @ x.T if len(x) < x.shape[1] else x.T @ x)
    # <K_l, K_m>_F = ||X_m^T X_l||_F^2: with features (H < n) the cross term needs X itself.
    if len(states[0]) < states.shape[2]:
        cross = lambda a, b: np.sum(grams[a] * grams[b])  # noqa: E731
    else:
        centred = [_centred(layer, f"Layer {index}") for index, layer in enumerate(states)]
        cross = lambda a, b: np.linalg.norm(centred[b].T @ centred[a]) ** 2  # noqa: E731
    norms = [np.linalg.norm(g) for g in grams]
    size = len(states)
    matrix = np.eye(size)
    for a in range(size):
        for b in range(a, size):
            value = cross(a, b) / (norms[a] * norms[b]) if norms[a] * norms[b] > 0 else 0.0
            matrix[a, b] = matrix[b, a] = np.clip(value, 0.0, 1.0)
    return matrix


def layer_cka(model: Model, texts: Sequence[str], max_tokens: int = MAX_TOKENS) -> np.ndarray:
    """Layer x layer CKA over the tokens of ``texts``: ``(L+1, L+1)``, index 0 the embedding
    output.

    The tokens of every text are put one after another, at most ``max_tokens`` of them (the
    first ones). Special tokens ([CLS], [SEP]) are left out
    (:func:`explorer.context.centring.content_token_states`): they are two per text, in the
    same positions, and far from the other tokens in several layers, so they would weigh on
    the centred Gram matrices out of proportion to their number, and they stand for the
    sequence rather than a word.
    """
    states = content_token_states(model, texts)[:, :max_tokens]
    if states.shape[1] < 2:
        raise ValueError("Comparing layers needs at least 2 tokens besides [CLS] and [SEP].")
    return cka_matrix(states)
