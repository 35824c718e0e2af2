"""An opened corpus store: texts, labels, metadata and memory-mapped vectors.

:func:`open_corpus` checks the manifest and every vector file (present, readable, the shape
and dtype the manifest says) and maps the vectors with ``np.load(mmap_mode="r")``: opening a
store of a million rows reads a few kilobytes, and pages of vectors are read when used.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from explorer.choice import VectorChoice, vector_choice
from explorer.data.store.format import (
    MANIFEST,
    layer_file,
    model_fingerprint,
    norms_file,
    open_npy,
    read_manifest,
    store_file,
)
from explorer.layers import Layers
from explorer.pooling import BASE_POOLINGS, normalize_rows
from explorer.similarity import Metric, Neighbors, neighbors

BLOCK_ROWS = 16384
"""Rows combined at once by :meth:`Corpus.sentence` (bounded working memory)."""


def open_corpus(path: str | os.PathLike) -> Corpus:
    """Open the store folder ``path`` written by ``explorer embed``.

    Raises ``ValueError`` naming the file for a missing or invalid manifest, a manifest from a
    newer format version, an unfinished store, a missing shard, or a vector file that is
    missing, truncated or of the wrong shape or dtype.
    """
    return Corpus(path)


def projection_choice(entry: dict) -> VectorChoice:
    """The :class:`explorer.VectorChoice` of a saved projection's manifest entry: its
    ``choice`` record, or, in a manifest written before there was one, its ``pooling`` and
    ``layers`` (the vectors as stored: no post-processing)."""
    if "choice" in entry:
        return VectorChoice(**entry["choice"])
    return VectorChoice(entry["pooling"], entry["layers"])


class Corpus:
    """A corpus store, opened. ``len(corpus)`` rows; ``manifest`` is the parsed manifest.

    Attributes: ``path``, ``model_name``, ``num_layers``, ``hidden_size``, ``poolings``
    (stored base poolings), ``layers`` (stored layer indices), ``dtype`` (stored dtype),
    ``precision``, ``text_column``, ``label_column``.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        manifest = read_manifest(self.path)
        where = self.path / MANIFEST
        if not manifest["complete"]:
            raise ValueError(
                f"{where}: the store is unfinished ({manifest['rows']:,} rows in "
                f"{len(manifest['shards'])} complete shards). Rerun the same `explorer embed` "
                "command to finish it."
            )
        self.manifest = manifest
        # types and ranges checked by read_manifest (explorer.data.store.schema)
        model = manifest["model"]
        self.model_name: str = model["name"]
        self.num_layers: int = model["num_layers"]
        self.hidden_size: int = model["hidden_size"]
        self.poolings: tuple[str, ...] = tuple(manifest["poolings"])
        self.layers: tuple[int, ...] = tuple(manifest["layers"])
        self.dtype: str = manifest["dtype"]
        self.precision: str = manifest["precision"]
        self.text_column: str = manifest["input"]["text_column"]
        self.label_column: str | None = manifest["input"]["label_column"]
        self._n: int = manifest["rows"]
        shards = [(s["dir"], s["rows"]) for s in manifest["shards"]]
        files = manifest.get("vectors") or {}
        if sum(rows for _, rows in shards) != self._n:
            raise ValueError(f"{where}: the shards' rows do not add up to {self._n:,}.")
        if any(p not in BASE_POOLINGS for p in self.poolings):
            raise ValueError(f"{where} names an unknown pooling.")
        self._shards = []
        start = 0
        for folder, rows in shards:
            relative = f"{folder}/rows.parquet"
            parquet, real = self.path / relative, store_file(self.path, relative)
            if not real.is_file():
                raise ValueError(f"{parquet} is missing: the store is damaged.")
            try:
                found = pq.ParquetFile(real).metadata.num_rows
            except (OSError, pa.ArrowInvalid) as error:
                raise ValueError(f"{parquet} is not a readable Parquet file: {error}") from None
            if found != rows:
                raise ValueError(f"{parquet} has {found:,} rows; the manifest says {rows:,}.")
            self._shards.append((start, rows, real))
            start += rows
        shape = (self._n, self.hidden_size)
        self._vectors: dict[str, dict[int, np.ndarray]] = {}
        for pooling in self.poolings:
            self._vectors[pooling] = {}
            for layer in self.layers:
                relative = files.get(pooling, {}).get(str(layer), layer_file(pooling, layer))
                self._vectors[pooling][layer] = open_npy(self.path, relative, shape, self.dtype)
        self._norms: dict[tuple[str, int], np.ndarray] = {}

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return (
            f"Corpus({str(self.path)!r}, rows={self._n}, model={self.model_name!r}, "
            f"poolings={self.poolings}, layers={list(self.layers)}, dtype={self.dtype})"
        )

    # -- rows -------------------------------------------------------------------------------

    def _column(self, name: str) -> pa.ChunkedArray:
        parts = [pq.read_table(file, columns=[name]).column(name) for _, _, file in self._shards]
        return pa.chunked_array([c for part in parts for c in part.chunks])

    def column(self, name: str) -> np.ndarray:
        """One input column of every row ``(n,)``, read now and not kept: numbers as a float64
        array (missing values NaN), anything else as an object array of ``str`` (``None``
        for a missing value). ``ValueError`` for a column the store does not have."""
        if name not in self.manifest["input"]["columns"]:
            raise ValueError(f"The saved corpus has no column {name!r}.")
        column = self._column(name)
        if pa.types.is_integer(column.type) or pa.types.is_floating(column.type):
            return column.to_numpy().astype(np.float64)
        return np.asarray(column.cast(pa.string()).to_pylist(), dtype=object)

    def text_columns(self) -> pd.DataFrame:
        """The text column and the label column (when there is one) of every row, read now and
        not kept: a DataFrame backed by Arrow (``pd.ArrowDtype``, the texts' bytes and their
        offsets, not a Python object per text), in which ``.iloc`` of a few rows takes
        microseconds where :meth:`take` reads every shard they are in."""
        names = [n for n in (self.text_column, self.label_column) if n is not None]
        table = pa.table({name: self._column(name) for name in names}).combine_chunks()
        return table.to_pandas(types_mapper=pd.ArrowDtype)

    @cached_property
    def texts(self) -> list[str]:
        """Every text, in store order."""
        return self._column(self.text_column).to_pylist()

    @cached_property
    def labels(self) -> list | None:
        """The label column's values, or ``None`` when the input had no label column."""
        if self.label_column is None:
            return None
        return self._column(self.label_column).to_pylist()

    @cached_property
    def metadata(self) -> pd.DataFrame:
        """The other input columns (not text, not label), one row per text. Columns read as
        text from CSV/TSV are turned into numbers when every value is a number."""
        skip = {self.text_column, self.label_column}
        frames = []
        for _, _, file in self._shards:
            names = [n for n in pq.ParquetFile(file).schema_arrow.names if n not in skip]
            frames.append(pq.read_table(file, columns=names).to_pandas())
        frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        for column in frame.columns:
            if frame[column].dtype == object or pd.api.types.is_string_dtype(frame[column]):
                numbers = pd.to_numeric(frame[column], errors="coerce")
                if numbers.notna().sum() == frame[column].notna().sum():
                    frame[column] = numbers
        return frame

    def take(self, rows) -> pd.DataFrame:
        """The input rows ``rows`` (indices, in the order given) with every column, reading
        only the shards they are in. A ``row`` column gives each row's index."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if len(rows) and (rows.min() < 0 or rows.max() >= self._n):
            raise ValueError(f"Rows must be from 0 to {self._n - 1}.")
        starts = np.array([start for start, _, _ in self._shards])
        which = np.searchsorted(starts, rows, side="right") - 1
        parts = []
        for shard in np.unique(which):
            start, _, file = self._shards[shard]
            mine = rows[which == shard]
            table = pq.read_table(file).take(pa.array(mine - start)).to_pandas()
            table.insert(0, "row", mine)
            parts.append(table)
        if not parts:
            return pd.DataFrame(columns=["row"])
        frame = pd.concat(parts, ignore_index=True).set_index("row").loc[rows].reset_index()
        return frame

    @cached_property
    def num_tokens(self) -> np.ndarray:
        """``(n,)`` tokens per text, special tokens included, after truncation."""
        return open_npy(self.path, "vectors/num_tokens.npy", (self._n,), "int32")

    @cached_property
    def truncated(self) -> np.ndarray:
        """``(n,)`` bool: whether each text was cut to the model's ``max_length``."""
        return open_npy(self.path, "vectors/truncated.npy", (self._n,), "bool")

    # -- vectors ----------------------------------------------------------------------------

    def _needed(self, choice: VectorChoice) -> list[int]:
        """The stored layers ``choice`` combines; ``ValueError`` saying what to embed when a
        part of its pooling or one of its layers is not stored."""
        missing = [p for p in choice.parts if p not in self.poolings]
        if missing:
            raise ValueError(
                f"Pooling {choice.pooling!r} needs {', '.join(choice.parts)}; this store keeps "
                f"{', '.join(self.poolings)} (embed again with --pooling "
                f"{','.join(sorted({*self.poolings, *choice.parts}))})."
            )
        indices = choice.indices(self.num_layers)
        absent = sorted(set(indices) - set(self.layers))
        if absent:
            raise ValueError(
                f"Layers {choice.layers!r} need layers {sorted(set(indices))}; this store keeps "
                f"only {list(self.layers)} (embed again with --layers all)."
            )
        return indices

    def vectors(
        self, choice: VectorChoice | str = "mean", layers: Layers | None = None
    ) -> np.ndarray:
        """``(n, d)`` vectors of one :class:`explorer.VectorChoice` (or pooling name and
        ``layers``), without a copy when they are one stored file (a read-only memory map, of
        the stored dtype); else :meth:`sentence`."""
        choice = vector_choice(choice, layers)
        indices = self._needed(choice)
        if len(choice.parts) == 1 and len(indices) == 1:
            return self._vectors[choice.parts[0]][indices[0]]
        return self.sentence(choice)

    def sentence(
        self,
        choice: VectorChoice | str = "mean",
        layers: Layers | None = None,
        normalize: bool = False,
        rows: np.ndarray | None = None,
    ) -> np.ndarray:
        """``(n, dim)`` float32 vectors for one :class:`explorer.VectorChoice` (or pooling name
        and ``layers``), equal to ``embed_corpus(...).sentence(choice, normalize=normalize)``
        of the same texts (within float rounding, or float16's when stored so). Every pooling
        of :data:`explorer.POOLINGS` whose parts are stored, and every layer choice whose
        layers are stored; ``ValueError`` saying what to embed otherwise. Combined
        :data:`BLOCK_ROWS` rows at a time (working memory is one block of layers). With
        ``rows`` (indices), only those rows, in that order: ``(len(rows), dim)``."""
        choice = vector_choice(choice, layers)
        indices = self._needed(choice)
        if rows is not None:
            rows = np.asarray(rows, dtype=np.int64).reshape(-1)
            if len(rows) and (rows.min() < 0 or rows.max() >= self._n):
                raise ValueError(f"Rows must be from 0 to {self._n - 1}.")
        count = self._n if rows is None else len(rows)
        result = np.empty((count, choice.dim(self.hidden_size)), dtype=np.float32)
        stack_shape = (self.num_layers + 1, 0, self.hidden_size)
        for begin in range(0, count, BLOCK_ROWS):
            end = min(begin + BLOCK_ROWS, count)
            block = slice(begin, end) if rows is None else rows[begin:end]
            pooled = {}
            for part in choice.parts:
                stack = np.zeros((stack_shape[0], end - begin, stack_shape[2]), np.float32)
                for layer in indices:
                    stack[layer] = self._vectors[part][layer][block]
                pooled[part] = stack
            result[begin:end] = choice.combine(pooled)
        return normalize_rows(result) if normalize else result

    def per_layer(self, pooling: VectorChoice | str = "mean") -> np.ndarray:
        """``(num_layers + 1, n, dim)`` float32: one pooled vector per text at every layer
        (as :meth:`explorer.CorpusEmbeddings.per_layer`); needs every layer stored. In memory:
        ``4 * (layers + 1) * n * dim`` bytes."""
        if len(self.layers) != self.num_layers + 1:
            raise ValueError(
                f"per_layer needs every layer; this store keeps only {list(self.layers)} "
                "(embed again with --layers all)."
            )
        choice = vector_choice(pooling).replace(layers="last")
        self._needed(choice)
        return np.stack(
            [
                np.concatenate([self._vectors[p][layer] for p in choice.parts], axis=-1).astype(
                    np.float32
                )
                for layer in self.layers
            ]
        )

    def norms(self, pooling: str, layer: int) -> np.ndarray:
        """``(n,)`` float32 row norms of one stored pooling and layer (kept in the store)."""
        key = (pooling, layer)
        if key not in self._norms:
            self._norms[key] = open_npy(
                self.path, norms_file(pooling, layer), (self._n,), "float32"
            )
        return self._norms[key]

    def neighbors(
        self,
        query: int | np.ndarray,
        k: int = 10,
        *,
        pooling: VectorChoice | str = "mean",
        layers: Layers | None = None,
        metric: Metric = "cosine",
    ) -> Neighbors:
        """The ``k`` rows nearest to ``query`` (a row index, row indices, a vector or a batch
        of vectors) under one :class:`explorer.VectorChoice` (or pooling name and ``layers``):
        :func:`explorer.similarity.neighbors` over the memory-mapped vectors (with their stored
        norms when they are one file)."""
        choice = vector_choice(pooling, layers)
        vectors = self.vectors(choice)
        norms = None
        indices = self._needed(choice)
        if len(choice.parts) == 1 and len(indices) == 1:
            norms = self.norms(choice.parts[0], indices[0])
        return neighbors(vectors, query, k, metric, norms=norms)

    def embed_query(
        self, model, text: str, pooling: VectorChoice | str = "mean", layers: Layers | None = None
    ):
        """``(dim,)`` float32 vector of ``text`` embedded as the store's texts were (same
        choice of vectors, :class:`explorer.VectorChoice` or pooling name and ``layers``, and
        precision). ``model`` is a loaded :class:`explorer.Model` of the store's model, checked
        against the manifest's fingerprint, or ``None`` to load it."""
        from explorer.embeddings import embed_corpus
        from explorer.model import load_model

        choice = vector_choice(pooling, layers)
        self._needed(choice)
        if model is None:
            model = load_model(self.model_name)
        if model_fingerprint(model) != self.manifest["model"]["fingerprint"]:
            raise ValueError(
                f"{model.name!r} is not the model this store was embedded with "
                f"({self.model_name!r}, fingerprint {self.manifest['model']['fingerprint']})."
            )
        corpus = embed_corpus(model, [text], precision=self.precision)
        return corpus.sentence(choice)[0]

    def search(
        self,
        model,
        text: str,
        k: int = 10,
        *,
        pooling: VectorChoice | str = "mean",
        layers: Layers | None = None,
        metric: Metric = "cosine",
    ) -> Neighbors:
        """The ``k`` texts nearest to ``text``: :meth:`embed_query` then :meth:`neighbors`.
        ``model`` as in :meth:`embed_query`. Rows: ``result.indices``; texts: :meth:`take`."""
        choice = vector_choice(pooling, layers)
        k = min(k, self._n) if isinstance(k, int) and k > 0 else k
        query = self.embed_query(model, text, choice)
        return self.neighbors(query, k, pooling=choice, metric=metric)

    # -- projections ------------------------------------------------------------------------

    @property
    def projections(self) -> list[dict]:
        """Saved projections: dicts with ``method``, ``pooling``, ``layers`` (and ``choice``,
        the whole :class:`explorer.VectorChoice` as a record, where ``explorer project``
        wrote one: :func:`projection_choice` reads either), ``file``, ``rows_file`` (``None``
        when every row is projected), ``points``."""
        return list(self.manifest.get("projections") or [])

    def projection_entry(
        self, method: str, pooling: VectorChoice | str = "mean", layers: Layers | None = None
    ) -> dict | None:
        """The manifest's entry of the saved ``method`` projection under one
        :class:`explorer.VectorChoice` (or pooling name and ``layers``), or ``None``."""
        choice = vector_choice(pooling, layers)
        for entry in self.projections:
            if entry["method"] == method and projection_choice(entry) == choice:
                return entry
        return None

    def projection(
        self, method: str, pooling: VectorChoice | str = "mean", layers: Layers | None = None
    ) -> tuple[np.ndarray, np.ndarray | None] | None:
        """Saved ``(coordinates (points, 2), rows (points,) or None for all rows)`` of one
        projection (:meth:`projection_entry`), or ``None`` when it was not saved
        (``explorer project``)."""
        entry = self.projection_entry(method, pooling, layers)
        if entry is None:
            return None
        points = int(entry["points"])
        coords = open_npy(self.path, entry["file"], (points, 2), "float32")
        rows = None
        if entry.get("rows_file"):
            rows = open_npy(self.path, entry["rows_file"], (points,), "int64")
        return coords, rows
