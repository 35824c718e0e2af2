"""A column of the data as a map's colouring: numbers on a continuous scale, anything else as
categories with a legend.

Uploaded CSV files and vector tables arrive as strings, saved corpora with their Parquet
types; :func:`colour_column` reads both the same way, so "3.5" in a CSV and 3.5 in a store
colour alike. Pure: NumPy only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from explorer._markup import shorten

MAX_CATEGORIES = 20
"""Most legend entries a column gets: the 19 commonest values keep their own colour and the
rest share one (a legend of a thousand ids colours nothing, and each entry is a trace the
browser draws)."""

EMPTY = "(empty)"
"""The category of an empty cell."""

MAX_LABEL_CHARS = 200
"""Longest label or category a map groups points by: a longer one is cut to its first
``MAX_LABEL_CHARS - 1`` characters and "…" (:func:`cut_labels`), so that what one cell costs
on a map (the legend, every point's hover, the notices, the "Show code" program, which writes
a label per point) is bounded whatever the cell holds. Figures show at most
:data:`explorer._markup.SHOWN_CHARS` of it."""

LENGTH = "Length (words)"
"""The name of the one column every source has: each text's length, counted by
:func:`text_lengths` (maps often sort texts by length, whatever they mean)."""


@dataclass(frozen=True)
class ColourColumn:
    """A column ready to colour a map: ``values`` ``(n,)``, floats (``kind`` ``"numeric"``,
    NaN where a cell is empty) or strings (``"categorical"``, rare values folded into one
    category); ``folded`` counts the distinct values folded."""

    name: str
    kind: Literal["numeric", "categorical"]
    values: np.ndarray
    folded: int = 0
    cut: int = 0
    """How many cells were longer than :data:`MAX_LABEL_CHARS` (cut to it)."""

    def __len__(self) -> int:
        return len(self.values)


def _empty(cell) -> bool:
    if cell is None:
        return True
    if isinstance(cell, float) and math.isnan(cell):
        return True
    return str(cell).strip() == ""


def numbers(cells: Sequence) -> np.ndarray | None:
    """``cells`` as float64 ``(n,)`` (NaN for empty cells) when every other cell is a finite
    number and at least two differ; else ``None`` (a column of one number is a category)."""
    values = np.full(len(cells), np.nan)
    for i, cell in enumerate(cells):
        if _empty(cell):
            continue
        if isinstance(cell, bool | np.bool_):
            return None
        try:
            value = float(str(cell).strip()) if isinstance(cell, str) else float(cell)
        except (TypeError, ValueError):
            return None
        if not math.isfinite(value):
            return None
        values[i] = value
    finite = values[np.isfinite(values)]
    if len(finite) == 0 or finite.min() == finite.max():
        return None
    return values


def categories(cells: Sequence, most: int = MAX_CATEGORIES) -> tuple[np.ndarray, int]:
    """``cells`` as category names ``(n,)`` (object array; empty cells :data:`EMPTY`, long ones
    cut to :data:`MAX_LABEL_CHARS` by :func:`cut_labels`) with at most ``most`` distinct ones:
    beyond that the ``most - 1`` commonest stay and the others become "(k other values)".
    Returns ``(names, how many distinct values were folded)``."""
    if most < 2:
        raise ValueError(f"A colouring needs at least 2 categories, not {most}.")
    names, _ = cut_labels(EMPTY if _empty(cell) else str(cell).strip() for cell in cells)
    counts = Counter(names)
    folded = 0
    if len(counts) > most:
        kept = {name for name, _ in counts.most_common(most - 1)}
        folded = len(counts) - len(kept)
        other = f"({folded:,} other values)"
        names = [name if name in kept else other for name in names]
    out = np.empty(len(names), dtype=object)
    out[:] = names
    return out, folded


def cut_labels(labels: Iterable, limit: int = MAX_LABEL_CHARS) -> tuple[list[str], int]:
    """``labels`` as strings, each longer than ``limit`` characters cut to its first
    ``limit - 1`` and "…" (two labels alike in their first ``limit - 1`` characters become one
    group); and how many were cut."""
    out, cut = [], 0
    for label in labels:
        text = str(label)
        if len(text) > limit:
            text, cut = shorten(text, limit), cut + 1
        out.append(text)
    return out, cut


def colour_column(name: str, cells: Sequence, most: int = MAX_CATEGORIES) -> ColourColumn:
    """The column ``name`` with ``cells`` (one per point) as a :class:`ColourColumn`: numeric
    when :func:`numbers` reads it, else categorical (:func:`categories`). Raises
    ``ValueError`` for no cells."""
    if len(cells) == 0:
        raise ValueError(f"The column {name!r} has no cells to colour by.")
    found = numbers(cells)
    if found is not None:
        return ColourColumn(name, "numeric", found)
    names, folded = categories(cells, most)
    cut = sum(1 for cell in cells if not _empty(cell) and len(str(cell).strip()) > MAX_LABEL_CHARS)
    return ColourColumn(name, "categorical", names, folded, cut)


def text_lengths(texts: Sequence[str]) -> np.ndarray:
    """Words in each text (runs of non-space characters), float64 ``(n,)``."""
    return np.array([len(str(text).split()) for text in texts], dtype=np.float64)
