"""Layer strategies: how the ``num_layers + 1`` hidden states become one vector per token.

The names follow the feature-based experiments of the BERT paper (Devlin et al., 2019,
table 7): the last layer, the second-to-last, the sum or concatenation of the last four, the
sum of all encoder layers, and the static embedding layer. An ``int`` picks one layer:
0 is the embedding output, ``num_layers`` the last layer, negative ints count from the end
(-1 = last).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

LAYER_STRATEGIES = (
    "last",
    "second_to_last",
    "sum_last4",
    "concat_last4",
    "mean_last4",
    "sum_all",
    "embeddings",
)
LayerStrategy = (
    Literal[
        "last",
        "second_to_last",
        "sum_last4",
        "concat_last4",
        "mean_last4",
        "sum_all",
        "embeddings",
    ]
    | int
)

LABELS = {
    "last": "Last layer",
    "second_to_last": "Second-to-last layer",
    "sum_last4": "Sum of last four layers",
    "concat_last4": "Concatenation of last four layers",
    "mean_last4": "Mean of last four layers",
    "sum_all": "Sum of all encoder layers",
    "embeddings": "Embedding layer (static)",
}


def validate_strategy(strategy: LayerStrategy, num_layers: int) -> LayerStrategy:
    """Return ``strategy`` if it is valid for a model with ``num_layers`` encoder layers.

    Raises ``ValueError`` naming the valid choices otherwise.
    """
    if isinstance(strategy, bool) or not isinstance(strategy, int | str | np.integer):
        raise ValueError(
            f"Unknown layer strategy {strategy!r}; choose one of {LAYER_STRATEGIES} "
            f"or a layer number from {-(num_layers + 1)} to {num_layers}"
        )
    if isinstance(strategy, int | np.integer):
        if not -(num_layers + 1) <= strategy <= num_layers:
            raise ValueError(
                f"Layer {strategy} is out of range: this model has layers 0 (embeddings) "
                f"to {num_layers}; negative numbers count from the end down to "
                f"{-(num_layers + 1)}."
            )
        return int(strategy)
    if strategy not in LAYER_STRATEGIES:
        raise ValueError(
            f"Unknown layer strategy {strategy!r}; choose one of {LAYER_STRATEGIES} "
            "or a layer number"
        )
    if strategy.endswith("last4") and num_layers < 4:
        raise ValueError(f"{strategy!r} needs at least 4 layers; this model has {num_layers}.")
    if strategy == "second_to_last" and num_layers < 2:
        raise ValueError(f"'second_to_last' needs at least 2 layers; this model has {num_layers}.")
    return strategy


def layer_indices(strategy: LayerStrategy, num_layers: int) -> list[int]:
    """Indices into the hidden-state stack that ``strategy`` uses, in combination order.

    ``concat_last4`` is ordered last, -2, -3, -4 (as in the BERT paper); ``sum_all`` is
    the encoder layers 1..L and does **not** include the embedding output (index 0).
    """
    strategy = validate_strategy(strategy, num_layers)
    if isinstance(strategy, int):
        return [strategy % (num_layers + 1)]
    return {
        "embeddings": [0],
        "last": [num_layers],
        "second_to_last": [num_layers - 1],
        "sum_last4": [num_layers - k for k in range(4)],
        "concat_last4": [num_layers - k for k in range(4)],
        "mean_last4": [num_layers - k for k in range(4)],
        "sum_all": list(range(1, num_layers + 1)),
    }[strategy]


def combine_layers(stack: np.ndarray, strategy: LayerStrategy) -> np.ndarray:
    """Combine a hidden-state stack along its first axis.

    ``stack`` has shape ``(num_layers + 1, ..., hidden)``; the result drops the first axis:
    ``(..., hidden)``, or ``(..., 4 * hidden)`` for ``concat_last4``. float32 in and out.
    """
    num_layers = stack.shape[0] - 1
    indices = layer_indices(strategy, num_layers)
    if strategy == "concat_last4":
        return np.concatenate([stack[i] for i in indices], axis=-1)
    if strategy in ("sum_last4", "sum_all"):
        return stack[indices].sum(axis=0, dtype=np.float32)
    if strategy == "mean_last4":
        return stack[indices].mean(axis=0, dtype=np.float32)
    return np.array(stack[indices[0]], dtype=np.float32)


def strategy_dim(strategy: LayerStrategy, hidden_size: int, num_layers: int) -> int:
    """Size of the vectors ``strategy`` produces for a model of this shape."""
    validate_strategy(strategy, num_layers)
    return 4 * hidden_size if strategy == "concat_last4" else hidden_size


def strategy_label(strategy: LayerStrategy) -> str:
    """Human-readable name of a strategy, for legends and tables."""
    if isinstance(strategy, int | np.integer) and not isinstance(strategy, bool):
        return "Embedding output (layer 0)" if strategy == 0 else f"Layer {strategy}"
    return LABELS.get(str(strategy), str(strategy))
