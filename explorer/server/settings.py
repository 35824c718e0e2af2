"""What the operator of a shared server allows, read from the environment.

A visitor of a shared demo chooses from lists the operator set; a visitor never types a server
path, and a refusal never says whether a path exists. Four variables:

``EXPLORER_MODELS``
    Comma-separated model ids and local folders visitors may choose, besides the bundled
    model (always offered). Unset: the bundled model and a few well-known hub ids
    (:data:`WELL_KNOWN_MODELS`), no free entry. ``*``: free entry of any id or folder, for a
    single-user laptop (the well-known ids are offered too).
``EXPLORER_MAX_PARAMETERS``
    The largest model, in parameters, the server loads: an integer, or with a suffix ``K``,
    ``M`` or ``B`` (``350M``); ``none`` for no limit. Default :data:`DEFAULT_MAX_PARAMETERS`.
``EXPLORER_CORPORA``
    Folders (separated by ``os.pathsep`` or commas) whose saved corpus stores visitors may
    open. Unset: none.
``EXPLORER_MODEL_MEMORY``
    Bytes of model weights the server holds at once (``1G``, ``768M``), trained models and
    their random-weights baselines together, those a running request still holds included
    (:class:`explorer.model.cache.ModelCache`): an idle model leaves when another would pass
    it, baselines first, and loads again when a visitor needs it; a model that does not fit
    beside the models in use is refused, saying what would fit. Default
    :data:`DEFAULT_MODEL_MEMORY`.

Everything here is plain Python: the UI layer calls :func:`from_environment` once per run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from explorer.model.hub import DEFAULT_MODEL

BUNDLED_LABEL = "all-MiniLM-L6-v2 (bundled)"
"""How the bundled model is named in the model picker."""

WELL_KNOWN_MODELS = (
    "bert-base-uncased",
    "bert-base-cased",
    "distilbert-base-uncased",
    "roberta-base",
)
"""Hub ids offered when the operator names no models (they load from the local Hugging Face
cache, or from the hub where the server has a network)."""

DEFAULT_MAX_PARAMETERS = 400_000_000
"""Default size limit: admits BERT-large (about 335 M parameters), refuses larger models."""

DEFAULT_MODEL_MEMORY = 1024 * 1024**2
"""Default bytes of model weights kept: BERT-base (418 MB) with its random-weights baseline
(418 MB) and the bundled model (87 MB), 922 MB by ``Model.weight_bytes`` of the
BERT-base-sized bench folder (``python -m bench.model_folders``), all three kept at once. With
them the server stays within the 2 GB a shared demo of 8 visitors is given (``python -m
bench.soak --sessions 8 --model FOLDER``, bench/README.md, "Real model sizes"). BERT-large
(1,279 MB) is kept alone, above this budget, and gets no random-weights baseline
(:func:`explorer.model.loading.twin_refusal`)."""

FREE_ENTRY = "*"

_BYTES = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
_BYTES_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*$", re.IGNORECASE)

_SUFFIXES = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmb]?)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ModelChoice:
    """One entry of the model picker: ``label`` is what a visitor sees, ``source`` what the
    server loads (a hub id or a folder; never shown when it is a folder)."""

    label: str
    source: str


@dataclass(frozen=True)
class Settings:
    """The operator's choices (see the module docstring)."""

    models: tuple[ModelChoice, ...]
    free_entry: bool = False
    max_parameters: int | None = DEFAULT_MAX_PARAMETERS
    corpora: tuple[Path, ...] = ()
    model_memory: int = DEFAULT_MODEL_MEMORY

    def choice(self, label: str) -> ModelChoice | None:
        """The allowed choice labelled ``label``, or None."""
        return next((c for c in self.models if c.label == label), None)

    def label_of(self, source: str) -> str:
        """What visitors see for ``source``: its label, or ``source`` itself when it was typed
        (free entry only)."""
        return next((c.label for c in self.models if c.source == source), source)

    def hide_paths(self, text: str) -> str:
        """``text`` (a message for a visitor) without the operator's server folders: a path
        under a corpus folder keeps only its part below that folder (``tickets/manifest.json``),
        a model folder becomes its label. Library errors name the file they could not read;
        the person who can fix it is the operator, who reads them in the server's log."""
        replacements: dict[str, str] = {}
        for folder in self.corpora:
            for form in _forms(folder):
                replacements[form + os.sep] = ""
                replacements[form] = folder.name
        for choice in self.models:
            if _is_folder(choice.source):
                for form in _forms(Path(choice.source)):
                    replacements[form] = choice.label
        for path in sorted(replacements, key=len, reverse=True):
            text = text.replace(path, replacements[path])
        return text


def _forms(folder: Path) -> set[str]:
    """The ways a message may write ``folder``: as given and resolved (no trailing slash)."""
    forms = {str(folder)}
    try:
        forms.add(str(folder.resolve()))
    except OSError:
        pass
    return {form.rstrip(os.sep) for form in forms if form.strip(os.sep)}


def _size(value: str, variable: str, pattern: re.Pattern, units: Mapping[str, int], hint: str):
    """``value`` of the environment ``variable``, a number with one of ``units``' suffixes
    matched by ``pattern``, as an int of at least 1; ``ValueError`` naming the variable with
    ``hint`` (what to write) otherwise."""
    match = pattern.match(value)
    if not match:
        raise ValueError(f"{variable}={value!r} is not a size: {hint}")
    count = int(float(match.group(1)) * units[match.group(2).lower()])
    if count < 1:
        raise ValueError(f"{variable}={value!r} must be at least 1.")
    return count


def parse_parameters(value: str | None) -> int | None:
    """``EXPLORER_MAX_PARAMETERS`` as an int (``"350M"`` -> 350,000,000); unset or empty gives
    the default, ``"none"`` no limit. Raises ``ValueError`` for anything else."""
    if value is None or not value.strip():
        return DEFAULT_MAX_PARAMETERS
    if value.strip().lower() in ("none", "unlimited"):
        return None
    return _size(
        value,
        "EXPLORER_MAX_PARAMETERS",
        _SIZE,
        _SUFFIXES,
        "use an integer or a number with K, M or B (e.g. 350M), or 'none' for no limit.",
    )


def parse_bytes(value: str | None) -> int:
    """``EXPLORER_MODEL_MEMORY`` as bytes (``"1G"`` -> 1,073,741,824, ``"768MB"``, an
    integer); unset or empty gives the default. Raises ``ValueError`` for anything else."""
    if value is None or not value.strip():
        return DEFAULT_MODEL_MEMORY
    return _size(
        value,
        "EXPLORER_MODEL_MEMORY",
        _BYTES_SIZE,
        _BYTES,
        "use bytes or a number with K, M or G (e.g. 1G or 768M).",
    )


def _is_folder(entry: str) -> bool:
    """A path (absolute, ``./``, ``~``) or an existing folder; otherwise a hub id."""
    return entry.startswith(("/", ".", "~")) or Path(entry).is_dir()


def model_choices(value: str | None) -> tuple[tuple[ModelChoice, ...], bool]:
    """The picker's entries for ``EXPLORER_MODELS`` = ``value``, and whether free entry is on.

    The bundled model comes first, always. A folder is labelled by its last path component
    (numbered if two folders share one), so its location is never shown."""
    bundled = ModelChoice(BUNDLED_LABEL, DEFAULT_MODEL)
    entries = [e.strip() for e in (value or "").split(",") if e.strip()]
    free = FREE_ENTRY in entries
    entries = [e for e in entries if e != FREE_ENTRY]
    if not entries:
        entries = list(WELL_KNOWN_MODELS)
    choices = [bundled]
    labels = {bundled.label}
    for entry in dict.fromkeys(entries):
        if entry == DEFAULT_MODEL:
            continue
        if _is_folder(entry):
            base = Path(entry).expanduser().name or "model"
            label, number = f"{base} (local)", 2
            while label in labels:
                label, number = f"{base} (local {number})", number + 1
            source = str(Path(entry).expanduser())
        else:
            label, source = entry, entry
        labels.add(label)
        choices.append(ModelChoice(label, source))
    return tuple(choices), free


def operator_folders(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The local model folders the operator offers (``EXPLORER_MODELS`` in ``environ``,
    default ``os.environ``), as the server loads them: "Show code" shows only their names
    (:func:`explorer.codegen.hide_folders`)."""
    environ = os.environ if environ is None else environ
    choices, _ = model_choices(environ.get("EXPLORER_MODELS"))
    # A hub id is its own label; a folder is labelled by its name (and the bundled model by
    # its description, but its source is the hub id).
    return frozenset(c.source for c in choices if c.label != c.source != DEFAULT_MODEL)


def corpus_folders(value: str | None) -> tuple[Path, ...]:
    """``EXPLORER_CORPORA`` as folders (``os.pathsep`` or comma separated; blanks dropped)."""
    parts = re.split(rf"[,{re.escape(os.pathsep)}]", value or "")
    return tuple(dict.fromkeys(Path(p.strip()).expanduser() for p in parts if p.strip()))


def from_environment(environ: Mapping[str, str] | None = None) -> Settings:
    """The operator's :class:`Settings` from ``environ`` (default ``os.environ``).

    Raises ``ValueError`` naming the variable when one is malformed."""
    environ = os.environ if environ is None else environ
    models, free = model_choices(environ.get("EXPLORER_MODELS"))
    return Settings(
        models=models,
        free_entry=free,
        max_parameters=parse_parameters(environ.get("EXPLORER_MAX_PARAMETERS")),
        corpora=corpus_folders(environ.get("EXPLORER_CORPORA")),
        model_memory=parse_bytes(environ.get("EXPLORER_MODEL_MEMORY")),
    )
