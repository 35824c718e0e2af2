"""Labelled tables for the probe: ``text, label`` (sentence task) or ``text, word, label``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer.data.uploads import read_csv

MAX_ROWS = 5000
"""Most labelled rows a probe accepts (uploads included)."""

TASKS = ("sentence", "word")
"""``sentence``: columns text, label. ``word``: columns text, word, label."""


def labelled_table(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Check an uploaded table and return ``(rows, task)``.

    ``frame`` needs columns ``text`` and ``label`` (sentence task) and optionally ``word``
    (word task); names are matched case-insensitively. Returns a fresh frame with columns
    ``text``, ``label`` (and ``word``), all strings, and ``"sentence"`` or ``"word"``.
    Raises ``ValueError`` for missing columns, empty cells, no rows or too many rows.
    """
    columns = {str(c).strip().lower(): c for c in frame.columns}
    missing = [c for c in ("text", "label") if c not in columns]
    if missing:
        found = ", ".join(repr(str(c)) for c in frame.columns) or "none"
        raise ValueError(
            f"The table has no {' or '.join(repr(c) for c in missing)} column (found: {found}). "
            "Use 'text,label' for sentence tasks or 'text,word,label' for word senses."
        )
    task = "word" if "word" in columns else "sentence"
    keep = ["text", "word", "label"] if task == "word" else ["text", "label"]
    rows = pd.DataFrame(
        {name: frame[columns[name]].fillna("").astype(str).str.strip() for name in keep}
    )
    if rows.empty:
        raise ValueError("The table has no rows.")
    if len(rows) > MAX_ROWS:
        raise ValueError(
            f"The table has {len(rows):,} rows; the limit is {MAX_ROWS:,}. Sample it down first."
        )
    for name in keep:
        empty = np.flatnonzero((rows[name] == "").to_numpy())
        if len(empty):
            where = ", ".join(str(i + 1) for i in empty[:5])
            raise ValueError(f"{len(empty)} row(s) have an empty {name!r} (rows {where}).")
    return rows.reset_index(drop=True), task


def read_labelled_csv(data: bytes) -> tuple[pd.DataFrame, str]:
    """Parse CSV bytes (:func:`explorer.data.uploads.read_csv`) and check them with
    :func:`labelled_table`."""
    return labelled_table(read_csv(data, max_rows=MAX_ROWS))
