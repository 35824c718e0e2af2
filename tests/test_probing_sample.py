"""``explorer.probing.sample``: the stratified rows one probe request reads within its budgets."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from explorer.probing.sample import probe_sample, stratified_order


def test_every_prefix_of_the_order_keeps_the_shares():
    strata = ["a"] * 600 + ["b"] * 300 + ["c"] * 100
    order = stratified_order(strata, seed=1)
    assert sorted(order.tolist()) == list(range(1000))
    first = Counter(strata[i] for i in order[:6])
    assert first == {"a": 2, "b": 2, "c": 2}  # two of every class first
    shares = Counter(strata[i] for i in order[:200])
    assert abs(shares["a"] - 120) <= 3 and abs(shares["b"] - 60) <= 3
    assert abs(shares["c"] - 20) <= 3
    assert order.tolist() == stratified_order(strata, seed=1).tolist()
    assert order.tolist() != stratified_order(strata, seed=2).tolist()


def test_small_tables_are_kept_whole(tiny):
    texts = [f"Text number {i}." for i in range(10)]
    sample = probe_sample(tiny, texts, ["x", "y"] * 5)
    assert sample.rows.tolist() == list(range(10)) and sample.note is None
    assert sample.total == 10 and sample.tokens > 10


def test_budgets_keep_a_stratified_sample_sorted_by_file_order(tiny):
    # Sorted by label, as exports often are: a prefix of the file would hold one class only.
    texts = [f"Sentence {i} about sport." for i in range(300)]
    texts += [f"Sentence {i} about money." for i in range(100)]
    labels = ["sport"] * 300 + ["money"] * 100
    sample = probe_sample(tiny, texts, labels, max_rows=40)
    assert len(sample.rows) == 40 and np.all(np.diff(sample.rows) > 0)
    kept = Counter(labels[i] for i in sample.rows)
    assert abs(kept["sport"] - 30) <= 2 and abs(kept["money"] - 10) <= 2
    assert "40 of 400 rows" in sample.note and "stratified by label" in sample.note
    counts = [len(tiny.encode_batch([texts[i]])[0]["input_ids"]) for i in sample.rows]
    assert sample.tokens == sum(counts)
    by_tokens = probe_sample(tiny, texts, labels, max_tokens=sample.tokens // 2)
    assert by_tokens.tokens <= sample.tokens // 2 and len(by_tokens.rows) < 40
    assert {labels[i] for i in by_tokens.rows} == {"sport", "money"}


def test_words_are_strata_too(tiny):
    texts = [f"The {w} number {i}." for w in ("bank", "bat") for i in range(50)]
    words = ["bank"] * 50 + ["bat"] * 50
    labels = (["river"] * 45 + ["money"] * 5) + (["animal", "sport"] * 25)
    sample = probe_sample(tiny, texts, labels, words, max_rows=20)
    kept = Counter((words[i], labels[i]) for i in sample.rows)
    assert kept[("bank", "money")] >= 2 and kept[("bat", "sport")] >= 2
    assert "label and word" in sample.note


def test_bad_budgets_and_lengths_are_refused(tiny):
    with pytest.raises(ValueError, match="at least 1"):
        probe_sample(tiny, ["a", "b"], ["x", "y"], max_rows=0)
    with pytest.raises(ValueError, match="2 texts but 1 labels"):
        probe_sample(tiny, ["a", "b"], ["x"])


def test_many_rows_get_fewer_folds():
    from explorer.server import limits

    rows = limits.MAX_PROBE_TEXTS  # the page's cap keeps the default 5 folds
    assert limits.probe_folds(rows, 5) == (5, None)
    assert limits.probe_folds(rows // 2, 9) == (9, None)
    folds, note = limits.probe_folds(rows, 10)
    assert folds == 5 and "5-fold" in note and "instead of 10" in note
    assert limits.probe_folds(100_000, 3)[0] == 2  # never below 2
