"""Uploaded vectors: the good formats round-trip, every bad input is a clear ValueError."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from explorer.data import parquetfile, vectorfiles
from explorer.data.vectorfiles import (
    GUESS,
    UploadedVectors,
    load_npy,
    read_table,
    read_vectors,
)
from explorer.server import limits

TEXTS = [f"Text number {i} about {('dogs', 'cats', 'fish')[i % 3]}." for i in range(12)]
LABELS = [("dogs", "cats", "fish")[i % 3] for i in range(12)]


def npy(array, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def csv(texts=TEXTS, labels=LABELS) -> bytes:
    frame = pd.DataFrame({"text": texts, "label": labels})
    return frame.to_csv(index=False).encode()


def parquet(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


@pytest.fixture
def vectors():
    return np.random.default_rng(0).normal(size=(len(TEXTS), 8)).astype(np.float32)


# -- good formats ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_npy_with_csv_round_trips(vectors, dtype):
    data = read_vectors(npy(vectors.astype(dtype)), csv())
    assert isinstance(data, UploadedVectors)
    assert data.texts == tuple(TEXTS) and data.labels == tuple(LABELS)  # label column guessed
    assert data.vectors.dtype == np.float32 and data.vectors.shape == (12, 8)
    np.testing.assert_allclose(data.vectors, vectors.astype(dtype), rtol=1e-3)
    assert not data.vectors.flags.writeable
    assert (data.format, data.text_column, data.label_column) == ("npy", "text", "label")
    assert data.label_title == "label" and data.dims == 8 and data.total == 12
    assert data.note is None and not data.sampled


def test_npy_fortran_order_is_read_as_rows(vectors):
    data = read_vectors(npy(np.asfortranarray(vectors)), csv())
    np.testing.assert_array_equal(data.vectors, vectors)


def test_csv_columns_can_be_chosen(vectors):
    data = read_vectors(npy(vectors), csv(), text_column="text", label_column=None)
    assert data.labels is None and data.label_title == "Label"
    with pytest.raises(ValueError, match="no text column 'nope'"):
        read_vectors(npy(vectors), csv(), text_column="nope")
    with pytest.raises(ValueError, match="no column 'nope'"):
        read_vectors(npy(vectors), csv(), label_column="nope")


def test_rows_without_text_leave_with_their_vectors(vectors):
    texts = list(TEXTS)
    texts[3] = "   "
    data = read_vectors(npy(vectors), csv(texts))
    assert data.dropped == 1 and len(data) == 11 and data.total == 12
    np.testing.assert_array_equal(data.vectors, np.delete(vectors, 3, axis=0))
    assert data.texts[3] == TEXTS[4] and data.labels[3] == LABELS[4]


@pytest.mark.parametrize(
    "vector_type",
    [pa.list_(pa.float32()), pa.list_(pa.float64(), 8), pa.large_list(pa.float16())],
    ids=["list", "fixed_size_list", "large_list"],
)
def test_parquet_round_trips(vectors, vector_type):
    table = pa.table(
        {
            "id": list(range(12)),
            "sentence": TEXTS,
            "topic": pd.Categorical(LABELS),
            "embedding": pa.array(vectors.tolist(), vector_type),
        }
    )
    data = read_vectors(parquet(table), label_column="topic")
    assert data.format == "parquet" and data.vector_column == "embedding"
    assert data.texts == tuple(TEXTS) and data.labels == tuple(LABELS)
    np.testing.assert_allclose(data.vectors, vectors, rtol=1e-3)
    assert data.text_column == "sentence"  # the id column is numbers, never the texts


def test_parquet_vector_column_is_guessed_then_chosen(vectors):
    table = pa.table(
        {
            "text": TEXTS,
            "other": pa.array((vectors * 2).tolist(), pa.list_(pa.float32())),
            "vector": pa.array(vectors.tolist(), pa.list_(pa.float32())),
        }
    )
    found = read_table(parquet(table))
    assert found.vector_column == "vector" and found.vector_columns == ("other", "vector")
    other = read_table(parquet(table), vector_column="other")
    np.testing.assert_allclose(other.vectors, vectors * 2)
    assert other.digest != found.digest
    with pytest.raises(ValueError, match="no column of float lists 'text'"):
        read_table(parquet(table), vector_column="text")


def test_more_rows_than_a_map_draws_are_sampled_like_saved_corpora(vectors):
    many = np.tile(vectors, (3, 1))
    texts = [f"text {i}" for i in range(36)]
    data = read_vectors(npy(many), csv(texts, [""] * 36), max_rows=10, seed=3)
    rows, note = limits.sample_points(36, 10, 3)
    assert note == data.note and data.sampled and len(data) == 10 and data.total == 36
    assert data.texts == tuple(texts[i] for i in rows)
    np.testing.assert_array_equal(data.vectors, many[rows])


def test_equal_and_hashed_by_digest_not_by_array(vectors):
    a = read_vectors(npy(vectors), csv())
    b = read_vectors(npy(vectors), csv())
    assert a == b and hash(a) == hash(b) and a.vectors is not b.vectors
    assert a != read_vectors(npy(vectors + 1), csv())
    assert a != read_vectors(npy(vectors), csv(), label_column=None)


# -- bad inputs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "array, message",
    [
        (np.arange(6.0), "1-D"),
        (np.zeros((2, 3, 4)), "3 dimensions"),
        (np.zeros((0, 4)), "no rows"),
        (np.zeros((3, 0)), "0 dimensions"),
        (np.ones((3, 4), dtype=np.int64), "int64 values"),
        (np.ones((3, 4), dtype=bool), "bool values"),
        (np.array([["a", "b"]]), "strings"),
        (np.array([[{"x": 1}]], dtype=object), "Python objects"),
        (np.zeros(3, dtype=[("a", "f4"), ("b", "f4")]), "records"),
        (np.array([[1.0, np.nan], [1.0, 2.0]]), "NaN or infinite"),
        (np.array([[1.0, 2.0], [np.inf, 2.0]]), "first in row 2"),
        (np.array([[1e300, 2.0]]), "too large for float32"),
    ],
)
def test_bad_arrays(array, message):
    with pytest.raises(ValueError, match=message):
        load_npy(npy(array, allow_pickle=True))


def test_a_pickle_is_never_loaded():
    import pickle

    with pytest.raises(ValueError, match="not a .npy file"):
        load_npy(pickle.dumps([[1.0, 2.0]]))
    archive = io.BytesIO()
    np.savez(archive, v=np.zeros((2, 2)))
    with pytest.raises(ValueError, match=".npz archive"):
        load_npy(archive.getvalue())


def test_a_cut_or_lying_header_is_refused_before_allocating():
    data = npy(np.zeros((100, 8), dtype=np.float32))
    with pytest.raises(ValueError, match="cut short: its header says 100 x 8 float32"):
        load_npy(data[:-10])
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**12, 8)}
    )
    with pytest.raises(ValueError, match="cut short"):  # 32 TB declared: never allocated
        load_npy(header.getvalue() + bytes(64))
    with pytest.raises(ValueError, match="damaged"):
        load_npy(b"\x93NUMPY\x01\x00garbage")


def test_row_counts_must_match(vectors):
    with pytest.raises(ValueError, match="CSV has 11 rows but the .npy file has 12 vectors"):
        read_vectors(npy(vectors), csv(TEXTS[:11], LABELS[:11]))


def test_csv_problems_are_the_uploads_messages(vectors):
    with pytest.raises(ValueError, match="not UTF-8"):
        read_vectors(npy(vectors), "text\nCafé\n".encode("latin-1"))
    with pytest.raises(ValueError, match="has no text in any row"):
        read_vectors(npy(vectors[:2]), b"text,label\n ,a\n ,b\n")


def test_files_over_the_upload_limit(monkeypatch, vectors):
    monkeypatch.setattr(vectorfiles, "MAX_BYTES", 200)
    with pytest.raises(ValueError, match="The .npy file is .* MB; the limit"):
        read_vectors(npy(vectors), csv())
    with pytest.raises(ValueError, match="The texts CSV is .* MB; the limit"):
        read_vectors(npy(vectors[:1]), csv(TEXTS * 20, LABELS * 20))
    with pytest.raises(ValueError, match="The Parquet file is .* MB; the limit"):
        read_vectors(b"x" * 201)


def test_parquet_without_a_float_list_column():
    table = pa.table({"text": ["a", "b"], "ids": pa.array([[1, 2], [3, 4]])})
    with pytest.raises(ValueError, match=r"no column of float lists \(ids hold other values\)"):
        read_vectors(parquet(table))
    with pytest.raises(ValueError, match="no column of float lists; its columns are: text"):
        read_vectors(parquet(pa.table({"text": ["a"], "x": [1.0]})))


def test_parquet_without_a_text_column(vectors):
    table = pa.table({"n": [1, 2], "v": pa.array([[1.0], [2.0]])})
    with pytest.raises(ValueError, match="no text column"):
        read_vectors(parquet(table))


@pytest.mark.parametrize(
    "column, message",
    [
        (pa.array([[1.0, 2.0], [1.0]]), "differ in length: row 1 has 2 values, row 2 has 1"),
        (pa.array([[1.0, 2.0], None]), "have no vector"),
        (pa.array([[1.0, None], [1.0, 2.0]]), "null"),
        (pa.array([[1.0, float("nan")], [1.0, 2.0]]), "NaN"),
        (pa.array([[], []], pa.list_(pa.float32())), "0 dimensions"),
    ],
)
def test_bad_parquet_vectors(column, message):
    with pytest.raises(ValueError, match=message):
        read_vectors(parquet(pa.table({"text": ["a", "b"], "v": column})))


def test_empty_or_unreadable_parquet():
    empty = pa.table({"text": pa.array([], pa.string()), "v": pa.array([], pa.list_(pa.float32()))})
    with pytest.raises(ValueError, match="no rows"):
        read_vectors(parquet(empty))
    with pytest.raises(ValueError, match="not a readable Parquet file"):
        read_vectors(b"PAR1 not really")


def test_a_parquet_that_unpacks_too_far_is_refused(monkeypatch):
    assert parquetfile.MAX_DECODED_BYTES == 5 * vectorfiles.MAX_BYTES
    monkeypatch.setattr(parquetfile, "MAX_DECODED_BYTES", 100)
    table = pa.table({"text": ["a"] * 50, "v": pa.array([[0.0] * 8] * 50)})
    with pytest.raises(ValueError, match="unpacks to"):
        read_vectors(parquet(table))


def test_guess_is_the_default_label_choice(vectors):
    assert read_table(npy(vectors), csv()).select(label_column=GUESS).label_column == "label"


def test_the_tables_other_columns_follow_the_rows_kept(vectors):
    frame = pd.DataFrame(
        {"text": [f"text {i}" if i != 2 else "" for i in range(36)], "stars": range(36)}
    )
    many = np.tile(vectors, (3, 1))
    data = read_vectors(npy(many), frame.to_csv(index=False).encode(), max_rows=10, seed=3)
    kept = [i for i in range(36) if i != 2]  # the row without text leaves first
    rows, _ = limits.sample_points(35, 10, 3)
    assert data.columns == (("stars", tuple(str(kept[i]) for i in rows)),)
    assert [f"text {s}" for s in data.columns[0][1]] == list(data.texts)
