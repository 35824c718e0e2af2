"""The first token of a model named by a saved corpus's manifest, read from its tokenizer
alone (local files only, no weights, no network), for the pooling labels of views that load
no model: ``"<s>"`` for MPNet/RoBERTa, ``"[CLS]"`` for BERT."""

from __future__ import annotations

import functools
from pathlib import Path

from explorer.model.hub import DEFAULT_MODEL, cached_snapshot
from explorer.model.ref import HUB_ID, RANDOM_PREFIX

RANDOM_SUFFIX = " (random weights)"
"""How a model with random weights names itself (and so its stores' manifests)."""


def _local_folder(source: str) -> str | None:
    """The local folder of ``source`` (the bundled model, a folder, a hub id in the local
    cache), ``None`` when there is none here."""
    from explorer.model.loading import bundled_model_path

    if source == DEFAULT_MODEL:
        bundled = bundled_model_path()
        if bundled is not None:
            return str(bundled)
    try:
        folder = Path(source).expanduser()
        if folder.is_dir():
            return str(folder)
    except (OSError, ValueError):
        return None
    return cached_snapshot(source) if HUB_ID.match(source) and ".." not in source else None


@functools.lru_cache(maxsize=32)
def first_token(name: str) -> str | None:
    """The first token (``tokenizer.cls_token``) of the model ``name`` as a store's manifest
    records it; a model with random weights (``"X (random weights)"`` or
    ``"random-weights:X"``) has the tokenizer of ``X``. ``None`` when the tokenizer cannot be
    read here (not a local folder nor in the local cache, or unreadable): the label is then
    "First token" (:func:`explorer.pooling.pooling_labels`). Cached by name."""
    source = str(name).strip().removesuffix(RANDOM_SUFFIX).strip()
    source = source.removeprefix(RANDOM_PREFIX).strip()
    folder = _local_folder(source) if source else None
    if folder is None:
        return None
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return getattr(tokenizer, "cls_token", None) or None
