"""An opened corpus store: texts, labels, metadata and memory-mapped vectors.

:func:`open_corpus` checks the manifest and every vector file (present, readable, the shape
and dtype the manifest says) and maps the vectors with ``np.load(mmap_mode="r")``: opening a
store of a million rows reads a few kilobytes, and pages of vectors are read when used. The
input columns (texts, labels, the others) are read by :mod:`explorer.data.store.rows`.

Which vectors: one :class:`explorer.VectorChoice`. The methods a notebook, the ``explorer``
command or a "Show code" snippet call with a pooling name and ``layers`` (:meth:`Corpus.vectors`,
:meth:`~Corpus.sentence`, :meth:`~Corpus.per_layer`, :meth:`~Corpus.embed_query`,
:meth:`~Corpus.search`) are the store's edge: each turns the names into a choice once
(:func:`explorer.choice.vector_choice`) and hands the choice on. Everything behind them takes
the choice itself: :meth:`~Corpus.neighbors`, :meth:`~Corpus.projection_entry`,
:meth:`~Corpus.projection`, and :mod:`explorer.data.store.saved_maps`.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path

import numpy as np

from explorer.choice import VectorChoice, vector_choice
from explorer.data.store.format import (
    MANIFEST,
    layer_file,
    model_fingerprint,
    norms_file,
    open_npy,
    read_manifest,
)
from explorer.data.store.rows import StoreRows, open_shards
from explorer.layers import Layers
from explorer.pooling import BASE_POOLINGS, normalize_rows
from explorer.similarity import Metric, Neighbors, neighbors

DEFAULT_CHOICE = VectorChoice()
"""The vectors a store's methods read when no choice is given: the mean of the last layer."""

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


class Corpus(StoreRows):
    """A corpus store, opened. ``len(corpus)`` rows; ``manifest`` is the parsed manifest; its
    input columns as :class:`~explorer.data.store.rows.StoreRows` reads them.

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
        self._shards = open_shards(self.path, shards)
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
        return self._stored(vector_choice(choice, layers))

    def _stored(self, choice: VectorChoice) -> np.ndarray:
        indices = self._needed(choice)
        if len(choice.parts) == 1 and len(indices) == 1:
            return self._vectors[choice.parts[0]][indices[0]]
        return self._combined(choice)

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
        return self._combined(vector_choice(choice, layers), normalize, rows)

    def _combined(
        self, choice: VectorChoice, normalize: bool = False, rows: np.ndarray | None = None
    ) -> np.ndarray:
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
        choice: VectorChoice = DEFAULT_CHOICE,
        metric: Metric = "cosine",
    ) -> Neighbors:
        """The ``k`` rows nearest to ``query`` (a row index, row indices, a vector or a batch
        of vectors) under one :class:`explorer.VectorChoice` (the mean of the last layer if
        not given): :func:`explorer.similarity.neighbors` over the memory-mapped vectors (with
        their stored norms when they are one file)."""
        vectors = self._stored(_given(choice))
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
        return self._query_vector(model, text, vector_choice(pooling, layers))

    def _query_vector(self, model, text: str, choice: VectorChoice) -> np.ndarray:
        from explorer.embeddings import embed_corpus
        from explorer.model import load_model

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
        query = self._query_vector(model, text, choice)
        return self.neighbors(query, k, choice=choice, metric=metric)

    # -- projections ------------------------------------------------------------------------

    @property
    def projections(self) -> list[dict]:
        """Saved projections: dicts with ``method``, ``pooling``, ``layers`` (and ``choice``,
        the whole :class:`explorer.VectorChoice` as a record, where ``explorer project``
        wrote one: :func:`projection_choice` reads either), ``file``, ``rows_file`` (``None``
        when every row is projected), ``points``."""
        return list(self.manifest.get("projections") or [])

    def projection_entry(self, method: str, choice: VectorChoice) -> dict | None:
        """The manifest's entry of the saved ``method`` projection under one
        :class:`explorer.VectorChoice`, or ``None``."""
        _given(choice)
        for entry in self.projections:
            if entry["method"] == method and projection_choice(entry) == choice:
                return entry
        return None

    def projection(
        self, method: str, choice: VectorChoice
    ) -> tuple[np.ndarray, np.ndarray | None] | None:
        """Saved ``(coordinates (points, 2), rows (points,) or None for all rows)`` of one
        projection (:meth:`projection_entry`), or ``None`` when it was not saved
        (``explorer project``)."""
        entry = self.projection_entry(method, choice)
        if entry is None:
            return None
        points = int(entry["points"])
        coords = open_npy(self.path, entry["file"], (points, 2), "float32")
        rows = None
        if entry.get("rows_file"):
            rows = open_npy(self.path, entry["rows_file"], (points,), "int64")
        return coords, rows


def _given(choice: VectorChoice) -> VectorChoice:
    """``choice``, or ``ValueError`` for anything else (a pooling name, say: behind the
    store's edge, names are turned into a choice already; see the module)."""
    if not isinstance(choice, VectorChoice):
        raise ValueError(
            f"Give one explorer.VectorChoice, not {choice!r} (a pooling name and layers make "
            "one: VectorChoice(pooling, layers))."
        )
    return choice
