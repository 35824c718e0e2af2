"""Identical texts share a fold (issue 33.2): a probe cannot score by recognising a text it
was trained on, in the library, on features from a model, and on a saved corpus."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import probing
from explorer.probing.folds import plan_folds, text_key
from explorer.probing.scores import score_layers


def _duplicated(distinct: int = 40, copies: int = 5, seed: int = 0):
    """``distinct`` texts, each ``copies`` times (with case and spacing changed), a random
    label per distinct text, and a random 64-d vector per distinct text (the same for its
    copies, as a model gives): ``(texts, labels, features (n, 64), meaningful labels)``."""
    rng = np.random.default_rng(seed)
    base = [f"Ticket number {i}: the printer is broken again" for i in range(distinct)]
    random = rng.choice(["billing", "hardware"], size=distinct)
    vectors = rng.normal(size=(distinct, 64)).astype(np.float32)
    meaningful = np.where(vectors[:, 0] > 0, "billing", "hardware")
    order = rng.permutation(np.repeat(np.arange(distinct), copies))
    spellings = [str.upper, str.lower, lambda t: f"  {t} ", lambda t: t.replace(" ", "\t"), str]
    texts = [spellings[k % len(spellings)](base[i]) for k, i in enumerate(order)]
    return texts, random[order].tolist(), vectors[order], meaningful[order].tolist()


def test_text_key_ignores_case_and_spacing():
    assert text_key("  Hello\t WORLD \n") == text_key("hello world") == "hello world"
    assert text_key("hello, world") != text_key("hello world")


def test_identical_texts_never_straddle_train_and_test():
    texts, labels, _, _ = _duplicated()
    plan = plan_folds(labels, folds=5, texts=texts)
    assert plan.duplicates == 160
    assert any("160 of the 200 rows repeat a text" in note for note in plan.notes)
    tested = np.sort(np.concatenate([test for _, test in plan.splits]))
    assert tested.tolist() == list(range(200))
    for train, test in plan.splits:
        assert not {text_key(texts[i]) for i in train} & {text_key(texts[i]) for i in test}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_labels_on_duplicated_texts_stay_at_chance(seed):
    texts, labels, features, _ = _duplicated(seed=seed)
    stack = np.stack([features, features])
    grouped = score_layers(stack, plan_folds(labels, folds=5, texts=texts))
    assert grouped["accuracy_mean"].max() < 0.7  # chance is about 0.5
    # the same probe with rows split at random memorises the repeated texts
    leaky = score_layers(stack, plan_folds(labels, folds=5))
    assert leaky["accuracy_mean"].min() > 0.9


def test_real_labels_on_duplicated_texts_are_still_read():
    texts, _, features, meaningful = _duplicated()
    # the label is the sign of the first of a few dimensions: a linear probe generalises
    scores = score_layers(features[None, :, :4], plan_folds(meaningful, folds=5, texts=texts))
    assert scores["accuracy_mean"].iloc[0] > 0.8


def test_layer_scores_on_a_model_keep_duplicates_together(tiny):
    texts, labels, _, _ = _duplicated(distinct=24, copies=4, seed=3)
    scores = probing.layer_scores(tiny, texts, labels, folds=4)
    assert any("72 of the 96 rows repeat a text" in note for note in scores.attrs["notes"])
    # random labels: no layer reads them (before, the repeated texts were memorised)
    assert scores["accuracy_mean"].max() < scores["baseline"].iloc[0] + 0.25


def test_distinct_texts_per_class_lower_the_folds_or_refuse():
    texts = ["one", "ONE", "two", "three", "four ", "Four", "five", "six"]
    labels = ["a", "a", "a", "b", "b", "b", "b", "b"]
    plan = plan_folds(labels, folds=5, texts=texts)
    # class a has 2 distinct texts ("one" twice, "two"): 2 folds, said so
    assert plan.folds == 2 and any("2 different texts" in note for note in plan.notes)
    with pytest.raises(ValueError, match=r"single distinct text \(its 2 rows repeat it\)"):
        plan_folds(["a", "a", "b", "b"], folds=2, texts=["x", "X", "y", "z"])
    with pytest.raises(ValueError, match="same text"):
        plan_folds(["a", "b", "a"], folds=2, texts=["x", " x", "X"])
    with pytest.raises(ValueError, match="texts"):
        plan_folds(["a", "b"], folds=2, texts=["x"])


def test_word_groups_count_duplicates_within_each_word():
    texts = ["the bank", "The bank", "old bank", "a bank", "my bank"]
    texts += ["the bat", "a bat", "my bat", "A BAT", "big bat"]
    words = ["bank"] * 5 + ["bat"] * 5
    labels = ["x", "x", "x", "y", "y", "u", "v", "u", "v", "v"]
    plan = plan_folds(labels, words, folds=2, texts=texts)
    assert plan.duplicates == 2  # "the bank" and "a bat" repeat
    for train, test in plan.splits:
        assert not {texts[i].lower() for i in train} & {texts[i].lower() for i in test}


def test_a_saved_corpus_with_repeated_texts_is_probed_with_them_together(tiny, tmp_path):
    from explorer.data.store import embed_to_store, open_corpus
    from explorer.probing.stored import store_layer_scores
    from tests.store_helpers import write_csv

    texts, labels, _, _ = _duplicated(distinct=20, copies=4, seed=5)
    rows = [{"text": t, "label": y} for t, y in zip(texts, labels, strict=True)]
    embed_to_store(tiny, write_csv(tmp_path / "tickets.csv", rows), tmp_path / "store")
    scores = store_layer_scores(open_corpus(tmp_path / "store"), "label", folds=4)
    assert any("60 of the 80 rows repeat a text" in note for note in scores.attrs["notes"])
    assert scores["accuracy_mean"].max() < scores["baseline"].iloc[0] + 0.25
