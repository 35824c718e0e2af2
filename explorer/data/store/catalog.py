"""Finding the corpus stores an operator allows (``EXPLORER_CORPORA``), without showing paths.

A visitor picks a store by its label (the store folder's name, its row count and model); the
server maps the label back to the folder. Only folders inside the operator's folders are ever
listed: a store is the folder itself or one of its sub-folders (two levels at most), and links
that lead elsewhere are not followed. A store whose manifest is damaged or names files outside
its folder is listed apart, by its folder's name with the reason, so that one bad folder never
hides the others.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from explorer.data.store.format import MANIFEST, check_folders, read_manifest

MAX_DEPTH = 2
"""How deep below an operator's folder stores are looked for."""


@dataclass(frozen=True)
class Entry:
    """One store: ``label`` for visitors, ``path`` for the server."""

    label: str
    path: Path


@dataclass(frozen=True)
class Unreadable:
    """A store that cannot be opened: its folder's ``name`` and ``reason`` (no server path)."""

    name: str
    reason: str


@dataclass(frozen=True)
class Catalog:
    """What :func:`find_stores` found: the ``stores`` to offer, the ``unreadable`` ones."""

    stores: tuple[Entry, ...] = ()
    unreadable: tuple[Unreadable, ...] = ()


def _candidates(root: Path) -> Iterable[Path]:
    root = root.resolve()
    for folder, dirs, files in os.walk(root, followlinks=False):
        depth = len(Path(folder).relative_to(root).parts)
        if MANIFEST in files:
            yield Path(folder)
        if depth >= MAX_DEPTH:
            dirs.clear()
        dirs.sort()


def find_stores(folders: Iterable[str | os.PathLike]) -> Catalog:
    """The stores in ``folders`` (each a store or a folder of stores): complete, readable ones
    labelled ``"<folder name> · <rows> texts · <model>"`` (numbered when two share a label),
    and those whose manifest is damaged, too large or too deep, or names a file outside the
    store (:func:`explorer.data.store.format.read_manifest`), by folder name with the reason.
    Unfinished stores (still being embedded) are left out; so are missing folders."""
    entries: list[Entry] = []
    unreadable: list[Unreadable] = []
    labels: set[str] = set()
    for root in folders:
        root = Path(root)
        if not root.is_dir():
            continue
        for path in _candidates(root):
            try:
                manifest = read_manifest(path)
                check_folders(path, manifest)
            except (ValueError, OSError) as error:
                reason = str(error).replace(str(path), path.name)
                unreadable.append(Unreadable(path.name, reason))
                continue
            if not manifest["complete"]:
                continue
            model = manifest["model"]["name"]
            model = Path(model).name if model.startswith(("/", ".", "~")) else model
            label = f"{path.name} · {manifest['rows']:,} texts · {model}"
            base, number = label, 2
            while label in labels:
                label, number = f"{base} ({number})", number + 1
            labels.add(label)
            entries.append(Entry(label, path))
    return Catalog(tuple(entries), tuple(unreadable))
