"""Senses: what each pair of occurrences is, and the gap between same-sense and
different-sense pairs at every layer."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from explorer.context.pairs import pair_indices
from explorer.context.sentences import sense_of
from explorer.words import Occurrence

PAIR_KINDS = ("same sense", "different senses", "same sentence", "unlabelled")
"""What :func:`pair_kinds` calls a pair of occurrences."""


def pair_kinds(
    occurrences: Sequence[Occurrence], senses: Sequence[str | None] | None = None
) -> list[str]:
    """What each pair of occurrences is, in the order of
    :func:`explorer.context.pairs.pair_indices`: ``"same sentence"`` (both in one text,
    whatever the senses), else ``"same sense"`` or ``"different senses"`` by the ``senses`` of
    their texts, else ``"unlabelled"``."""
    kinds = []
    for i, j in pair_indices(len(occurrences)):
        first, second = occurrences[i], occurrences[j]
        a, b = sense_of(senses, first), sense_of(senses, second)
        if first.text_index == second.text_index:
            kinds.append("same sentence")
        elif a is None or b is None:
            kinds.append("unlabelled")
        else:
            kinds.append("same sense" if a.casefold() == b.casefold() else "different senses")
    return kinds


def sense_gap(similarities: np.ndarray, kinds: Sequence[str]) -> pd.DataFrame:
    """Mean similarity of same-sense and of different-sense pairs at every layer, and the gap.

    ``similarities`` ``(L+1, n_pairs)`` from
    :func:`explorer.context.similarity.pair_similarities`; ``kinds`` from
    :func:`pair_kinds`. Pairs from the same sentence and unlabelled pairs are left out.
    Returns a table indexed by layer (0..L) with columns ``"same sense"``, ``"different
    senses"`` and ``"gap"`` (their difference), float64. ``ValueError`` when there is no
    pair of one of the two kinds.
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    kinds = np.asarray(kinds, dtype=object)
    if similarities.ndim != 2 or similarities.shape[1] != len(kinds):
        raise ValueError(
            f"Similarities of shape {similarities.shape} do not match {len(kinds)} pairs."
        )
    same, different = kinds == "same sense", kinds == "different senses"
    if not same.any() or not different.any():
        raise ValueError(
            "Comparing senses needs two sentences of the same sense and two of different "
            "senses: start lines with their sense, like 'river | We sat on the bank.'"
        )
    table = pd.DataFrame(
        {
            "same sense": similarities[:, same].mean(axis=1),
            "different senses": similarities[:, different].mean(axis=1),
        },
        index=pd.RangeIndex(similarities.shape[0], name="layer"),
    )
    table["gap"] = table["same sense"] - table["different senses"]
    table.attrs.update(same=int(same.sum()), different=int(different.sum()))
    return table
