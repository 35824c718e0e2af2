"""explorer.data.store.inputs: every input format gives the same texts, labels and metadata."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from explorer.data.store import Settings, embed_to_store, open_corpus
from explorer.data.store.inputs import inspect_input, keep_texts, read_chunks
from tests.store_helpers import TEXTS, write_csv

ROWS = TEXTS[:6]


def _write(folder, kind):
    frame = pd.DataFrame(ROWS)
    if kind == "csv":
        return write_csv(folder / "in.csv", ROWS)
    if kind == "tsv":
        return write_csv(folder / "in.tsv", ROWS, sep="\t")
    if kind == "jsonl":
        path = folder / "in.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
        return path
    if kind == "parquet":
        path = folder / "in.parquet"
        frame.to_parquet(path, row_group_size=2)
        return path
    path = folder / "in.txt"
    path.write_text("".join(row["text"] + "\n" for row in ROWS[:3]) + "\n" + ROWS[3]["text"])
    return path


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "parquet"])
def test_tables(tiny, tmp_path, kind):
    source = _write(tmp_path, kind)
    embed_to_store(tiny, source, tmp_path / "s", Settings(layers="last", shard_rows=4))
    corpus = open_corpus(tmp_path / "s")
    assert corpus.texts == [r["text"] for r in ROWS]
    assert corpus.labels == [r["label"] for r in ROWS]
    assert list(corpus.metadata["source"]) == [r["source"] for r in ROWS]
    assert list(corpus.metadata["score"]) == [r["score"] for r in ROWS]


def test_plain_text_one_text_a_line(tiny, tmp_path):
    source = _write(tmp_path, "text")
    manifest = embed_to_store(tiny, source, tmp_path / "s", Settings(layers="last"))
    corpus = open_corpus(tmp_path / "s")
    assert corpus.texts == [r["text"] for r in ROWS[:4]]
    assert corpus.labels is None
    assert list(corpus.metadata["line"]) == [1, 2, 3, 5]  # the blank line 4 is skipped
    assert manifest["skipped"] == 1


def test_chunks_are_bounded(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("".join(f"text number {i}\n" for i in range(10_000)))
    sizes = [t.num_rows for t in read_chunks(inspect_input(path), chunk_rows=1000)]
    assert sizes == [1000] * 10


def test_column_choice(tmp_path):
    path = write_csv(tmp_path / "in.csv", [{"body": "a b", "topic": "x"}])
    with pytest.raises(ValueError, match="--text-column.*columns: body, topic"):
        inspect_input(path)
    info = inspect_input(path, text_column="body", label_column="topic")
    assert (info.text_column, info.label_column) == ("body", "topic")
    with pytest.raises(ValueError, match="no column 'nope'"):
        inspect_input(path, text_column="body", label_column="nope")
    single = write_csv(tmp_path / "one.csv", [{"sentence": "hello"}])
    assert inspect_input(single).text_column == "sentence"


def test_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match="No such input file"):
        inspect_input(tmp_path / "missing.csv")
    (tmp_path / "in.xlsx").write_text("x")
    with pytest.raises(ValueError, match="Cannot tell the format.*\\.csv"):
        inspect_input(tmp_path / "in.xlsx")
    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\n{"text": \n')
    with pytest.raises(ValueError, match="Could not read .*bad.jsonl"):
        list(read_chunks(inspect_input(tmp_path / "bad.jsonl")))


def test_keep_texts_drops_blank_and_null():
    import pyarrow as pa

    table = pa.table({"text": ["a", " ", None, "", "b"]})
    kept, dropped = keep_texts(table, "text")
    assert kept.column("text").to_pylist() == ["a", "b"] and dropped == 3
