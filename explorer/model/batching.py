"""Padded batches of encoded texts, grouped by length so little padding is computed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

MAX_BATCH_SIZE = 128
MAX_BATCH_TOKENS = 1024
"""Default batch limits: texts, and padded tokens (texts x longest). Small batches keep the
activations of a layer in the CPU caches: on MiniLM, 1,024 tokens ran 1.15x faster than
8,192 (bench/README.md)."""

_PADDING_STEP = 32
"""A batch ends early where adding the next (longer) text would pad the texts already in it
by more than this many tokens in all: another forward pass costs less than that much padding
(1.3x faster on 48 sentences, 1.06x on 2,000)."""


@dataclass
class Batch:
    """Padded model inputs for a few texts, in the order of ``indices`` into the caller's list."""

    indices: list[int]
    inputs: dict[str, torch.Tensor]
    attention_mask: torch.Tensor  # (batch, tokens) bool
    special_mask: torch.Tensor  # (batch, tokens) bool, True at [CLS]/[SEP]/...
    lengths: list[int]


def make_batches(
    encoded: Sequence[dict[str, list[int]]],
    pad_id: int,
    input_names: Sequence[str],
    max_batch_size: int = MAX_BATCH_SIZE,
    max_batch_tokens: int = MAX_BATCH_TOKENS,
) -> Iterator[Batch]:
    """Group encoded texts (rows of ``Model.encode_batch``) into padded batches.

    Texts are sorted by length; each batch holds at most ``max_batch_size`` texts and
    ``max_batch_tokens`` padded tokens (and always at least one text), and ends early where
    the next text is so much longer that it would pad the others by more than
    :data:`_PADDING_STEP` tokens in all. ``input_names`` are the encoder's inputs.
    """
    lengths = [len(row["input_ids"]) for row in encoded]
    order = sorted(range(len(encoded)), key=lengths.__getitem__)
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and end - start < max_batch_size:
            longest, width = lengths[order[end]], lengths[order[end - 1]]
            if longest * (end - start + 1) > max_batch_tokens:
                break
            if (longest - width) * (end - start) > _PADDING_STEP:
                break
            end += 1
        indices = order[start:end]
        yield pad_rows([encoded[i] for i in indices], indices, pad_id, input_names)
        start = end


def pad_rows(
    rows: Sequence[dict[str, list[int]]],
    indices: list[int],
    pad_id: int,
    input_names: Sequence[str],
) -> Batch:
    """Pad encoded rows to the longest: ``(len(rows), longest)`` tensors in a :class:`Batch`."""
    lengths = [len(r["input_ids"]) for r in rows]
    mask = np.arange(max(lengths)) < np.array(lengths)[:, None]

    def padded(key: str, fill: int) -> torch.Tensor:
        # A boolean-mask assignment fills row by row, the order of the concatenated lists.
        values = np.full(mask.shape, fill, dtype=np.int64)
        values[mask] = np.concatenate([row[key] for row in rows])
        return torch.from_numpy(values)

    ids = padded("input_ids", pad_id)
    has_types = "token_type_ids" in rows[0]
    types = padded("token_type_ids", 0) if has_types else torch.zeros_like(ids)
    special = padded("special_tokens_mask", 1).bool()
    attention = torch.from_numpy(mask)
    inputs = {"input_ids": ids, "attention_mask": attention.long(), "token_type_ids": types}
    inputs = {k: v for k, v in inputs.items() if k in input_names}
    return Batch(list(indices), inputs, attention, special, lengths)
