"""bench.explain measures what it says: texts of the requested length, every pooling."""

from __future__ import annotations

from bench.explain import FIRST, SECOND, _text, explain_bench, table


def test_texts_have_the_requested_length(tiny):
    for words in (FIRST, SECOND):
        assert len(tiny.tokenize(_text(tiny, words, 40))) == 40


def test_bench_rows_and_table(tiny_bert_path):
    rows = explain_bench(repeat=1, folder=tiny_bert_path, tokens=24, lesson=False)
    assert [row["case"] for row in rows] == [
        f"explain_{p}_24" for p in ("mean", "max", "mean_max", "cls")
    ]
    assert all(row["seconds"] > 0 and row["tokens"] == 24 for row in rows)
    assert rows[0]["target"] is None  # the 1 s target is for 128 tokens
    assert "explain_cls_24" in table(rows)
