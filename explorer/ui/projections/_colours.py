"""What the Projections map can be coloured by: the labels (the default), the sentences of a
word, how well the map keeps each point's neighbours, named clusters, or any column of the
data (an uploaded CSV's or vector table's other columns, a saved corpus's input columns, the
built-in sets' columns, and every text's length)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

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


def data_columns(source) -> list[str]:
    """The columns of ``source`` (an :class:`explorer.ui.sources.Source`) a map can be
    coloured by, besides its texts and labels, then :data:`~explorer.data.columns.LENGTH`."""
    if source is None:
        return []
    if source.kind == "saved":
        from explorer.ui.compute import open_store

        try:
            corpus = open_store(source.store)
        except ValueError:  # a damaged store: the page says so when it reads the rows
            return [LENGTH]
        skip = (corpus.text_column, corpus.label_column)
        names = [name for name in corpus.manifest["input"]["columns"] if name not in skip]
    else:
        names = [name for name, _ in source.data.columns]
    return [*names, LENGTH]


def colour_choices(source, *, words: bool) -> dict[str, str]:
    """The "Colour by" options for ``source`` (a word map when ``words``): option -> label."""
    choices = {key: label for key, label in COLOURS.items() if words or key != "sentences"}
    for name in data_columns(source):
        choices[COLUMN + name] = f"Column: {name}" if name != LENGTH else "Text length (words)"
    return choices


def column_of(colour: str) -> str | None:
    """The column's name of a colouring by a column (:data:`COLUMN`), else ``None``."""
    return colour[len(COLUMN) :] if colour.startswith(COLUMN) else None


def point_column(
    source, points, name: str, point_texts: Sequence[str], text_rows: Sequence[int]
) -> ColourColumn:
    """The column ``name`` of ``source`` for each point of the map (``text_rows[i]``: the
    text point ``i`` stands for, ``point_texts[i]`` its text), as a
    :class:`~explorer.data.columns.ColourColumn`. Raises ``ValueError`` for a column the
    data does not have."""
    if name == LENGTH:
        return colour_column(name, text_lengths(point_texts))
    rows = np.asarray(text_rows, dtype=np.int64)
    if source.kind == "saved":
        from explorer.ui.compute import store_rows

        frame = store_rows(points.path, points.rows)
        if name not in frame.columns:
            raise ValueError(f"The saved corpus has no column {name!r}.")
        return colour_column(name, frame[name].to_numpy()[rows])
    cells = dict(source.data.columns).get(name)
    if cells is None:
        raise ValueError(f"The data has no column {name!r}: choose another colouring.")
    return colour_column(name, [cells[row] for row in rows])
