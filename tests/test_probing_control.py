"""Control tasks (Hewitt and Liang 2019, issue 36.1): random labels per text with the real
distribution, the same folds, selectivity = accuracy - control accuracy."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from explorer import probing
from explorer.probing.control import control_labels, control_notice, control_plan
from explorer.probing.folds import plan_folds
from explorer.probing.scores import score_layers


def test_control_labels_by_hand():
    texts = ["x", "X", "y", "z", "w", "w ", "v", "u"]
    labels = ["a", "a", "b", "a", "b", "b", "a", "a"]
    plan = plan_folds(labels, folds=2, texts=texts)
    # by hand: distinct texts x, y, z, w, v, u in first-seen order; rows: 5 a, 3 b
    drawn = np.random.default_rng(7).choice(["a", "b"], size=6, p=[5 / 8, 3 / 8]).tolist()
    expected = dict(zip(["x", "y", "z", "w", "v", "u"], drawn, strict=True))
    got = control_labels(plan, seed=7).tolist()
    assert got == [expected[t.strip().lower()] for t in texts]
    assert control_labels(plan).tolist() == control_labels(plan, seed=plan.random_state).tolist()


def test_control_labels_per_word_use_that_words_distribution():
    texts = [f"bank {i}" for i in range(200)] + [f"bat {i}" for i in range(200)]
    words = ["bank"] * 200 + ["bat"] * 200
    labels = ["river"] * 150 + ["money"] * 50 + ["animal"] * 100 + ["sport"] * 100
    plan = plan_folds(labels, words, folds=5, texts=texts)
    control = control_labels(plan)
    bank, bat = Counter(control[:200].tolist()), Counter(control[200:].tolist())
    assert set(bank) == {"river", "money"} and set(bat) == {"animal", "sport"}
    assert bank["river"] / 200 == pytest.approx(0.75, abs=0.08)  # the real share, drawn
    assert bat["animal"] / 200 == pytest.approx(0.5, abs=0.08)


def test_control_is_consistent_across_a_texts_occurrences():
    rng = np.random.default_rng(1)
    base = [f"text {i}" for i in range(30)]
    order = rng.integers(0, 30, 120)
    texts = [base[i].upper() if k % 2 else base[i] for k, i in enumerate(order)]
    labels = [["p", "q", "r"][i % 3] for i in order]
    control = control_labels(plan_folds(labels, folds=3, texts=texts))
    for i in set(order.tolist()):
        assert len(set(control[order == i].tolist())) == 1


def test_selectivity_by_hand():
    """Features that spell the label (accuracy 1) and constant features for the control
    probe to use: it can only guess each training fold's majority control label."""
    rng = np.random.default_rng(4)
    labels = rng.choice(["a", "b"], size=61, p=[0.6, 0.4]).tolist()
    texts = [f"text {i}" for i in range(61)]
    plan = plan_folds(labels, folds=3, texts=texts)
    spelled = np.array([[1.0, 0.0] if y == "a" else [0.0, 1.0] for y in labels])
    constant = np.zeros((61, 2))
    scores = score_layers(np.stack([spelled, constant]), plan, control=True)
    control = control_plan(plan).labels
    by_hand = []
    for train, test in plan.splits:
        (majority, most), (_, second) = Counter(control[train].tolist()).most_common(2)
        assert most > second  # no tie: the majority is well defined (seed chosen for it)
        by_hand.append(np.mean(control[test] == majority))
    assert scores["control_mean"].iloc[1] == pytest.approx(np.mean(by_hand), abs=1e-9)
    assert scores["accuracy_mean"].iloc[0] == 1.0
    np.testing.assert_allclose(
        scores["selectivity"], scores["accuracy_mean"] - scores["control_mean"], atol=1e-12
    )
    # the same folds for both tasks: the plan's splits are reused
    assert all(
        (a[0] == b[0]).all() for a, b in zip(plan.splits, control_plan(plan).splits, strict=True)
    )


def test_layer_scores_with_control_adds_the_columns(tiny):
    texts = [f"The {w} was {m}." for w in ("film", "meal", "trip") for m in ("great", "awful")]
    labels = ["pos", "neg"] * 3
    plain = probing.layer_scores(tiny, texts * 2, labels * 2, folds=2)
    scores = probing.layer_scores(tiny, texts * 2, labels * 2, folds=2, control=True)
    assert {"control_mean", "control_std", "selectivity"} <= set(scores.columns)
    assert "control_mean" not in plain.columns
    np.testing.assert_allclose(scores["accuracy_mean"], plain["accuracy_mean"])
    best = probing.best_layers(scores.assign(features="mean"))
    assert {"control_mean", "selectivity"} <= set(best.columns)


def _frame(accuracy, control, baseline=0.5):
    accuracy, control = np.asarray(accuracy), np.asarray(control)
    return pd.DataFrame(
        {
            "layer": range(len(accuracy)),
            "accuracy_mean": accuracy,
            "accuracy_std": 0.02,
            "control_mean": control,
            "selectivity": accuracy - control,
            "baseline": baseline,
        }
    )


def test_notice_says_a_probe_high_everywhere_is_not_selective():
    text = control_notice(_frame([0.95, 0.97, 0.96], [0.9, 0.93, 0.92]))
    assert "0.93 at layer 1" in text and "0.97" in text and "+0.04" in text
    assert "not selective" in text and "every layer (lowest 0.95)" in text


def test_notice_for_a_selective_probe_names_the_most_selective_layer():
    text = control_notice(_frame([0.6, 0.9, 0.88], [0.5, 0.55, 0.45]))
    assert "not selective" not in text
    assert "selectivity +0.35" in text and "most selective layer is 2 (+0.43)" in text
    with pytest.raises(ValueError, match="control"):
        control_notice(_frame([0.6], [0.5]).drop(columns="selectivity"))


def test_notice_says_better_when_random_labels_score_higher():
    """An uploaded CSV of 12 texts: control 0.83 against 0.57 on the real labels, selectivity
    -0.27; the notice said the probe did "almost as well" on random labels."""
    text = control_notice(_frame([0.57, 0.5, 0.45], [0.83, 0.8, 0.9]))
    assert "selectivity -0.26" in text and "does better on random labels" in text
    assert "almost" not in text
    level = control_notice(_frame([0.7, 0.6], [0.7, 0.5]))  # selectivity +0.00 at layer 0
    assert "does as well on random labels" in level
