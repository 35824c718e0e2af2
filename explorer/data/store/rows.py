"""The input rows of a corpus store: its text, label and other columns, read from the shards'
Parquet files (``shard-*/rows.parquet``) only when asked.

:func:`open_shards` checks that each shard's file is there, readable and as long as the
manifest says; :class:`StoreRows` reads columns and rows from them, and
:class:`~explorer.data.store.corpus.Corpus` is one (beside its memory-mapped vectors).
:class:`MappedTexts` holds the text and label columns for a map's clicks in a memory-mapped
Arrow file rather than in the process's memory.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from explorer.data.store.format import store_file

LENGTH_ROWS = 10_000
"""Texts turned into Python strings at a time by :meth:`StoreRows.text_lengths`."""


def open_shards(path: Path, shards: list[tuple[str, int]]) -> list[tuple[int, int, Path]]:
    """``(first row, rows, Parquet file)`` of each shard (``(folder, rows)`` as the manifest
    lists them) of the store at ``path``, in order. Raises ``ValueError`` naming the file when
    a shard's file is missing, unreadable or of another length than the manifest says."""
    opened = []
    start = 0
    for folder, rows in shards:
        relative = f"{folder}/rows.parquet"
        parquet, real = path / relative, store_file(path, relative)
        if not real.is_file():
            raise ValueError(f"{parquet} is missing: the store is damaged.")
        try:
            found = pq.ParquetFile(real).metadata.num_rows
        except (OSError, pa.ArrowInvalid) as error:
            raise ValueError(f"{parquet} is not a readable Parquet file: {error}") from None
        if found != rows:
            raise ValueError(f"{parquet} has {found:,} rows; the manifest says {rows:,}.")
        opened.append((start, rows, real))
        start += rows
    return opened


class StoreRows:
    """The input columns of a store's rows, read from its shards (:func:`open_shards`, in
    ``_shards``) when asked: ``manifest``, ``text_column``, ``label_column`` and ``_n`` (the
    rows) are set by the store that opens them."""

    manifest: dict
    text_column: str
    label_column: str | None
    _n: int
    _shards: list[tuple[int, int, Path]]

    def _column(self, name: str) -> pa.ChunkedArray:
        parts = [pq.read_table(file, columns=[name]).column(name) for _, _, file in self._shards]
        return pa.chunked_array([c for part in parts for c in part.chunks])

    def column(self, name: str, *, categorical: bool = False) -> np.ndarray | pd.Categorical:
        """One input column of every row ``(n,)``, read now and not kept: numbers as a float64
        array (missing values NaN), anything else as an object array of ``str`` (``None``
        for a missing value), or with ``categorical`` as a ``pd.Categorical`` of the same
        texts (missing values: code -1), read a shard at a time: a code per row and each
        distinct text once, where a million Python strings took 60 MB and more.
        ``ValueError`` for a column the store does not have."""
        if name not in self.manifest["input"]["columns"]:
            raise ValueError(f"The saved corpus has no column {name!r}.")
        if categorical and self._shards:
            kind = pq.ParquetFile(self._shards[0][2]).schema_arrow.field(name).type
            if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
                return self._categories(name)
        column = self._column(name)
        if pa.types.is_integer(column.type) or pa.types.is_floating(column.type):
            return column.to_numpy().astype(np.float64)
        return np.asarray(column.cast(pa.string()).to_pylist(), dtype=object)

    def _categories(self, name: str) -> pd.Categorical:
        distinct: dict[str, int] = {}
        codes = np.full(self._n, -1, dtype=np.int32)
        for start, rows, file in self._shards:
            column = pq.read_table(file, columns=[name]).column(name).combine_chunks()
            encoded = column.cast(pa.string()).dictionary_encode()
            texts = encoded.dictionary.to_pylist()
            local = [distinct.setdefault(text, len(distinct)) for text in texts]
            found = encoded.indices.fill_null(-1).to_numpy()
            mapped = np.asarray(local + [-1], dtype=np.int32)  # index -1: the missing value
            codes[start : start + rows] = mapped[found]
        return pd.Categorical.from_codes(codes, categories=pd.Index(list(distinct), dtype=object))

    def text_lengths(self) -> np.ndarray:
        """Words in each row's text (:func:`explorer.data.columns.text_lengths`), float64
        ``(n,)``, counted :data:`LENGTH_ROWS` texts at a time: a million texts as Python
        strings at once raised the peak by 250 MB."""
        from explorer.data.columns import text_lengths

        parts = [np.zeros(0)]
        for _, _, file in self._shards:
            column = pq.read_table(file, columns=[self.text_column]).column(0)
            for start in range(0, len(column), LENGTH_ROWS):
                parts.append(text_lengths(column.slice(start, LENGTH_ROWS).to_pylist()))
        return np.concatenate(parts)

    def text_columns(self, folder: Path | None = None) -> MappedTexts:
        """The text column and the label column (when there is one) of every row, for reading
        a few rows at a time (a map's clicks): copied shard by shard into an uncompressed
        Arrow file in ``folder`` (default: the system's temporary folder) and memory-mapped
        (:class:`MappedTexts`: its ``take`` reads the rows' pages, where :meth:`take` reads
        every shard they are in); held in memory when the file cannot be written."""
        names = [n for n in (self.text_column, self.label_column) if n is not None]

        def tables():
            return (pq.read_table(file, columns=names) for _, _, file in self._shards)

        try:
            return MappedTexts.write(tables(), folder)
        except OSError:  # no room for the file (or no folder): held in memory, as before
            return MappedTexts([b for table in tables() for b in table.to_batches()])

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


class MappedTexts:
    """Columns of every row of a store (a Parquet file's are compressed, and a shard is read
    whole) in an uncompressed Arrow IPC file, memory-mapped: :meth:`take` of a few rows reads
    their pages only. The pages are the page cache's, not the process's own memory, and a
    process holds only those it read (92 MB of texts and labels at 1,000,000 rows, of which
    a click reads a few pages). The file is removed once mapped: it lasts as long as the
    mapping, and nothing is left behind when the process ends."""

    def __init__(self, batches: list[pa.RecordBatch]):
        self._batches = batches
        self._starts = np.cumsum([0, *(len(batch) for batch in batches)])
        self.columns = list(batches[0].schema.names) if batches else []

    @classmethod
    def write(cls, tables, folder: Path | None = None) -> MappedTexts:
        """The rows of ``tables`` (Arrow tables of the same columns, in order), written one at
        a time (only one is in memory) into a new file in ``folder`` and mapped."""
        handle, name = tempfile.mkstemp(prefix="explorer-texts-", suffix=".arrow", dir=folder)
        os.close(handle)
        try:
            with pa.OSFile(name, "wb") as sink:
                writer = schema = None
                for table in tables:
                    if writer is None:
                        schema = table.schema
                        writer = pa.ipc.new_file(sink, schema)
                    writer.write_table(table.cast(schema))
                    del table
                if writer is None:
                    return cls([])
                writer.close()
            pa.default_memory_pool().release_unused()  # the shards' decoding buffers
            reader = pa.ipc.open_file(pa.memory_map(name))
            return cls([reader.get_batch(i) for i in range(reader.num_record_batches)])
        finally:
            with contextlib.suppress(OSError):
                os.unlink(name)

    def __len__(self) -> int:
        return int(self._starts[-1])

    def take(self, rows) -> pd.DataFrame:
        """The rows ``rows`` (indices, in the order given, repeats allowed) as a DataFrame
        backed by Arrow (``pd.ArrowDtype``), indexed 0 to ``len(rows) - 1``. Each record batch
        is taken from apart: a take across them would copy every batch into one first."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if len(rows) and (rows.min() < 0 or rows.max() >= len(self)):
            raise ValueError(f"Rows must be from 0 to {len(self) - 1}.")
        which = np.searchsorted(self._starts, rows, side="right") - 1
        parts, places = [], []
        for batch in np.unique(which):
            mine = np.flatnonzero(which == batch)
            local = pa.array(rows[mine] - self._starts[batch])
            parts.append(self._batches[batch].take(local))
            places.append(mine)
        if not parts:
            return pd.DataFrame({name: [] for name in self.columns})
        table = pa.Table.from_batches(parts).combine_chunks()
        table = table.take(pa.array(np.argsort(np.concatenate(places), kind="stable")))
        return table.to_pandas(types_mapper=pd.ArrowDtype)
