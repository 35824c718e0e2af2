"""The corpus store's layout on disk and its manifest: reading, checking and atomic writing.

A store is a folder::

    manifest.json                 what the store holds (this module)
    shards/00000/rows.parquet     the input rows of shard 0: the text, the label and every
                                  other input column, as read
    vectors/<pooling>/layer_06.npy        (rows, hidden) vectors of one pooling and layer,
    vectors/<pooling>/layer_06.norms.npy  (rows,) float32 Euclidean norms of those rows
    vectors/num_tokens.npy        (rows,) int32 tokens per text, special tokens included
    vectors/truncated.npy         (rows,) bool, whether the text was cut to max_length
    projections/<name>.npy        (points, 2) float32 coordinates saved by ``explorer project``

Shard folders and small files are written under a temporary name and renamed when complete;
``manifest.json`` is replaced atomically and lists only complete shards, so a shard that was
not finished is never read. While embedding, the store is ``complete: false``: each shard's
vectors are appended to the vector files (:class:`GrowingNpy`, flushed to disk before the
manifest lists the shard), whose headers say 0 rows; rows beyond the manifest's count (a commit
cut short) are cut off when the run resumes. When the input is exhausted each file gets its
final header and the manifest says ``complete: true``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from explorer.data.store import schema

FORMAT_VERSION = 1
"""Bumped when a reader of an older version could misread the store."""

MANIFEST = "manifest.json"

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


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Flush a folder's entries (a rename) to disk, where the OS allows it."""
    with contextlib.suppress(OSError):
        _fsync(path)


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


def fsync_files(paths: Iterable[Path]) -> None:
    """Flush the data of every file in ``paths`` to disk, one after another.

    Not on threads, although the file system commits flushes that arrive together in one
    journal transaction (44 small files: 7-8 ms against 13-31 ms, ext4, 2026-11-25): threads
    left glibc with more heaps than threads, and the embedding workers, made anew for every
    shard, took turns growing them all. Peak memory of 40,000 texts embedded: 1,604 MB with
    threads made per call, 1,250 MB with 8 kept for the process, 1,161 MB without."""
    for path in paths:
        _fsync(path)


NPY_HEADER_BYTES = 128
"""Length of the header :func:`npy_header` writes: any row count fits, so a growing file's
header can be rewritten in place."""


def npy_header(dtype: np.dtype, shape: tuple[int, ...]) -> bytes:
    """An ``.npy`` (version 1.0) header for a C-ordered array of ``dtype`` and ``shape``, padded
    with spaces to :data:`NPY_HEADER_BYTES` as the format allows (its length is a multiple of
    64, so the data stays aligned)."""
    text = repr({"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                 "fortran_order": False, "shape": tuple(shape)})  # fmt: skip
    size = NPY_HEADER_BYTES - 10  # magic (6), version (2), header length (2)
    if len(text) + 1 > size:
        raise ValueError(f"An .npy header for shape {shape} does not fit {NPY_HEADER_BYTES} bytes.")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", size) + (text.ljust(size - 1) + "\n").encode()


class GrowingNpy:
    """One ``.npy`` file of an unfinished store, ``(rows, width)`` (``width=None``: ``(rows,)``)
    of ``dtype``, that grows by whole shards: its header (:func:`npy_header`, always
    :data:`NPY_HEADER_BYTES` long) says 0 rows until :meth:`finish` writes the final count.

    Opened with the ``rows`` the manifest lists as committed: rows beyond them (a shard whose
    commit a killed run did not finish) are cut off; fewer is a damaged store, a
    ``ValueError`` naming the file. Plain writes, not a writable memory map: every page of a
    map counts in the process's memory until it is unmapped, while written pages stay in the
    page cache only."""

    def __init__(self, path: Path, dtype, width: int | None, rows: int) -> None:
        self.path = path
        self.dtype = np.dtype(dtype)
        self.width = width
        self.row_bytes = self.dtype.itemsize * (width or 1)
        committed = NPY_HEADER_BYTES + rows * self.row_bytes
        if not path.exists():
            if rows:
                raise ValueError(
                    f"{path} is missing, but the store's manifest lists {rows:,} rows: the "
                    "store is damaged. Delete the folder and run `explorer embed` again."
                )
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(npy_header(self.dtype, self._shape(0)))
            return
        size = path.stat().st_size
        if size < committed:
            raise ValueError(
                f"{path} holds {max(0, size - NPY_HEADER_BYTES) // self.row_bytes:,} rows, "
                f"but the store's manifest lists {rows:,}: the store is damaged. Delete the "
                "folder and run `explorer embed` again."
            )
        if size > committed:
            os.truncate(path, committed)

    def _shape(self, rows: int) -> tuple[int, ...]:
        return (rows,) if self.width is None else (rows, self.width)

    def append(self, array: np.ndarray) -> None:
        """Write ``array`` (this file's dtype and width) after the rows already there."""
        array = np.ascontiguousarray(array, dtype=self.dtype)
        with open(self.path, "ab") as handle:
            handle.write(memoryview(array).cast("B"))

    def finish(self, rows: int) -> None:
        """Write the header of ``rows`` rows, after checking the file holds exactly them."""
        expected = NPY_HEADER_BYTES + rows * self.row_bytes
        if self.path.stat().st_size != expected:
            raise ValueError(f"{self.path} does not hold the {rows:,} rows its store lists.")
        with open(self.path, "r+b") as handle:
            handle.write(npy_header(self.dtype, self._shape(rows)))


# -- reading and checking ------------------------------------------------------------------------


def _store_name(folder: str | os.PathLike) -> str:
    """How messages name the store in ``folder``: its folder's name, never its path."""
    folder = Path(folder)
    return folder.name or Path(os.path.realpath(folder)).name


def store_file(folder: str | os.PathLike, relative: str) -> Path:
    """The real path (symbolic links followed) of the file ``relative`` (as a manifest names
    it) of the store in ``folder``. Every file of a store is opened through here: one that
    resolves outside the store folder's real path (through ``..``, an absolute path or a
    symbolic link, of the file or of a folder above it) is refused with a ``ValueError`` that
    names the store by its folder's name, never where the file leads."""
    root = os.path.realpath(folder)
    path = os.path.realpath(os.path.join(root, relative))
    if os.path.commonpath([root, path]) != root or path == root:
        raise _outside(folder)
    return Path(path)


def _outside(folder: str | os.PathLike) -> ValueError:
    return ValueError(
        f"The store {_store_name(folder)!r} names a file outside its folder (through '..', an "
        "absolute path or a symbolic link): refused. Re-create the store with `explorer embed`."
    )


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    """The manifest of the store in ``folder``, checked against the schema
    (:func:`explorer.data.store.schema.check_manifest`: every key a reader uses, of the right type
    and range; file names inside the store); ``ValueError`` naming the file when it is
    missing, larger than :data:`~explorer.data.store.schema.MAX_MANIFEST_BYTES`, not JSON, nested
    deeper than :data:`~explorer.data.store.schema.MAX_NESTING`, from a newer format version or
    not fitting the schema."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder: give the folder `explorer embed` wrote.")
    real = store_file(folder, MANIFEST)
    if not real.is_file():
        raise ValueError(f"{folder} is not a corpus store: it has no {MANIFEST}.")
    try:
        with open(real, "rb") as handle:
            manifest = schema.parse(handle.read(schema.MAX_MANIFEST_BYTES + 1))
    except OSError as error:
        raise ValueError(f"{path} cannot be read: {error.strerror}") from None
    except ValueError as error:
        raise ValueError(f"{path} {error}: the store is damaged.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != schema.FORMAT:
        raise ValueError(f"{path} is not the manifest of an explorer corpus store.")
    version = manifest.get("format_version")
    if type(version) is not int or version < 1:
        raise ValueError(f"{path} has no valid format_version.")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{path} is format version {version}, newer than this explorer reads "
            f"({FORMAT_VERSION}): upgrade the explorer to open it."
        )
    missing = [key for key in _REQUIRED if key not in manifest]
    if missing:
        raise ValueError(f"{path} lacks {', '.join(missing)}: the store is damaged.")
    try:
        schema.check_manifest(manifest)
    except schema.Outside:
        raise _outside(folder) from None
    except ValueError as error:
        raise ValueError(f"{path}: {error}: the store is damaged.") from None
    return manifest


def check_folders(folder: str | os.PathLike, manifest: dict[str, Any]) -> None:
    """Check that each top folder holding the files ``manifest`` names (``shards``,
    ``vectors``, ``projections``, ...) resolves inside the store in ``folder``: a few real
    paths, however many files (opening the store checks each file, :func:`store_file`)."""
    named = [shard["dir"] for shard in manifest["shards"]]
    named += [file for layers in manifest.get("vectors", {}).values() for file in layers.values()]
    for entry in manifest.get("projections", []):
        named += [entry["file"], *([entry["rows_file"]] if entry.get("rows_file") else [])]
    for top in sorted({part for name in named for part in Path(name).parts[:1]} | {"vectors"}):
        store_file(folder, top)


def open_npy(folder: Path, relative: str, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """``np.load(mmap_mode="r")`` of a store file (through :func:`store_file`), checked against
    the manifest's shape and dtype; ``ValueError`` naming the file when it is missing,
    truncated or different."""
    real = store_file(folder, relative)
    path = folder / relative
    if not real.is_file():
        raise ValueError(f"{path} is missing: the store is damaged (rerun `explorer embed`).")
    try:
        array = np.load(real, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError) as error:
        raise ValueError(f"{path} is not a readable .npy file (truncated?): {error}") from None
    if array.shape != tuple(shape) or array.dtype != np.dtype(dtype):
        raise ValueError(
            f"{path} holds {array.dtype} {array.shape}, but the manifest says {dtype} "
            f"{tuple(shape)}: the store is damaged."
        )
    return array
