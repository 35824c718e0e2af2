"""What every figure of the Layers page shares: its colours and how a layer is named."""

from __future__ import annotations

BASE = "#4c78a8"
HIGHLIGHT = "#e45756"
MUTED = "rgba(120, 120, 120, 0.35)"
SERIES = ("#4c78a8", "#f58518", "#54a24b", "#b279a2")


def layer_name(layer: int) -> str:
    """``"layer 0 (embeddings)"``, ``"layer 5"``."""
    return "layer 0 (embeddings)" if layer == 0 else f"layer {layer}"
