"""What the Projections map can be coloured by: the labels (the default), the sentences of a
word, how well the map keeps each point's neighbours, named clusters, or any column of the
data (an uploaded CSV's or vector table's other columns, a saved corpus's input columns, the
built-in sets' columns, and every text's length)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer._markup import shorten
from explorer.data.columns import LENGTH, ColourColumn, colour_column, text_lengths

COLOURS = {
    "labels": "Labels",
    "sentences": "Sentences",
    "kept": "Neighbours kept",
    "clusters": "Clusters (named)",
}
"""The colourings every map has (``"sentences"``: word maps only)."""

COLUMN = "column:"
"""The prefix of a colouring by a column of the data: ``"column:" + its name``."""

TEXT_LENGTH = "length"
"""The colouring by each text's length (:data:`~explorer.data.columns.LENGTH`), which every
source has: an option of its own, so a column of the data of that name stays choosable."""


def data_columns(source) -> list[str]:
    """The columns of ``source`` (an :class:`explorer.ui.sourcetypes.Source`) a map can be
    coloured by, besides its texts and labels."""
    return [] if source is None else source.columns()


def colour_choices(source, *, words: bool) -> dict[str, str]:
    """The "Colour by" options for ``source`` (a word map when ``words``): option -> label
    (a column's name shortened)."""
    choices = {key: label for key, label in COLOURS.items() if words or key != "sentences"}
    for name in data_columns(source):
        choices[COLUMN + name] = f"Column: {shorten(name)}"
    if source is not None and source.ready:
        choices[TEXT_LENGTH] = "Text length (words)"
    return choices


def column_of(colour: str) -> str | None:
    """The column's name of a colouring by a column (:data:`COLUMN`), else ``None``."""
    return colour[len(COLUMN) :] if colour.startswith(COLUMN) else None


def point_column(
    source, points, colour: str, point_texts: Sequence[str], text_rows: Sequence[int]
) -> ColourColumn | None:
    """What the option ``colour`` colours each point of the map by (``text_rows[i]``: the
    text point ``i`` stands for, ``point_texts[i]`` its text): the texts' lengths
    (:data:`TEXT_LENGTH`) or a column of ``source`` (:data:`COLUMN`), as a
    :class:`~explorer.data.columns.ColourColumn`; ``None`` for any other option. Raises
    ``ValueError`` for a column the data does not have."""
    if colour == TEXT_LENGTH:
        return colour_column(LENGTH, text_lengths(point_texts))
    name = column_of(colour)
    if name is None:
        return None
    rows = np.asarray(text_rows, dtype=np.int64)
    return colour_column(name, source.column(name, points, rows))
