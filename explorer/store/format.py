"""The corpus store's layout on disk and its manifest: reading, checking and atomic writing.

A store is a folder::

    manifest.json                 what the store holds (this module)
    shards/00000/rows.parquet     the input rows of shard 0: the text, the label and every
                                  other input column, as read
    shards/00000/<pooling>.npy    while embedding only: (stored layers, rows, hidden) vectors
    vectors/<pooling>/layer_06.npy        (rows, hidden) vectors of one pooling and layer,
    vectors/<pooling>/layer_06.norms.npy  (rows,) float32 Euclidean norms of those rows
    vectors/num_tokens.npy        (rows,) int32 tokens per text, special tokens included
    vectors/truncated.npy         (rows,) bool, whether the text was cut to max_length
    projections/<name>.npy        (points, 2) float32 coordinates saved by ``explorer project``

Every file is written under a temporary name and renamed when complete; ``manifest.json`` is
replaced atomically and lists only complete shards, so a file that was not finished is never
read. While embedding, the store is ``complete: false`` and holds shards only; when the input
is exhausted the shards' vectors are copied into one memory-mappable file per pooling and
layer, and the manifest says ``complete: true``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "explorer-corpus-store"
FORMAT_VERSION = 1
"""Bumped when a reader of an older version could misread the store."""

MANIFEST = "manifest.json"
STORED_DTYPES = ("float32", "float16")

SETTINGS = (
    "model",
    "tokenizer",
    "input",
    "poolings",
    "layers",
    "dtype",
    "precision",
    "exclude_special",
    "limit",
    "shard_rows",
)
"""Manifest keys that must match for a run to resume a store (the rest is progress)."""

_REQUIRED = (*SETTINGS, "format", "format_version", "rows", "shards", "complete", "created")


def now() -> str:
    """The current time, UTC, ISO 8601 to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def model_fingerprint(model) -> str:
    """``sha256:...`` of a loaded model: its configuration and a sample of every weight.

    Hashed: the configuration as sorted JSON without the keys that depend on where or with
    which version it was loaded (``_name_or_path``, ``transformers_version`` and other keys
    starting with ``_``), then for every entry of the encoder's ``state_dict`` in order its
    name, shape and first 1,024 values as float32 bytes. It identifies the weights wherever
    the model folder lives (a cache, a copy, the bundled package), takes milliseconds, and
    changes when any tensor's first values change (fine-tuning changes them all).
    """
    config = model.encoder.config.to_dict()
    config = {
        k: v for k, v in config.items() if not k.startswith("_") and k != "transformers_version"
    }
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
    for name, tensor in model.encoder.state_dict().items():
        digest.update(f"{name}{tuple(tensor.shape)}".encode())
        digest.update(tensor.detach().flatten()[:1024].float().numpy().tobytes())
    return "sha256:" + digest.hexdigest()


def layer_file(pooling: str, layer: int) -> str:
    """Path of one pooling's vectors at one layer, relative to the store."""
    return f"vectors/{pooling}/layer_{layer:02d}.npy"


def norms_file(pooling: str, layer: int) -> str:
    """Path of the row norms of :func:`layer_file`, relative to the store."""
    return f"vectors/{pooling}/layer_{layer:02d}.norms.npy"


def shard_dir(index: int) -> str:
    return f"shards/{index:05d}"


# -- writing -------------------------------------------------------------------------------------


def fsync_dir(path: Path) -> None:
    """Flush a folder's entries (a rename) to disk, where the OS allows it."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """Replace ``folder/manifest.json`` atomically (temp file, fsync, rename)."""
    manifest = {**manifest, "updated": now()}
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(manifest, out, indent=1)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, folder / MANIFEST)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(folder)


def save_npy(path: Path, array: np.ndarray) -> None:
    """Write ``array`` to ``path`` under a temporary name, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as out:
        np.save(out, array)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


# -- reading and checking ------------------------------------------------------------------------


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    """The manifest of the store in ``folder``, checked; ``ValueError`` naming the file when it
    is missing, not JSON, from a newer format version or missing a key."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder: give the folder `explorer embed` wrote.")
    if not path.is_file():
        raise ValueError(f"{folder} is not a corpus store: it has no {MANIFEST}.")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not valid JSON: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"{path} is not the manifest of an explorer corpus store.")
    version = manifest.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"{path} has no valid format_version ({version!r}).")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{path} is format version {version}, newer than this explorer reads "
            f"({FORMAT_VERSION}): upgrade the explorer to open it."
        )
    missing = [key for key in _REQUIRED if key not in manifest]
    if missing:
        raise ValueError(f"{path} lacks {', '.join(missing)}: the store is damaged.")
    return manifest


def open_npy(folder: Path, relative: str, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """``np.load(mmap_mode="r")`` of a store file, checked against the manifest's shape and
    dtype; ``ValueError`` naming the file when it is missing, truncated or different."""
    path = folder / relative
    if not path.is_file():
        raise ValueError(f"{path} is missing: the store is damaged (rerun `explorer embed`).")
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError) as error:
        raise ValueError(f"{path} is not a readable .npy file (truncated?): {error}") from None
    if array.shape != tuple(shape) or array.dtype != np.dtype(dtype):
        raise ValueError(
            f"{path} holds {array.dtype} {array.shape}, but the manifest says {dtype} "
            f"{tuple(shape)}: the store is damaged."
        )
    return array
