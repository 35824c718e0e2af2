"""Committing embedded shards to a store on disk (:class:`ShardWriter`), for
:func:`explorer.data.store.writer.embed_to_store`: the layout is
:mod:`explorer.data.store.format`'s."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from explorer.data.store.format import (
    NPY_HEADER_BYTES,
    GrowingNpy,
    fsync_dir,
    fsync_files,
    layer_file,
    norms_file,
    now,
    shard_dir,
    write_manifest,
)
from explorer.data.store.jobs import ShardVectors
from explorer.data.store.slicing import texts_digest
from explorer.model.tokenization import MAX_CHARS

_AGAIN = "Delete the folder (or give another --out) and run `explorer embed` again."

if TYPE_CHECKING:
    from explorer.model import Model


class ShardWriter:
    """Commits embedded shards: each shard's rows as ``shards/NNNNN/rows.parquet`` (a folder
    renamed when complete) and its vectors appended to the store's final files
    (:class:`explorer.data.store.format.GrowingNpy`), flushed to disk, then the manifest. Every
    vector is written once: :meth:`finish` only writes each file's final header.

    Each shard's manifest entry records a digest of its texts (``texts_sha256``) and of what
    it appended (``vectors_sha256``: every norm, the first and last vector of every file, the
    token counts). Opening an unfinished store checks the kept shards against them, so rows
    that another run wrote, or that are out of place, are refused rather than kept."""

    def __init__(self, model: Model, out: Path, manifest: dict, engine: str) -> None:
        self.model = model
        self.out = out
        self.manifest = manifest
        self.engine = engine
        self.poolings = manifest["poolings"]
        self.layers = manifest["layers"]
        dtype = np.dtype(manifest["dtype"])
        for shard in manifest["shards"]:
            if shard["files"] != ["rows.parquet"] or "vectors_sha256" not in shard:
                raise ValueError(
                    f"{out} is an unfinished store started by an earlier version of "
                    "`explorer embed` (its shards are not laid out or checked as now): it "
                    "cannot be resumed. Give a new --out folder, or delete this one and run "
                    "again."
                )
        shards = out / "shards"
        shards.mkdir(exist_ok=True)
        listed = {Path(s["dir"]).name for s in manifest["shards"]}
        for leftover in shards.iterdir():  # half-written or unlisted shards of a killed run
            if leftover.name not in listed:
                shutil.rmtree(leftover, ignore_errors=True)
        hidden, rows = model.hidden_size, manifest["rows"]
        self.files = {}
        for name in self.poolings:
            for layer in self.layers:
                vectors = out / layer_file(name, layer)
                norms = out / norms_file(name, layer)
                self.files[(name, layer)] = GrowingNpy(vectors, dtype, hidden, rows)
                self.files[(name, layer, "norms")] = GrowingNpy(norms, np.float32, None, rows)
        for extra, kind in (("num_tokens", np.int32), ("truncated", np.bool_)):
            self.files[(extra,)] = GrowingNpy(out / f"vectors/{extra}.npy", kind, None, rows)
        self.text_column = manifest["input"]["text_column"]
        self._check_kept()

    def _check_kept(self) -> None:
        """Refuse kept shards whose rows or appended vectors are not what was committed."""
        first = 0
        for shard in self.manifest["shards"]:
            n, where = shard["rows"], f"{self.out} cannot be resumed: its {shard['dir']}"
            if self._stored_texts(shard) != shard["texts_sha256"]:
                raise ValueError(f"{where} does not hold the rows it was committed with. {_AGAIN}")
            span = slice(first, first + n)
            found = self._vectors_digest(lambda key, span=span: _read_rows(self.files[key], span))
            if found != shard["vectors_sha256"]:
                raise ValueError(
                    f"{where}'s vectors are not those it was committed with (another run "
                    f"wrote to the store?). {_AGAIN}"
                )
            first += n

    def _stored_texts(self, shard: dict) -> str | None:
        """:func:`texts_digest` of a kept shard's rows file (``None``: unreadable or short)."""
        try:
            file = pq.ParquetFile(self.out / shard["dir"] / "rows.parquet")
            texts = file.read(columns=[self.text_column]).column(0)
        except (OSError, pa.ArrowException, KeyError):
            return None
        return texts_digest(texts.to_pylist()) if texts.length() == shard["rows"] else None

    def _vectors_digest(self, rows) -> str:
        """``sha256:...`` of a shard's norms, first and last vector of every file and token
        counts; ``rows(key)`` gives the shard's rows of ``self.files[key]``."""
        digest = hashlib.sha256()
        for name in self.poolings:
            for layer in self.layers:
                vectors = rows((name, layer))
                digest.update(np.ascontiguousarray(vectors[[0, -1]]).tobytes())
                digest.update(np.ascontiguousarray(rows((name, layer, "norms"))).tobytes())
        for extra in ("num_tokens", "truncated"):
            digest.update(np.ascontiguousarray(rows((extra,))).tobytes())
        return "sha256:" + digest.hexdigest()

    def write(self, index: int, table: pa.Table, vectors: ShardVectors) -> None:
        """Commit one embedded shard: its rows folder, its vectors, the manifest."""
        from explorer.similarity import row_norms

        n = table.num_rows
        for name in self.poolings:
            if vectors.pooled[name].shape != (len(self.layers), n, self.model.hidden_size):
                raise ValueError(
                    f"The {self.engine} engine gave {name} vectors of shape "
                    f"{vectors.pooled[name].shape} for a shard of {n} rows."
                )
        final = self.out / shard_dir(index)
        tmp = final.with_name(f".tmp-{final.name}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        pq.write_table(table, tmp / "rows.parquet")
        written = {}
        for name in self.poolings:
            for slot, layer in enumerate(self.layers):
                file = self.files[(name, layer)]
                rows = vectors.pooled[name][slot].astype(file.dtype, copy=False)
                written[(name, layer)] = rows
                written[(name, layer, "norms")] = row_norms(rows).astype(np.float32, copy=False)
        written[("num_tokens",)] = vectors.num_tokens.astype(np.int32, copy=False)
        written[("truncated",)] = vectors.truncated.astype(np.bool_, copy=False)
        for key, rows in written.items():
            self.files[key].append(rows)
        fsync_files([tmp / "rows.parquet", *(f.path for f in self.files.values())])
        fsync_dir(tmp)
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        fsync_dir(final.parent)
        texts = table.column(self.text_column).to_pylist()
        self.manifest["shards"].append(
            {"dir": shard_dir(index), "rows": n, "files": ["rows.parquet"],
             "engine": self.engine, "texts_sha256": texts_digest(texts),
             "vectors_sha256": self._vectors_digest(written.__getitem__),
             "truncated": int(np.count_nonzero(vectors.truncated)),
             "long": sum(len(text) > MAX_CHARS for text in texts)}
        )  # fmt: skip
        self.manifest["rows"] += n
        write_manifest(self.out, self.manifest)

    def finish(self, skipped: int) -> dict:
        """Give every vector file its final header (its row count); mark the store complete."""
        manifest = self.manifest
        for file in self.files.values():
            file.finish(manifest["rows"])
        fsync_files(f.path for f in self.files.values())
        for folder in sorted({f.path.parent for f in self.files.values()}):
            fsync_dir(folder)
        manifest["vectors"] = {
            name: {str(layer): layer_file(name, layer) for layer in self.layers}
            for name in self.poolings
        }
        manifest["skipped"] = skipped
        manifest["truncated"] = sum(shard["truncated"] for shard in manifest["shards"])
        manifest["long"] = sum(shard["long"] for shard in manifest["shards"])
        manifest["complete"] = True
        manifest["finished"] = now()
        write_manifest(self.out, manifest)
        return manifest


def _read_rows(file: GrowingNpy, rows: slice) -> np.ndarray:
    """Rows ``rows.start:rows.stop`` of a growing ``.npy`` file, as written."""
    start, stop = rows.start, rows.stop
    count = (stop - start) * (file.width or 1)
    offset = NPY_HEADER_BYTES + start * file.row_bytes
    values = np.fromfile(file.path, dtype=file.dtype, count=count, offset=offset)
    if values.size != count:
        raise ValueError(f"{file.path} holds fewer rows than its store lists. {_AGAIN}")
    return values if file.width is None else values.reshape(stop - start, file.width)
