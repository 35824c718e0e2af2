"""Finding the corpus stores an operator allows (``EXPLORER_CORPORA``), without showing paths.

A visitor picks a store by its label (the store folder's name, its row count and model); the
server maps the label back to the folder. Only folders inside the operator's folders are ever
listed: a store is the folder itself or one of its sub-folders (two levels at most), and links
that lead elsewhere are not followed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from explorer.store.format import MANIFEST, read_manifest

MAX_DEPTH = 2
"""How deep below an operator's folder stores are looked for."""


@dataclass(frozen=True)
class Entry:
    """One store: ``label`` for visitors, ``path`` for the server."""

    label: str
    path: Path


def _candidates(root: Path) -> Iterable[Path]:
    root = root.resolve()
    for folder, dirs, files in os.walk(root, followlinks=False):
        depth = len(Path(folder).relative_to(root).parts)
        if MANIFEST in files:
            yield Path(folder)
        if depth >= MAX_DEPTH:
            dirs.clear()
        dirs.sort()


def find_stores(folders: Iterable[str | os.PathLike]) -> list[Entry]:
    """The complete, readable stores in ``folders`` (each a store or a folder of stores),
    labelled ``"<folder name> · <rows> texts · <model>"`` (numbered when two share a label);
    unreadable or unfinished stores are left out. Missing folders are skipped silently."""
    entries: list[Entry] = []
    labels: set[str] = set()
    for root in folders:
        root = Path(root)
        if not root.is_dir():
            continue
        for path in _candidates(root):
            try:
                manifest = read_manifest(path)
            except ValueError:
                continue
            if not manifest.get("complete"):
                continue
            model = str(manifest.get("model", {}).get("name", "?"))
            model = Path(model).name if model.startswith(("/", ".", "~")) else model
            label = f"{path.name} · {int(manifest.get('rows', 0)):,} texts · {model}"
            base, number = label, 2
            while label in labels:
                label, number = f"{base} ({number})", number + 1
            labels.add(label)
            entries.append(Entry(label, path))
    return entries
