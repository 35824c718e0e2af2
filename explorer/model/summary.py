"""A model in plain words: what the Home page opens with."""

from __future__ import annotations

from typing import Any

EXAMPLE_TOKENS = 10
"""Length of the example sentence whose numbers :func:`model_notice` counts."""


def model_notice(model: Any, label: str) -> str:
    """Two plain sentences (plain text: ``label`` may be what a visitor typed, escape to show)
    about the model in use, from its numbers: tokens read at once, vocabulary, vectors per
    token and their size, and how many numbers a ten-token sentence becomes.

    ``model`` is a :class:`explorer.model.Model` (or anything with ``num_layers``,
    ``hidden_size``, ``vocab_size`` and ``max_length``); ``label`` is its name as shown.
    """
    layers, hidden = int(model.num_layers), int(model.hidden_size)
    if layers < 1 or hidden < 1:
        raise ValueError(f"A model needs at least one layer and one dimension, not {model!r}.")
    vectors = layers + 1
    total = EXAMPLE_TOKENS * vectors * hidden
    return (
        f"{label} cuts a text into at most {int(model.max_length):,} tokens from a vocabulary "
        f"of {int(model.vocab_size):,} and gives every token {vectors} vectors of {hidden:,} "
        f"numbers: one from the embedding layer, then one after each of its {layers} "
        f"transformer layers. A ten-token sentence becomes {EXAMPLE_TOKENS} × {vectors} × "
        f"{hidden:,} = {total:,} numbers; every page looks at some of them."
    )
