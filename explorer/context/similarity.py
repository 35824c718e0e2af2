"""Cosine similarities of a word's occurrences: under one layer choice, at every layer,
and under every layer choice side by side (optionally mean-centred first)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from explorer.context.centring import centred
from explorer.context.pairs import pair_indices, pair_labels
from explorer.layers import LAYER_CHOICES, Layers, combine_layers, layers_label, validate_layers
from explorer.similarity import cosine_similarity


def similarity_matrix(
    per_layer: np.ndarray, layers: Layers, center: np.ndarray | None = None
) -> np.ndarray:
    """Cosine similarity of every occurrence with every other under one layer choice.

    ``per_layer`` ``(L+1, n, H)`` (from :func:`explorer.word_layer_vectors`); ``center``
    ``(L+1, H)`` per-layer means or ``None``. Centring subtracts the means before the layers
    are combined, which equals combining the means the same way and subtracting that.
    Returns ``(n, n)`` float32.
    """
    validate_layers(layers, np.shape(per_layer)[0] - 1)
    vectors = combine_layers(centred(per_layer, center), layers)
    return np.atleast_2d(cosine_similarity(vectors))


def pair_similarities(per_layer: np.ndarray, center: np.ndarray | None = None) -> np.ndarray:
    """Cosine similarity of each pair of occurrences at each layer separately.

    ``per_layer`` ``(L+1, n, H)``, ``center`` ``(L+1, H)`` or ``None``. Returns
    ``(L+1, n(n-1)/2)`` float32, pairs in the order of :func:`explorer.context.pairs.pair_indices`.
    """
    vectors = centred(per_layer, center)
    pairs = np.array(pair_indices(vectors.shape[1]), dtype=np.int64).reshape(-1, 2)
    rows, cols = pairs[:, 0], pairs[:, 1]
    return np.stack([cosine_similarity(layer)[rows, cols] for layer in vectors]).astype(np.float32)


def layers_table(
    per_layer: np.ndarray,
    choices: Sequence[Layers] = LAYER_CHOICES,
    center: np.ndarray | None = None,
) -> pd.DataFrame:
    """Cosine similarity of every pair under every layer choice, side by side.

    Rows are pairs (index ``"#1 vs #2"``, ... named "Pair"), columns the choices' labels
    (:func:`explorer.layers.layers_label`); values float32.
    """
    n = np.shape(per_layer)[1]
    pairs = np.array(pair_indices(n), dtype=np.int64).reshape(-1, 2)
    columns = {}
    for layers in choices:
        matrix = similarity_matrix(per_layer, layers, center)
        columns[layers_label(layers)] = matrix[pairs[:, 0], pairs[:, 1]]
    return pd.DataFrame(columns, index=pd.Index(pair_labels(n), name="Pair"))


strategy_table = layers_table
"""Old name of :func:`layers_table`."""
