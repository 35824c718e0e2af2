"""A tiny Parquet upload that decodes to gigabytes is refused before it is decoded (issue 23.1).

Memory is measured where it is spent: pyarrow's allocations through a proxy memory pool made
the default for the test, Python's with tracemalloc.
"""

from __future__ import annotations

import contextlib
import io
import time
import tracemalloc
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, example, given, note, settings
from hypothesis import strategies as st

from explorer.data import parquetfile, vectorfiles
from explorer.data.parquetfile import (
    MAX_CELLS,
    MAX_DECODED_BYTES,
    check_decoded,
    open_parquet,
    read_columns,
)
from explorer.data.vectorfiles import read_vectors

CHECK_MEMORY = 2 * vectorfiles.MAX_BYTES
"""Peak memory the checks may take (pyarrow's and Python's, each): twice the upload limit;
a file that passes them is then read, within :data:`MAX_DECODED_BYTES` more."""


def repeated_text(rows: int, length: int, distinct: bool = False) -> bytes:
    """A Parquet file of ``rows`` rows: a text of ``length`` characters (the same one in every
    row, dictionary-encoded, unless ``distinct``) and a 2-float vector. Written without the
    Arrow schema, so a reader sees a plain string column, as from any other writer."""
    if distinct:
        width = len(str(rows))
        text = pa.array([f"{i:0{width}d}" + "x" * max(length - width, 0) for i in range(rows)])
    else:
        text = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), ["x" * length])
    vectors = pa.FixedSizeListArray.from_arrays(pa.array([0.5, 1.0] * rows, pa.float32()), 2)
    buffer = io.BytesIO()
    pq.write_table(
        pa.table({"text": text, "vector": vectors}),
        buffer,
        compression="zstd",
        store_schema=False,
    )
    return buffer.getvalue()


_POOLS: list[pa.MemoryPool] = []
"""Every proxy pool made: buffers allocated from one may outlive the block, and freeing them
through a pool that is gone would crash the process."""


@contextlib.contextmanager
def peak_memory() -> Iterator[dict[str, int]]:
    """``{"arrow": ..., "python": ...}``: peak bytes allocated inside the block."""
    proxy = pa.proxy_memory_pool(pa.default_memory_pool())
    _POOLS.append(proxy)
    previous = pa.default_memory_pool()
    pa.set_memory_pool(proxy)
    tracemalloc.start()
    peaks: dict[str, int] = {}
    try:
        yield peaks
    finally:
        peaks["python"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        pa.set_memory_pool(previous)
        peaks["arrow"] = proxy.max_memory()


def test_the_reviews_2_kb_file_is_refused_at_once_in_bounded_memory():
    data = repeated_text(100_000, 5_000)
    assert len(data) < 2_500  # the review's file: 2.3 KB with the Arrow schema in it
    start = time.perf_counter()
    with peak_memory() as peak, pytest.raises(ValueError, match="unpacks to more than 100 MB"):
        read_vectors(data)
    assert time.perf_counter() - start < 1.0
    assert peak["arrow"] < CHECK_MEMORY and peak["python"] < CHECK_MEMORY, peak


def test_a_footer_that_counts_too_many_values_is_refused_before_reading(monkeypatch):
    # 10 million floats in one row compress to less than 1 KB.
    values = pa.array(np.zeros(10_000_000, np.float32))
    table = pa.table({"text": ["a"], "v": pa.ListArray.from_arrays([0, len(values)], values)})
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    monkeypatch.setattr(parquetfile, "MAX_DECODED_BYTES", 10_000_000)
    file = open_parquet(buffer.getvalue())
    monkeypatch.setattr(file, "iter_batches", None)  # never reached
    with pytest.raises(ValueError, match="unpacks to more than 10 MB"):
        read_columns(file, ["text", "v"])


def test_rows_times_columns_are_bounded(monkeypatch):
    data = repeated_text(2_000, 1)
    monkeypatch.setattr(parquetfile, "MAX_CELLS", 3_999)
    with pytest.raises(ValueError, match="2,000 rows x 2 columns; the limit is 3,999 cells"):
        read_vectors(data)
    monkeypatch.setattr(parquetfile, "MAX_CELLS", 4_000)
    assert len(read_vectors(data, max_rows=10)) == 10


def test_too_many_columns(monkeypatch):
    monkeypatch.setattr(parquetfile, "MAX_COLUMNS", 2)
    table = pa.table({"text": ["a"], "label": ["b"], "v": pa.array([[1.0]])})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    with pytest.raises(ValueError, match="3 columns; the limit is 2"):
        read_vectors(buffer.getvalue())


def test_strings_are_read_as_texts_not_categories():
    data = read_vectors(repeated_text(30, 12), max_rows=100)
    assert data.texts == ("x" * 12,) * 30 and data.vectors.shape == (30, 2)


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    rows=st.builds(lambda m, e: m * 10**e, st.integers(1, 9), st.integers(0, 5)),
    length=st.builds(lambda m, e: m * 10**e, st.integers(0, 9), st.integers(0, 4)),
    distinct=st.booleans(),
)
@example(rows=100_000, length=5_000, distinct=False)  # the review's file
@example(rows=10_000, length=9_900, distinct=False)  # just within the budget
@example(rows=500_001, length=0, distinct=False)  # one row past the cells
def test_decoded_size_decides_and_checking_stays_small(rows, length, distinct):
    texts = rows * length
    if distinct:  # written out in the test: keep those files small
        rows, texts = min(rows, 20_000), min(rows, 20_000) * min(length, 2_000)
        length = min(length, 2_000)
    note(f"{rows:,} rows x {length:,} characters ({texts / 1e6:.1f} MB of text)")
    data = repeated_text(rows, length, distinct)
    assert len(data) <= vectorfiles.MAX_BYTES
    try:
        with peak_memory() as peak:
            file = open_parquet(data)
            decoded = check_decoded(file, ["text", "vector"])
    except ValueError as error:
        event("refused")
        assert "limit" in str(error)
        assert texts > MAX_DECODED_BYTES // 2 or 2 * rows > MAX_CELLS
    else:
        event("accepted")
        assert texts <= decoded <= MAX_DECODED_BYTES and 2 * rows <= MAX_CELLS
        with peak_memory() as read:
            table = read_columns(file, ["text", "vector"])
        assert table.num_rows == rows
        assert read["arrow"] < CHECK_MEMORY + decoded, read
    # Distinct texts past pyarrow's 1 MB dictionary page are decoded into a dictionary of all
    # texts so far, held with its hash table: about 4 times the text, only for what the
    # file really holds (repetition costs nothing while checking).
    allowed = CHECK_MEMORY + (4 * texts if distinct else 0)
    assert peak["arrow"] < allowed and peak["python"] < CHECK_MEMORY, peak


def test_a_categorical_column_counts_its_values_not_its_dictionary_per_row():
    """A pandas categorical of strings is written as a dictionary and read back as one."""
    import pandas as pd

    rows = 10_000
    labels = pd.Categorical([f"topic {i % 1_000}" for i in range(rows)])
    frame = pd.DataFrame({"text": [f"t{i}" for i in range(rows)], "label": labels})
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.append_column("vector", pa.array([[0.5, 1.0]] * rows, pa.list_(pa.float32())))
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    file = open_parquet(buffer.getvalue())
    assert pa.types.is_dictionary(file.schema_arrow.field("label").type)
    assert check_decoded(file, ["text", "label", "vector"]) < 1_000_000
    data = read_vectors(buffer.getvalue(), label_column="label", max_rows=rows)
    assert data.labels[:2] == ("topic 0", "topic 1") and len(data.labels) == rows


def test_row_groups_with_their_own_dictionaries_read_in_order():
    rows = 5_000
    table = pa.table(
        {
            "text": [f"text {i % 7}" for i in range(rows)],
            "label": [f"label {i % 3}" for i in range(rows)],
            "vector": pa.array([[float(i), 1.0] for i in range(rows)], pa.list_(pa.float32())),
        }
    )
    buffer = io.BytesIO()
    pq.write_table(table, buffer, row_group_size=700)
    assert pq.ParquetFile(pa.BufferReader(buffer.getvalue())).metadata.num_row_groups == 8
    data = read_vectors(buffer.getvalue(), label_column="label", max_rows=rows)
    assert data.texts == tuple(table.column("text").to_pylist())
    assert data.labels == tuple(table.column("label").to_pylist())
    assert data.vectors[:, 0].tolist() == list(range(rows))
