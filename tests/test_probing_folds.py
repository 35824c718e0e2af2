"""Shared folds and the majority baseline: stratified per group, lowered when a class is rare."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.probing.folds import majority_baseline, plan_folds, summary_row


def test_per_word_groups_split_and_baseline():
    labels = ["a", "a", "b", "b", "x", "x", "x", "y", "y", "y"]
    words = ["bank"] * 4 + ["bat"] * 6
    plan = plan_folds(labels, words, folds=2)
    assert plan.baseline == pytest.approx(5 / 10)  # 2 of bank's 4 + 3 of bat's 6
    tested = np.sort(np.concatenate([test for _, test in plan.splits]))
    assert list(tested) == list(range(10))  # every row is tested exactly once
    for train, test in plan.splits:
        assert not set(train) & set(test)
        for group in ("bank", "bat"):  # each group is split on its own, stratified
            in_test = [labels[i] for i in test if words[i] == group]
            assert len(set(in_test)) == 2


def test_folds_are_lowered_to_the_rarest_class_with_a_note():
    plan = plan_folds(["a"] * 10 + ["b"] * 3, folds=5)
    assert plan.folds == 3 and "3-fold" in plan.notes[0]


@pytest.mark.parametrize(
    ("labels", "words", "folds", "message"),
    [
        (["a"] * 6, None, 5, "Only one class"),
        (["a"] * 5 + ["b"], None, 5, "single example"),
        (["a"] * 3 + ["b"] * 3, ["bank"] * 3 + ["bat"] * 3, 2, "Only one class for 'bank'"),
        (["a", "b"] * 3, None, 1, "folds must be"),
        (["a", "b"] * 3, None, 11, "folds must be"),
        (["a", ""] * 3, None, 2, "empty"),
        (["a", "b"] * 2501, None, 5, "too many"),
        (["a", "b"], ["x"], 2, "words"),
    ],
)
def test_bad_labels_raise(labels, words, folds, message):
    with pytest.raises(ValueError, match=message):
        plan_folds(labels, words, folds)


def test_majority_baseline_and_summary_row():
    assert majority_baseline(["a", "a", "b"]) == pytest.approx(2 / 3)
    assert majority_baseline(["a", "b", "x", "x"], ["w", "w", "v", "v"]) == pytest.approx(3 / 4)
    plan = plan_folds(["a", "b"] * 4, folds=2)
    row = summary_row(np.array([0.5, 1.0]), plan)
    assert row == {
        "accuracy_mean": 0.75,
        "accuracy_std": 0.25,
        "baseline": 0.5,
        "fold_1": 0.5,
        "fold_2": 1.0,
    }
