"""Linear probes at every layer: toy tasks with known answers, comparisons, bad inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer.probing.folds import plan_folds
from explorer.probing.scores import best_layers, compare_features, layer_scores, score_layers

FRUITS = ("apple", "banana", "cherry", "grape", "lemon", "mango", "peach", "pear")
VEHICLES = ("bus", "car", "truck", "train", "boat", "plane", "bike", "tram")
TEMPLATES = ("I really like the {}.", "Yesterday we saw a {} there.", "Is that {} yours?")


def toy_set() -> tuple[list[str], list[str]]:
    """48 sentences: a fruit or a vehicle in three templates; the label is which."""
    texts, labels = [], []
    for template in TEMPLATES:
        for fruit, vehicle in zip(FRUITS, VEHICLES, strict=True):
            texts += [template.format(fruit), template.format(vehicle)]
            labels += ["fruit", "vehicle"]
    return texts, labels


def test_separable_toy_set_scores_near_one(tiny):
    texts, labels = toy_set()
    scores = layer_scores(tiny, texts, labels, pooling="mean", folds=4)
    assert list(scores["layer"]) == list(range(tiny.num_layers + 1))
    assert {"layer", "accuracy_mean", "accuracy_std", "baseline"} <= set(scores.columns)
    assert scores.attrs["baseline"] == pytest.approx(0.5)
    assert scores.attrs["folds"] == 4
    assert scores["accuracy_mean"].iloc[0] >= 0.95  # the word alone decides the label
    assert (scores["accuracy_std"] >= 0).all()


def test_shuffled_labels_score_near_the_baseline(tiny):
    texts, labels = toy_set()
    shuffled = list(np.random.default_rng(0).permutation(labels))
    scores = layer_scores(tiny, texts, shuffled, pooling="mean", folds=4)
    assert abs(scores["accuracy_mean"].mean() - scores.attrs["baseline"]) < 0.2


def test_word_task_probes_the_word_vector(tiny):
    texts = [f"The {w} is near the bank." for w in ("river", "money", "fish", "cash")] * 3
    labels = ["river", "finance", "river", "finance"] * 3
    scores = layer_scores(tiny, texts, labels, word="bank", folds=3)
    assert len(scores) == tiny.num_layers + 1
    # Static vectors of "bank" at the same position are identical: no better than guessing.
    assert scores["accuracy_mean"].iloc[0] <= 0.5 + 1e-9


def test_bad_inputs_to_layer_scores_raise(tiny):
    texts, labels = toy_set()
    with pytest.raises(ValueError, match="48 texts but 47 labels"):
        layer_scores(tiny, texts, labels[:-1])
    with pytest.raises(ValueError, match="Unknown pooling"):
        layer_scores(tiny, texts, labels, pooling="median")
    with pytest.raises(ValueError, match="Unknown subword mode"):
        layer_scores(tiny, texts, labels, word="apple", subwords="middle")
    with pytest.raises(ValueError, match="do not contain their word"):
        layer_scores(tiny, texts, labels, word="apple")
    with pytest.raises(ValueError, match="single string"):
        layer_scores(tiny, "one text", ["a"])


def test_best_layers():
    scores = pd.DataFrame(
        {
            "features": ["cls"] * 3 + ["mean"] * 3,
            "layer": [0, 1, 2] * 2,
            "accuracy_mean": [0.5, 0.7, 0.6, 0.5, 0.8, 0.8],
            "accuracy_std": [0.1] * 6,
            "baseline": [0.5] * 6,
        }
    )
    best = best_layers(scores)
    assert list(best["features"]) == ["mean", "cls"]
    assert best.loc[0, "layer"] == 1  # ties go to the lower layer


def test_compare_features_keeps_the_order_and_counts_every_layer():
    rng = np.random.default_rng(0)
    labels = ["a", "b"] * 10
    plan = plan_folds(labels, folds=2)
    signal = np.array([[0.0], [3.0]] * 10)
    stacks = {
        "noise": rng.normal(size=(3, 20, 4)),
        "signal": rng.normal(size=(2, 20, 4)) + signal,
    }
    seen = []
    scores = compare_features(stacks, plan, lambda done, total: seen.append((done, total)))
    assert list(scores.columns[:2]) == ["features", "layer"]
    assert list(scores["features"]) == ["noise"] * 3 + ["signal"] * 2
    assert seen == [(k, 5) for k in range(1, 6)]
    assert scores.attrs["folds"] == 2 and scores.attrs["n"] == 20
    assert best_layers(scores).loc[0, "features"] == "signal"
    single = score_layers(stacks["signal"], plan)
    pd.testing.assert_frame_equal(
        single, scores.iloc[3:].drop(columns="features").reset_index(drop=True)
    )
    with pytest.raises(ValueError, match="at least one"):
        compare_features({}, plan)
    with pytest.raises(ValueError, match="layers, n, d"):
        score_layers(np.ones((20, 4)), plan)


def test_layers_within_noise_of_the_best_are_named_as_ranges():
    import pandas as pd

    from explorer.probing.scores import best_layers, layer_ranges, layers_within_noise

    scores = pd.DataFrame(
        {
            "features": ["mean"] * 6,
            "layer": range(6),
            "accuracy_mean": [0.40, 0.80, 0.70, 0.86, 0.88, 0.85],
            "accuracy_std": [0.05, 0.04, 0.05, 0.03, 0.03, 0.04],
            "baseline": [0.25] * 6,
        }
    )
    assert layers_within_noise(scores) == [3, 4, 5]
    assert layer_ranges([1, 3, 4, 5, 7]) == "1, 3–5, 7"
    best = best_layers(scores).iloc[0]
    assert best["layer"] == 4 and best["within_noise"] == "3–5"


def _scores(means, std=0.05, baseline=0.33, strategies=("cls", "mean")):
    layers = len(means) // len(strategies)
    return pd.DataFrame(
        {
            "features": [s for s in strategies for _ in range(layers)],
            "layer": list(range(layers)) * len(strategies),
            "accuracy_mean": means,
            "accuracy_std": [std] * len(means),
            "baseline": [baseline] * len(means),
        }
    )


def test_probe_notice_names_the_best_layers_the_gain_and_layer_zero():
    from explorer.probing.scores import probe_notice

    labels = {"cls": "[CLS] token", "mean": "Mean of tokens"}
    text = probe_notice(best_layers(_scores([0.5, 0.7, 0.6, 0.6, 0.9, 0.85])), labels)
    assert text.startswith("The label is read best at layers 1–2 with mean of tokens: 0.90 ± 0.05")
    assert "+0.57 over always guessing the most common one (0.33)" in text
    assert "reaches 0.60; the context-mixing layers add +0.30" in text
    assert "The weakest choice, [CLS] token, peaks at 0.70." in text
    # Other numbers, other sentence: layer 0 already has it all.
    other = probe_notice(best_layers(_scores([0.8, 0.82, 0.81], strategies=("mean",))), labels)
    assert "layers 0–2 with mean of tokens: 0.82" in other
    assert "already reaches 0.80: most of it is in the words themselves" in other
    assert "weakest" not in other


def test_probe_notice_says_when_nothing_beats_guessing():
    from explorer.probing.scores import probe_notice

    text = probe_notice(best_layers(_scores([0.34, 0.36], strategies=("mean",))), None, "sense")
    assert text.startswith("No layer reads the sense clearly better than always guessing")
    with pytest.raises(ValueError, match="No probe scores"):
        probe_notice(best_layers(_scores([0.5, 0.6])).iloc[:0])


def test_a_layer_whose_error_bar_reaches_the_best_is_within_noise():
    import pandas as pd

    from explorer.probing.scores import layers_within_noise

    # Layer 2's mean is below the best's band, but its own error bar reaches it: it cannot be
    # told apart from the best either (the page read 'best at layers 1, 3–6' skipping it).
    scores = pd.DataFrame(
        {
            "layer": range(5),
            "accuracy_mean": [0.50, 0.86, 0.84, 0.88, 0.90],
            "accuracy_std": [0.02, 0.03, 0.03, 0.03, 0.05],
        }
    )
    assert layers_within_noise(scores) == [1, 2, 3, 4]


def test_the_notice_says_which_layers_inside_the_band_dip_lower():
    import pandas as pd

    from explorer.probing.scores import best_layers, probe_notice

    scores = pd.DataFrame(
        {
            "features": ["mean"] * 7,
            "layer": range(7),
            "accuracy_mean": [0.40, 0.86, 0.60, 0.87, 0.88, 0.89, 0.88],
            "accuracy_std": [0.02, 0.03, 0.02, 0.03, 0.03, 0.03, 0.03],
            "baseline": [0.25] * 7,
        }
    )
    best = best_layers(scores)
    assert best.iloc[0]["within_noise"] == "1, 3–6"
    notice = probe_notice(best)
    assert "layers 1, 3–6 (layer 2 in between dips lower)" in notice


def test_probe_notice_names_the_choices_that_tie_at_two_decimals():
    # issue 33.3: "The weakest choice, max, peaks at 0.70" when mean showed 0.70 too
    from explorer.probing.scores import probe_notice

    labels = {"cls": "[CLS] token", "mean": "Mean of tokens", "max": "Max over tokens"}
    three = ("cls", "mean", "max")
    text = probe_notice(
        best_layers(_scores([0.5, 0.9, 0.6, 0.701, 0.6, 0.699], strategies=three)), labels
    )
    assert "The weakest choices, mean of tokens and max over tokens, peak at 0.70 each." in text
    text = probe_notice(
        best_layers(_scores([0.5, 0.9, 0.6, 0.899, 0.6, 0.7], strategies=three)), labels
    )
    assert "The peak is the same (0.90) with mean of tokens." in text
    assert "The weakest choice, max over tokens, peaks at 0.70." in text
    tied = probe_notice(best_layers(_scores([0.5, 0.9, 0.6, 0.899])), labels)
    assert "The peak is the same (0.90) with mean of tokens." in tied and "weakest" not in tied
