"""Pairs of occurrences: n occurrences make n(n-1)/2 pairs, numbered and named in one order.

Every per-pair result of the page (similarities, kinds, table rows) follows
:func:`pair_indices`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pair_indices(n: int) -> list[tuple[int, int]]:
    """Every pair ``(i, j)`` with ``i < j`` of ``n`` items, row by row: ``n(n-1)/2`` pairs."""
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def pair_labels(n: int) -> list[str]:
    """``"#1 vs #2"``, ``"#1 vs #3"``, ... in the order of :func:`pair_indices`."""
    return [f"#{i + 1} vs #{j + 1}" for i, j in pair_indices(n)]


MAX_OCCURRENCES = 12
"""Most occurrences the page compares: n occurrences make n(n-1)/2 pairs (66 for 12)."""


def cap_occurrences(occurrences: list, per_layer: np.ndarray, limit: int = MAX_OCCURRENCES):
    """The first ``limit`` occurrences and their ``(layers + 1, limit, hidden)`` vectors."""
    return occurrences[:limit], per_layer[:, :limit]


def pair_members(labels: Sequence[str]) -> list[tuple[str, str]]:
    """``(labels[i], labels[j])`` for every pair, in the order of :func:`pair_indices`."""
    return [(labels[i], labels[j]) for i, j in pair_indices(len(labels))]


def pair_count_to_n(pairs: int) -> int:
    """The number of items ``n`` with ``n(n-1)/2 == pairs``."""
    n = int(round((1 + (1 + 8 * pairs) ** 0.5) / 2))
    if n * (n - 1) // 2 != pairs:
        raise ValueError(f"{pairs} is not a number of pairs n(n-1)/2.")
    return n
