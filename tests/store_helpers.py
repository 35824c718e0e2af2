"""Small corpora for the store and CLI tests."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

_WORDS = (
    "The river bank was flooded after the storm.",
    "She deposited her savings at the bank.",
    "A goal in the last minute won the match.",
    "The orchestra played a quiet symphony.",
    "Interest rates rose again this spring.",
    "The striker missed an open goal.",
    "Violins and cellos filled the hall.",
    "Fishermen sat on the muddy bank all day.",
    "The referee showed a red card.",
    "Loans are cheaper when rates fall.",
    "The choir sang at the cathedral.",
    "Ducks swam near the grassy bank.",
    "Tickets for the final sold out in an hour.",
    "A new bank branch opened downtown.",
)

TEXTS = [
    {
        "text": text,
        "label": ("finance", "sport", "music", "nature")[i % 4],
        "score": i * 0.5,
        "source": f"doc{i}",
    }
    for i, text in enumerate(_WORDS)
]
"""Rows with a text, a label and two other columns (one numeric)."""


def write_csv(path: Path, rows: list[dict], sep: str = ",") -> Path:
    pd.DataFrame(rows).to_csv(path, index=False, sep=sep)
    return path
