"""Linear probes per layer: folds, baseline, validation, word features, figure, snippet."""

from __future__ import annotations

import contextlib
import io
import time

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer import corpora, probe
from explorer.codegen.probe import probe_snippet
from explorer.figures.probe import head_comparison_figure, layer_accuracy_figure

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
    scores = probe.layer_scores(tiny, texts, labels, pooling="mean", folds=4)
    assert list(scores["layer"]) == list(range(tiny.num_layers + 1))
    assert {"layer", "accuracy_mean", "accuracy_std", "baseline"} <= set(scores.columns)
    assert scores.attrs["baseline"] == pytest.approx(0.5)
    assert scores.attrs["folds"] == 4
    assert scores["accuracy_mean"].iloc[0] >= 0.95  # the word alone decides the label
    assert (scores["accuracy_std"] >= 0).all()


def test_shuffled_labels_score_near_the_baseline(tiny):
    texts, labels = toy_set()
    shuffled = list(np.random.default_rng(0).permutation(labels))
    scores = probe.layer_scores(tiny, texts, shuffled, pooling="mean", folds=4)
    assert abs(scores["accuracy_mean"].mean() - scores.attrs["baseline"]) < 0.2


def test_word_task_probes_the_word_vector(tiny):
    texts = [f"The {w} is near the bank." for w in ("river", "money", "fish", "cash")] * 3
    labels = ["river", "finance", "river", "finance"] * 3
    scores = probe.layer_scores(tiny, texts, labels, word="bank", folds=3)
    assert len(scores) == tiny.num_layers + 1
    # Static vectors of "bank" at the same position are identical: no better than guessing.
    assert scores["accuracy_mean"].iloc[0] <= 0.5 + 1e-9


def test_per_word_groups_split_and_baseline():
    labels = ["a", "a", "b", "b", "x", "x", "x", "y", "y", "y"]
    words = ["bank"] * 4 + ["bat"] * 6
    plan = probe.plan_folds(labels, words, folds=2)
    assert plan.baseline == pytest.approx(5 / 10)  # 2 of bank's 4 + 3 of bat's 6
    tested = np.sort(np.concatenate([test for _, test in plan.splits]))
    assert list(tested) == list(range(10))  # every row is tested exactly once
    for train, test in plan.splits:
        assert not set(train) & set(test)
        for group in ("bank", "bat"):  # each group is split on its own, stratified
            in_test = [labels[i] for i in test if words[i] == group]
            assert len(set(in_test)) == 2


def test_folds_are_lowered_to_the_rarest_class_with_a_note():
    plan = probe.plan_folds(["a"] * 10 + ["b"] * 3, folds=5)
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
        probe.plan_folds(labels, words, folds)


def test_bad_inputs_to_layer_scores_raise(tiny):
    texts, labels = toy_set()
    with pytest.raises(ValueError, match="48 texts but 47 labels"):
        probe.layer_scores(tiny, texts, labels[:-1])
    with pytest.raises(ValueError, match="Unknown pooling"):
        probe.layer_scores(tiny, texts, labels, pooling="median")
    with pytest.raises(ValueError, match="Unknown subword mode"):
        probe.layer_scores(tiny, texts, labels, word="apple", subwords="middle")
    with pytest.raises(ValueError, match="do not contain their word"):
        probe.layer_scores(tiny, texts, labels, word="apple")
    with pytest.raises(ValueError, match="single string"):
        probe.layer_scores(tiny, "one text", ["a"])


def test_word_features_one_pass_all_modes(tiny):
    texts = ["An embeddings model.", "Word embeddings again, embeddings."]
    features = probe.word_features(tiny, texts, "embeddings")
    assert set(features.vectors) == set(explorer.SUBWORD_MODES)
    assert features.vectors["mean"].shape == (tiny.num_layers + 1, 2, tiny.hidden_size)
    assert [o.text_index for o in features.occurrences] == [0, 1]
    assert features.occurrences[1].char_start == 5  # the first occurrence of the second text
    assert features.num_split == 2  # "embeddings" is several WordPiece tokens
    _, expected = explorer.word_layer_vectors(tiny, texts, "embeddings", "max")
    np.testing.assert_allclose(features.vectors["max"], expected[:, [0, 1]], atol=1e-5)
    assert not np.allclose(features.vectors["first"], features.vectors["last"])


def test_labelled_table_checks_columns():
    rows, task = probe.labelled_table(pd.DataFrame({"Text": ["a b"], " Label ": ["x"]}))
    assert task == "sentence" and list(rows.columns) == ["text", "label"]
    rows, task = probe.labelled_table(pd.DataFrame({"text": ["a"], "word": ["a"], "label": [1]}))
    assert task == "word" and rows.loc[0, "label"] == "1"
    with pytest.raises(ValueError, match="no 'label' column"):
        probe.labelled_table(pd.DataFrame({"text": ["a"], "topic": ["x"]}))
    with pytest.raises(ValueError, match="empty 'text'"):
        probe.labelled_table(pd.DataFrame({"text": ["a", " "], "label": ["x", "y"]}))
    with pytest.raises(ValueError, match="5,000"):
        probe.read_labelled_csv(b"text,label\n" + b"a,b\n" * 5001)


def test_best_layers_and_figures():
    scores = pd.DataFrame(
        {
            "strategy": ["cls"] * 3 + ["mean"] * 3,
            "layer": [0, 1, 2] * 2,
            "accuracy_mean": [0.5, 0.7, 0.6, 0.5, 0.8, 0.8],
            "accuracy_std": [0.1] * 6,
            "baseline": [0.5] * 6,
        }
    )
    best = probe.best_layers(scores)
    assert list(best["strategy"]) == ["mean", "cls"]
    assert best.loc[0, "layer"] == 1  # ties go to the lower layer
    figure = layer_accuracy_figure(scores, 0.5, {"cls": "[CLS]", "mean": "Mean"})
    names = [trace.name for trace in figure.data]
    assert names[:2] == ["[CLS]", "Mean"] and "baseline" in names[2].lower()
    assert figure.layout.xaxis.title.text and figure.layout.yaxis.title.text
    assert all(trace.hovertemplate for trace in figure.data)
    heads = pd.DataFrame({"head": ["linear", "cnn"], "accuracy_mean": [0.8, 0.7],
                          "accuracy_std": [0.05, 0.1]})  # fmt: skip
    bars = head_comparison_figure(heads, 0.5)
    assert list(bars.data[0].x) == ["linear", "cnn"] and bars.layout.title.text


@pytest.mark.slow
def test_built_in_word_senses_need_context(bundled):
    """The issue's "done when": layer 0 near the majority baseline, later layers well above."""
    frame = corpora.load_dataset("Word senses (all words)")
    start = time.perf_counter()
    scores = probe.layer_scores(
        bundled, list(frame["text"]), list(frame["label"]), word=list(frame["word"])
    )
    elapsed = time.perf_counter() - start
    baseline = scores.attrs["baseline"]
    assert baseline == pytest.approx(112 / 238)
    assert abs(scores["accuracy_mean"].iloc[0] - baseline) < 0.1
    assert scores["accuracy_mean"].iloc[1:].min() > baseline + 0.3
    print(f"\nword senses: {scores[['layer', 'accuracy_mean']].round(3).values.tolist()}, "
          f"baseline {baseline:.3f}, {elapsed:.1f} s")  # fmt: skip


def _run(source: str) -> dict:
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, "<probe snippet>", "exec"), namespace)  # noqa: S102
    return namespace


def test_snippet_reproduces_one_layer_sentence_task(tiny, tiny_bert_path):
    texts, labels = toy_set()
    scores = probe.layer_scores(tiny, texts, labels, pooling="mean_max", folds=3)
    namespace = _run(probe_snippet(tiny_bert_path, texts, labels, 2, "mean_max", folds=3))
    np.testing.assert_allclose(namespace["scores"], scores.filter(like="fold_").iloc[2], atol=1e-6)
    assert namespace["baseline"] == pytest.approx(scores.attrs["baseline"], abs=1e-6)


def test_snippet_reproduces_one_layer_grouped_word_task(tiny, tiny_bert_path):
    texts = [f"The {w} is near the bank." for w in ("river", "money", "fish", "cash")] * 3
    texts += [f"A {w} bat flew by." for w in ("small", "wooden", "black", "cricket")] * 3
    labels = ["river", "finance"] * 6 + ["animal", "sport"] * 6
    words = ["bank"] * 12 + ["bat"] * 12
    scores = probe.layer_scores(tiny, texts, labels, word=words, folds=3, subwords="first")
    features = probe.word_features(tiny, texts, words)
    spans = [(o.char_start, o.char_end) for o in features.occurrences]
    source = probe_snippet(tiny_bert_path, texts, labels, 3, "first", 3, 0, words, spans)
    namespace = _run(source)
    np.testing.assert_allclose(namespace["X"], features.vectors["first"][3], atol=1e-4)
    np.testing.assert_allclose(namespace["scores"], scores.filter(like="fold_").iloc[3], atol=1e-6)
    assert namespace["baseline"] == pytest.approx(0.5)
