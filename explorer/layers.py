"""Layer choices (``layers``): how the ``num_layers + 1`` hidden states become one vector.

The names follow the feature-based experiments of the BERT paper (Devlin et al., 2019,
table 7): the last layer, the second-to-last, the sum or concatenation of the last four, the
sum of all encoder layers, and the static embedding layer. An ``int`` picks one layer:
0 is the embedding output, ``num_layers`` the last layer, negative ints count from the end
(-1 = last).

The library calls this choice ``layers`` and the pooling of tokens ``pooling``.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np

LayerName = Literal[
    "last",
    "second_to_last",
    "sum_last4",
    "concat_last4",
    "mean_last4",
    "sum_all",
    "embeddings",
]
"""The named layer choices (as opposed to one layer's number)."""

LAYER_CHOICES: tuple[str, ...] = get_args(LayerName)
"""Every named layer choice, in the order the pages list them."""

Layers = LayerName | int
"""A layer choice: a name of :data:`LAYER_CHOICES` or one layer's number."""

LABELS = {
    "last": "Last layer",
    "second_to_last": "Second-to-last layer",
    "sum_last4": "Sum of last four layers",
    "concat_last4": "Concatenation of last four layers",
    "mean_last4": "Mean of last four layers",
    "sum_all": "Sum of all encoder layers",
    "embeddings": "Embedding layer (static)",
}
"""Legend and menu names of the named layer choices."""

SHORT_LABELS = {
    "last": "last",
    "second_to_last": "2nd-to-last",
    "sum_last4": "sum last 4",
    "concat_last4": "concat last 4",
    "mean_last4": "mean last 4",
    "sum_all": "sum all",
    "embeddings": "embeddings",
}
"""Narrow names for table headers and axis ticks."""

_LAST_FOUR = range(4)
"""How far from the last layer the ``*_last4`` choices reach: the last, -2, -3, -4."""


def layer_choice(layers: Layers) -> Layers:
    """Return ``layers`` if it is a name of :data:`LAYER_CHOICES` or a layer number (an
    ``int``, a NumPy integer given back as ``int``), whatever the model; ``ValueError`` naming
    the valid choices otherwise. :func:`validate_layers` adds the model's own limits."""
    if isinstance(layers, bool) or not isinstance(layers, int | str | np.integer):
        raise ValueError(
            f"Unknown layer choice {layers!r}; choose one of {LAYER_CHOICES} or a layer number"
        )
    if isinstance(layers, int | np.integer):
        return int(layers)
    if layers not in LAYER_CHOICES:
        raise ValueError(
            f"Unknown layer choice {layers!r}; choose one of {LAYER_CHOICES} or a layer number"
        )
    return layers


def validate_layers(layers: Layers, num_layers: int) -> Layers:
    """Return ``layers`` if it is valid for a model with ``num_layers`` encoder layers.

    Raises ``ValueError`` naming the valid choices otherwise.
    """
    if isinstance(layers, bool) or not isinstance(layers, int | str | np.integer):
        raise ValueError(
            f"Unknown layer choice {layers!r}; choose one of {LAYER_CHOICES} "
            f"or a layer number from {-(num_layers + 1)} to {num_layers}"
        )
    layers = layer_choice(layers)
    if isinstance(layers, int):
        if not -(num_layers + 1) <= layers <= num_layers:
            raise ValueError(
                f"Layer {layers} is out of range: this model has layers 0 (embeddings) "
                f"to {num_layers}; negative numbers count from the end down to "
                f"{-(num_layers + 1)}."
            )
        return layers
    if layers.endswith("last4") and num_layers < 4:
        raise ValueError(f"{layers!r} needs at least 4 layers; this model has {num_layers}.")
    if layers == "second_to_last" and num_layers < 2:
        raise ValueError(f"'second_to_last' needs at least 2 layers; this model has {num_layers}.")
    return layers


def layer_choices(num_layers: int) -> list[str]:
    """The named layer choices of :data:`LAYER_CHOICES` a model with ``num_layers`` supports.

    In the order of :data:`LAYER_CHOICES`; ``*_last4`` need 4 layers, ``second_to_last`` 2.
    """
    choices = []
    for name in LAYER_CHOICES:
        try:
            choices.append(validate_layers(name, num_layers))
        except ValueError:
            continue
    return choices


def layer_indices(layers: Layers, num_layers: int) -> list[int]:
    """Indices into the hidden-state stack that ``layers`` uses, in combination order.

    ``concat_last4`` is ordered last, -2, -3, -4 (as in the BERT paper); ``sum_all`` is
    the encoder layers 1..L and does **not** include the embedding output (index 0).
    """
    layers = validate_layers(layers, num_layers)
    if isinstance(layers, int):
        return [layers % (num_layers + 1)]
    return {
        "embeddings": [0],
        "last": [num_layers],
        "second_to_last": [num_layers - 1],
        "sum_last4": [num_layers - k for k in _LAST_FOUR],
        "concat_last4": [num_layers - k for k in _LAST_FOUR],
        "mean_last4": [num_layers - k for k in _LAST_FOUR],
        "sum_all": list(range(1, num_layers + 1)),
    }[layers]


def combine_layers(stack: np.ndarray, layers: Layers) -> np.ndarray:
    """Combine a hidden-state stack along its first axis.

    ``stack`` has shape ``(num_layers + 1, ..., hidden)``; the result drops the first axis:
    ``(..., hidden)``, or ``(..., 4 * hidden)`` for ``concat_last4``. float32 in and out.
    """
    num_layers = stack.shape[0] - 1
    indices = layer_indices(layers, num_layers)
    if layers == "concat_last4":
        return np.concatenate([stack[i] for i in indices], axis=-1)
    if layers in ("sum_last4", "sum_all"):
        return stack[indices].sum(axis=0, dtype=np.float32)
    if layers == "mean_last4":
        return stack[indices].mean(axis=0, dtype=np.float32)
    return np.array(stack[indices[0]], dtype=np.float32)


def layers_width(layers: Layers) -> int:
    """How many hidden-size blocks the vectors of ``layers`` have side by side: 4 for
    ``concat_last4`` (the last four layers concatenated), else 1 (summed, averaged or one
    layer)."""
    return len(_LAST_FOUR) if layer_choice(layers) == "concat_last4" else 1


def layers_label(layers: Layers, short: bool = False) -> str:
    """Human-readable name of a layer choice: :data:`LABELS`, or :data:`SHORT_LABELS` for
    ``short`` ones (table headers); ``"Layer 3"`` for a number."""
    if isinstance(layers, int | np.integer) and not isinstance(layers, bool):
        if short:
            return f"layer {layers}"
        return "Embedding output (layer 0)" if layers == 0 else f"Layer {layers}"
    labels = SHORT_LABELS if short else LABELS
    return labels.get(str(layers), str(layers))
