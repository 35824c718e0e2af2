"""Small corpora for the store and CLI tests."""

from __future__ import annotations

import json
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


def projected_store(model, folder: Path, name: str, pooling: str = "mean") -> tuple[Path, dict]:
    """``folder / name``: :data:`TEXTS` embedded by ``model`` (labels from their column) with a
    saved PCA map of ``pooling`` fitted on all but four rows; the store and the map's entry."""
    from explorer.data.store import embed_to_store
    from explorer.data.store.project import save_projection

    store = folder / name
    embed_to_store(model, write_csv(folder / "input.csv", TEXTS), store, label_column="label")
    entry = save_projection(store, "pca", pooling, sample=len(TEXTS) - 4, random_state=3)
    return store, entry


def small_store(model, folder: Path) -> Path:
    """``folder / "store"``: the first 7 rows of :data:`TEXTS` embedded by ``model`` with mean
    pooling, in shards of 3 rows (three shards, the last one short)."""
    from explorer.data.store import Settings, embed_to_store

    source = write_csv(folder / "in.csv", TEXTS[:7])
    embed_to_store(model, source, folder / "store", Settings(poolings=("mean",), shard_rows=3))
    return folder / "store"


def edit_manifest(folder: Path, change) -> None:
    """Rewrite ``folder``'s manifest.json with ``change(manifest)`` applied to its dict."""
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


class Killed(Exception):
    """Raised by :func:`kill_after` to stop a run as a kill would."""


def kill_after(shard: int):
    """An ``on_shard`` callback that raises :class:`Killed` once shard ``shard`` is committed."""

    def on_shard(index: int) -> None:
        if index == shard:
            raise Killed

    return on_shard
