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


def _peak_bytes(call) -> tuple[object, int]:
    """``(what call() raised, else returned; the most Python memory it held at once)``."""
    import tracemalloc

    tracemalloc.start()
    try:
        try:
            result = call()
        except ValueError as error:
            result = error
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _sparse_text(path, size: int = 1 << 30):
    """100 KB of text lines, then NUL bytes to ``size`` (a hole: nothing on disk)."""
    with open(path, "wb") as data:
        data.write(b"a line of text\n" * 7000)
        data.truncate(size)
    return path


def test_nul_bytes_anywhere_refuse_the_file(tmp_path, monkeypatch):
    from explorer.data.store import inputs

    # issue 32, finding 5: the NUL check read only the first 64 KB
    rows = [{"text": f"text {i}", "label": "x"} for i in range(20_000)]
    path = write_csv(tmp_path / "late.csv", rows)
    with open(path, "ab") as data:
        data.write(b"b\x00c,y\n")
    with pytest.raises(ValueError, match=r"late.csv looks like a binary file .*line 20,002"):
        inspect_input(path)
    (tmp_path / "late.txt").write_bytes(b"one\r\ntwo\rthree\n" * 30_000 + b"x\x00")
    where = r"NUL bytes, at byte 450,001, line 90,001\), not plain text"
    with pytest.raises(ValueError, match=where):
        inspect_input(tmp_path / "late.txt")
    monkeypatch.setattr(inputs, "_SCAN_BYTES", 7)  # "\r\n" split between blocks
    with pytest.raises(ValueError, match=where):
        inspect_input(tmp_path / "late.txt")


def test_a_sparse_gigabyte_of_nul_bytes_is_refused_in_bounded_memory(tmp_path, monkeypatch):
    from explorer.data.store import inputs

    path = _sparse_text(tmp_path / "sparse.txt")
    error, peak = _peak_bytes(lambda: inspect_input(path))
    assert isinstance(error, ValueError) and "looks like a binary file" in str(error)
    assert "line 7,001" in str(error) and peak < 8 << 20
    # where the system cannot tell holes, the scan still stops at the first NUL byte
    monkeypatch.setattr(inputs, "_first_hole", lambda fd: None)
    error, peak = _peak_bytes(lambda: inspect_input(path))
    assert "at byte 105,000, line 7,001" in str(error) and peak < 8 << 20


def test_a_line_over_the_limit_is_refused_as_it_streams(tmp_path):
    from explorer.data.store.inputs import MAX_ROW_BYTES, InputInfo

    path = tmp_path / "long.txt"
    with open(path, "w") as data:
        data.write("short\n" * 3)
        for _ in range(6):  # 24 MB in one line, written in pieces
            data.write("word " * (MAX_ROW_BYTES // 5))
    error, peak = _peak_bytes(lambda: inspect_input(path))
    assert isinstance(error, ValueError), "a 24 MB line was accepted"
    assert str(error).startswith("Line 4 of long.txt is longer than 4 MB") and peak < 8 << 20
    # the reader holds at most the limit of a line too (a file changed since it was checked)
    info = InputInfo(path, "text", ("text", "line"), "text", None)
    error, peak = _peak_bytes(lambda: list(read_chunks(info)))
    assert isinstance(error, ValueError) and "Line 4 of long.txt is longer than 4 MB" in str(error)
    assert peak < 4 * MAX_ROW_BYTES + (8 << 20)  # the line read so far: 4 bytes a character
    # a line of exactly the limit is read whole
    path.write_text("x" * MAX_ROW_BYTES + "\nnext")
    texts = pa_texts(read_chunks(inspect_input(path)))
    assert [len(t) for t in texts] == [MAX_ROW_BYTES, 4]


def pa_texts(tables) -> list[str]:
    return [text for table in tables for text in table.column("text").to_pylist()]


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_a_row_over_the_limit_says_so(tmp_path, suffix):
    from explorer.data.store.inputs import MAX_ROW_BYTES

    long = "x" * (3 * MAX_ROW_BYTES)
    path = tmp_path / f"in.{suffix}"
    if suffix == "csv":
        path.write_text(f"text,label\nfirst,a\n{long},b\n")
    else:
        path.write_text(json.dumps({"text": "first"}) + "\n" + json.dumps({"text": long}) + "\n")
    with pytest.raises(ValueError, match="rows is too long .one row may take about 4 MB"):
        list(read_chunks(inspect_input(path)))


def test_the_cli_refuses_a_sparse_gigabyte_in_bounded_memory(tmp_path):
    # issue 32, finding 5: `explorer embed` on it went past 8 GB; a child with at most 2 GB
    # of address space must refuse it with the one-line error
    import subprocess
    import sys
    from pathlib import Path

    path = _sparse_text(tmp_path / "sparse.txt")
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "from explorer.cli import main\n"
        f"status = main(['embed', {str(path)!r}, '--out', {str(tmp_path / 'out')!r}])\n"
        # VmHWM: this process's own peak (ru_maxrss would count the forked pytest too)
        "print(next(line.split()[1] for line in open('/proc/self/status') if "
        "line.startswith('VmHWM')))\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("explorer embed: error: sparse.txt looks like a binary file")
    assert int(done.stdout) < 256 << 10  # KB: the peak resident size stays under 256 MB


def test_a_missing_column_message_lists_at_most_20_names_each_cut(tmp_path):
    names = [f"c{i}" for i in range(29)] + ["x" * 500]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(names) + "\n" + ",".join("1" * 30) + "\n")
    with pytest.raises(ValueError) as error:
        inspect_input(path, text_column="c0", label_column="nope")
    assert "(columns: c0, c1, " in str(error.value) and "c19 and 10 more)" in str(error.value)
    assert len(str(error.value)) < 300
