"""Numeric precision of forward passes: float32, or bfloat16 under CPU autocast."""

from __future__ import annotations

import contextlib

import torch

PRECISIONS = ("float32", "bfloat16")


def autocast(precision: str) -> contextlib.AbstractContextManager:
    """CPU bfloat16 autocast for ``"bfloat16"``, nothing for ``"float32"``.

    Autocast keeps the bfloat16 copies of the weights until its outermost context exits,
    so wrapping a loop of batches in one context casts the weights once, not per batch.
    Raises ``ValueError`` for any other precision.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"Unknown precision {precision!r}; choose one of {PRECISIONS}")
    if precision == "bfloat16":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()
