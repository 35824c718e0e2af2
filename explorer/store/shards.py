"""Committing embedded shards to a store on disk (:class:`ShardWriter`), for
:func:`explorer.store.writer.embed_to_store`: the layout is :mod:`explorer.store.format`'s."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from explorer.store import format as fmt
from explorer.store.engine import ShardVectors

if TYPE_CHECKING:
    from explorer.model import Model


class ShardWriter:
    """Commits embedded shards: each shard's rows as ``shards/NNNNN/rows.parquet`` (a folder
    renamed when complete) and its vectors appended to the store's final files
    (:class:`explorer.store.format.GrowingNpy`), flushed to disk, then the manifest. Every
    vector is written once: :meth:`finish` only writes each file's final header."""

    def __init__(self, model: Model, out: Path, manifest: dict, engine: str) -> None:
        self.model = model
        self.out = out
        self.manifest = manifest
        self.engine = engine
        self.poolings = manifest["poolings"]
        self.layers = manifest["layers"]
        dtype = np.dtype(manifest["dtype"])
        for shard in manifest["shards"]:
            if shard["files"] != ["rows.parquet"]:
                raise ValueError(
                    f"{out} is an unfinished store started by an earlier version of "
                    "`explorer embed` (it kept vectors in its shard folders): it cannot be "
                    "resumed. Give a new --out folder, or delete this one and run again."
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
                vectors = out / fmt.layer_file(name, layer)
                norms = out / fmt.norms_file(name, layer)
                self.files[(name, layer)] = fmt.GrowingNpy(vectors, dtype, hidden, rows)
                self.files[(name, layer, "norms")] = fmt.GrowingNpy(norms, np.float32, None, rows)
        for extra, kind in (("num_tokens", np.int32), ("truncated", np.bool_)):
            self.files[(extra,)] = fmt.GrowingNpy(out / f"vectors/{extra}.npy", kind, None, rows)

    def write(self, index: int, table: pa.Table, vectors: ShardVectors) -> None:
        """Commit one embedded shard: its rows folder, its vectors, the manifest."""
        from explorer.nearest import row_norms

        n = table.num_rows
        for name in self.poolings:
            if vectors.pooled[name].shape != (len(self.layers), n, self.model.hidden_size):
                raise ValueError(
                    f"The {self.engine} engine gave {name} vectors of shape "
                    f"{vectors.pooled[name].shape} for a shard of {n} rows."
                )
        final = self.out / fmt.shard_dir(index)
        tmp = final.with_name(f".tmp-{final.name}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        pq.write_table(table, tmp / "rows.parquet")
        for name in self.poolings:
            for slot, layer in enumerate(self.layers):
                file = self.files[(name, layer)]
                rows = vectors.pooled[name][slot].astype(file.dtype, copy=False)
                file.append(rows)
                self.files[(name, layer, "norms")].append(row_norms(rows))
        self.files[("num_tokens",)].append(vectors.num_tokens)
        self.files[("truncated",)].append(vectors.truncated)
        fmt.fsync_files([tmp / "rows.parquet", *(f.path for f in self.files.values())])
        fmt.fsync_dir(tmp)
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        fmt.fsync_dir(final.parent)
        self.manifest["shards"].append(
            {"dir": fmt.shard_dir(index), "rows": n, "files": ["rows.parquet"],
             "engine": self.engine}
        )  # fmt: skip
        self.manifest["rows"] += n
        fmt.write_manifest(self.out, self.manifest)

    def finish(self, skipped: int) -> dict:
        """Give every vector file its final header (its row count); mark the store complete."""
        manifest = self.manifest
        for file in self.files.values():
            file.finish(manifest["rows"])
        fmt.fsync_files(f.path for f in self.files.values())
        for folder in sorted({f.path.parent for f in self.files.values()}):
            fmt.fsync_dir(folder)
        manifest["vectors"] = {
            name: {str(layer): fmt.layer_file(name, layer) for layer in self.layers}
            for name in self.poolings
        }
        manifest["skipped"] = skipped
        manifest["complete"] = True
        manifest["finished"] = fmt.now()
        fmt.write_manifest(self.out, manifest)
        return manifest
