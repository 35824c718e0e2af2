"""explorer.data.store: hostile rows do not stop `explorer embed` (issue 23, finding 8) and the
input's columns keep their types (issue 27, item 7)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer.data.store import Settings, embed_to_store, open_corpus
from explorer.data.store.inputs import inspect_input, read_chunks
from explorer.model.tokenization import MAX_CHARS
from tests.store_helpers import TEXTS, write_csv

SETTINGS = Settings(poolings=("mean",), layers="last", shard_rows=4)


def test_a_text_over_the_character_limit_is_truncated_and_counted(tiny, tmp_path):
    long = TEXTS[1]["text"] + " " + "bank " * (MAX_CHARS // 5 + 10)
    assert len(long) > MAX_CHARS
    rows = [TEXTS[0], {**TEXTS[1], "text": long}, *TEXTS[2:6]]
    source = write_csv(tmp_path / "in.csv", rows)
    manifest = embed_to_store(tiny, source, tmp_path / "s", SETTINGS)
    assert manifest["rows"] == 6 and manifest["long"] == 1 and manifest["truncated"] == 1
    corpus = open_corpus(tmp_path / "s")
    assert corpus.texts[1] == long  # the row keeps its whole text; only the model reads less
    assert bool(np.load(tmp_path / "s/vectors/truncated.npy")[1])
    # the vector is the one of the text's first 512 tokens
    cut = embed_to_store(
        tiny, write_csv(tmp_path / "cut.csv", [{**TEXTS[1], "text": long[:MAX_CHARS]}]),
        tmp_path / "cut", SETTINGS,
    )  # fmt: skip
    assert cut["truncated"] == 1 and cut["long"] == 0
    np.testing.assert_allclose(
        corpus.vectors("mean", 4)[1], open_corpus(tmp_path / "cut").vectors("mean", 4)[0],
        atol=1e-6,
    )  # fmt: skip


def test_texts_with_nothing_to_read_are_skipped_as_blank(tiny, tmp_path):
    # a text of control or format characters only has no token the model reads: it used to
    # stop the run ("has no tokens the model can read") at that shard, and every rerun
    rows = [TEXTS[0], {**TEXTS[1], "text": "\x01\x02\u200b\x7f"}, {**TEXTS[2], "text": " "}]
    source = tmp_path / "in.jsonl"
    pd.DataFrame([*rows, *TEXTS[3:5]]).to_json(source, orient="records", lines=True)
    manifest = embed_to_store(tiny, source, tmp_path / "s", SETTINGS)
    assert manifest["rows"] == 3 and manifest["skipped"] == 2
    assert open_corpus(tmp_path / "s").texts == [TEXTS[i]["text"] for i in (0, 3, 4)]


@pytest.mark.parametrize("kind", ["csv", "txt", "jsonl"])
def test_a_binary_file_is_refused_without_echoing_its_bytes(tmp_path, kind):
    path = tmp_path / f"in.{kind}"
    path.write_bytes(b"text\n\x1b[2J\x1b]0;owned\x07\x00\x01\xff\xfe" * 50)
    with pytest.raises(ValueError, match="looks like a binary file") as error:
        inspect_input(path)
    assert not any(not c.isprintable() for c in str(error.value))


def test_a_parse_error_message_escapes_control_characters(tmp_path):
    path = tmp_path / "in.csv"
    path.write_bytes(b"text,id\nhello,1\n\x1b[31mred\x07,2,3\n")
    with pytest.raises(ValueError, match="Could not read") as error:
        list(read_chunks(inspect_input(path)))
    message = str(error.value)
    assert "\x1b" not in message and "\x07" not in message and "\\x1b[31mred\\x07" in message


def test_csv_columns_come_back_with_their_types(tiny, tmp_path):
    rows = [
        {"text": row["text"], "label": row["label"], "id": 1000 + i, "score": i * 0.5,
         "zip": f"{i:05d}", "mixed": "n/a" if i == 9 else str(i), "empty": ""}
        for i, row in enumerate(TEXTS)
    ]  # fmt: skip
    rows[3]["id"] = None  # a missing value in a column of integers
    source = write_csv(tmp_path / "in.csv", rows)
    frame = pd.read_csv(source, dtype=str, keep_default_na=False)
    frame["id"] = frame["id"].str.replace(".0", "", regex=False)  # pandas wrote 1003.0
    frame.to_csv(source, index=False)
    embed_to_store(tiny, source, tmp_path / "s", Settings(layers="last", shard_rows=3))
    corpus = open_corpus(tmp_path / "s")
    taken = corpus.take([0, 3, 9])
    assert taken["id"].tolist()[0] == 1000 and pd.isna(taken["id"].tolist()[1])
    assert str(taken["id"].dtype) in ("float64", "Int64") or taken["id"].dtype == object
    first = corpus.take([0]).iloc[0]
    assert isinstance(first["score"], float) and first["zip"] == "00000"
    assert isinstance(corpus.take([1]).iloc[0]["id"], (int, np.integer))
    assert taken["mixed"].tolist() == ["0", "3", "n/a"]  # not every value a number: text
    assert corpus.labels[0] == TEXTS[0]["label"]
