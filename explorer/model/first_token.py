"""The first token of a model named by a saved corpus's manifest, read from its tokenizer
alone (local files only, no weights, no network), for the pooling labels of views that load
no model: ``"<s>"`` for MPNet/RoBERTa, ``"[CLS]"`` for BERT."""

from __future__ import annotations

import functools

from explorer.model.ref import RANDOM_SUFFIX, ModelRef


@functools.lru_cache(maxsize=32)
def first_token(name: str) -> str | None:
    """The first token (``tokenizer.cls_token``) of the model ``name`` as a store's manifest
    records it; a model with random weights (``"X (random weights)"`` or
    ``"random-weights:X"``) has the tokenizer of ``X``. ``None`` when the tokenizer cannot be
    read here (not a local folder nor in the local cache, or unreadable): the label is then
    "First token" (:func:`explorer.pooling.pooling_labels`). Cached by name."""
    from explorer.model.loading import local_folder

    try:
        source = ModelRef.parse(str(name).strip().removesuffix(RANDOM_SUFFIX)).source
        folder = local_folder(source)
    except ValueError:  # not a model name, or a folder that holds no model
        return None
    if folder is None:
        return None
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return getattr(tokenizer, "cls_token", None) or None
