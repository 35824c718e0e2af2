"""Damaged and hostile copies of a good store, for the catalog and page tests (issue 23)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def _edit(folder: Path, change) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


BAD_STORES = {
    "model-is-text": lambda m: m.update(model="bert"),
    "rows-forty": lambda m: m.update(rows="forty"),
    "rows-null": lambda m: m.update(rows=None),
    "rows-negative": lambda m: m.update(rows=-1),
    "rows-bool": lambda m: m.update(rows=True),
    "dot-dot-shard": lambda m: m["shards"][0].update(dir="../../private/shards/00000"),
}
"""Folder name -> a change making the good store's manifest malformed or hostile."""

REASONS = {
    "model-is-text": "model must be an object, not a string",
    "rows-forty": "rows must be an integer of at least 0, not a string",
    "rows-null": "rows must be an integer of at least 0, not null",
    "rows-negative": "rows must be an integer of at least 0, not -1",
    "rows-bool": "rows must be an integer of at least 0, not true",
    "dot-dot-shard": "names a file outside its folder",
    "deep": "nests deeper than 16 levels",
    "linked-vectors": "names a file outside its folder",
}
"""Folder name -> what the catalog says about it."""


def make_bad_stores(good: Path, into: Path, private: Path) -> list[str]:
    """Copies of the store ``good`` in ``into``, each damaged one way (:data:`REASONS`): a
    malformed manifest, one nested 200,000 deep, one naming a shard outside, one whose
    ``vectors`` folder is a link to a copy in ``private`` (outside ``into``). Their names."""
    for name, change in BAD_STORES.items():
        shutil.copytree(good, into / name)
        _edit(into / name, change)
    shutil.copytree(good, into / "deep")
    (into / "deep/manifest.json").write_text("[" * 200_000 + "]" * 200_000)
    shutil.copytree(good, private, dirs_exist_ok=True)
    shutil.copytree(good, into / "linked-vectors", ignore=shutil.ignore_patterns("vectors"))
    (into / "linked-vectors/vectors").symlink_to(private / "vectors")
    return sorted(REASONS)
