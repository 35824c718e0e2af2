"""Probes on a corpus store: same scores as on embed_corpus vectors, real layer numbers,
label columns checked, honest stratified samples."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from explorer import probing
from explorer.codegen.probe import stored_probe_snippet
from explorer.probing.control import control_notice
from explorer.probing.scores import probe_notice
from explorer.probing.stored import (
    MAX_CLASSES,
    check_label_column,
    column_values,
    label_columns,
    probe_rows,
    store_layer_scores,
    stored_stack,
)
from tests.snippets import assert_prints_headline, run_snippet
from tests.store_helpers import TEXTS, write_csv


@pytest.fixture(scope="module")
def stores(tmp_path_factory, bundled):
    from explorer.data.store import Settings, embed_to_store, open_corpus

    folder = tmp_path_factory.mktemp("probe-stores")
    source = write_csv(folder / "input.csv", TEXTS)
    embed_to_store(bundled, source, folder / "all", label_column="label")
    embed_to_store(bundled, source, folder / "some", Settings(layers=[0, 3, 6]))
    bare = write_csv(folder / "bare.csv", [{"text": r["text"], "id": r["source"]} for r in TEXTS])
    embed_to_store(bundled, bare, folder / "bare")
    topics = [{"text": r["text"], "topic": r["label"]} for r in TEXTS]
    embed_to_store(bundled, write_csv(folder / "topics.csv", topics), folder / "meta")
    return {name: open_corpus(folder / name) for name in ("all", "some", "bare", "meta")}


def test_probe_on_a_store_equals_the_probe_on_embedded_vectors(stores, bundled):
    texts = [row["text"] for row in TEXTS]
    labels = [row["label"] for row in TEXTS]
    for pooling in ("mean", "cls", "mean_max"):
        stored = store_layer_scores(stores["all"], pooling=pooling, folds=3)
        direct = probing.layer_scores(bundled, texts, labels, pooling=pooling, folds=3)
        assert stored["layer"].tolist() == list(range(bundled.num_layers + 1))
        folds = [f"fold_{k}" for k in (1, 2, 3)]
        np.testing.assert_allclose(stored[folds], direct[folds], atol=1e-6)
        assert stored.attrs["baseline"] == direct.attrs["baseline"]
        assert not stored.attrs["rows"].sampled


def test_a_store_with_some_layers_is_probed_at_those_layers(stores):
    full = store_layer_scores(stores["all"], folds=3).set_index("layer")
    some = store_layer_scores(stores["some"], "label", folds=3)
    assert some["layer"].tolist() == [0, 3, 6]
    np.testing.assert_allclose(
        some["accuracy_mean"], full.loc[[0, 3, 6], "accuracy_mean"], atol=1e-6
    )
    layers, stack = stored_stack(stores["some"], "mean", [5, 1])
    assert layers == (0, 3, 6) and stack.shape == (3, 2, 384) and stack.dtype == np.float32
    np.testing.assert_allclose(stack[1], stores["some"].sentence("mean", 3, rows=[5, 1]))


def test_without_layer_zero_the_embedding_layer_is_not_claimed():
    plan = probing.plan_folds(["a", "b"] * 6, folds=2)
    rng = np.random.default_rng(0)
    scores = probing.score_layers(rng.normal(size=(2, 12, 4)), plan, layers=[3, 6])
    assert scores["layer"].tolist() == [3, 6]
    best = probing.best_layers(scores.assign(features="mean"))
    assert math.isnan(best.loc[0, "embedding_layer"])
    assert "was not probed" in probing.scores.probe_notice(best)
    with pytest.raises(ValueError, match="2 layer numbers"):
        probing.score_layers(rng.normal(size=(3, 12, 4)), plan, layers=[3, 6])


def test_label_columns_say_which_columns_can_be_probed(stores):
    checked = {c.name: c for c in label_columns(stores["all"])}
    assert list(checked) == ["label", "score", "source"]
    assert checked["label"].usable and checked["label"].classes == 4
    assert "single text" in checked["score"].problem
    assert not checked["source"].usable
    bare = label_columns(stores["bare"])
    assert [c.name for c in bare] == ["id"] and not bare[0].usable
    with pytest.raises(ValueError, match="no label column"):
        store_layer_scores(stores["bare"])
    with pytest.raises(ValueError, match="cannot be probed"):
        store_layer_scores(stores["bare"], "id")
    with pytest.raises(ValueError, match="no column 'nope'"):
        column_values(stores["all"], "nope")


def test_check_label_column_limits():
    assert check_label_column("x", ["a"] * 5).problem == "a single value ('a')"
    assert check_label_column("x", [None, float("nan"), " "]).problem == "no values"
    many = check_label_column("x", [str(i // 2) for i in range(2 * (MAX_CLASSES + 1))])
    assert "51 different values" in many.problem
    gaps = check_label_column("x", ["a", "a", None, "b", "b", ""])
    assert gaps.usable and gaps.missing == 2 and gaps.rarest == 2


def test_probe_rows_keep_everything_under_the_limit_and_drop_missing_values():
    chosen = probe_rows(["a", None, "b", "a", "", "b"], limit=10)
    assert chosen.rows.tolist() == [0, 2, 3, 5]
    assert chosen.labels == ("a", "b", "a", "b")
    assert chosen.missing == 2 and not chosen.sampled
    assert "2 of 6 rows have no value" in chosen.note


def test_probe_rows_sample_is_stratified_reproducible_and_said():
    values = ["big"] * 9000 + ["mid"] * 900 + ["rare"] * 3
    chosen = probe_rows(values, limit=1000, seed=1)
    counts = pd.Series(chosen.labels).value_counts()
    assert len(chosen.rows) == 1000 and chosen.sampled
    assert counts["big"] == pytest.approx(909, abs=2) and counts["mid"] == pytest.approx(91, abs=2)
    assert counts["rare"] >= 2
    assert np.all(np.diff(chosen.rows) > 0)
    assert [values[i] for i in chosen.rows] == list(chosen.labels)
    assert "Probing 1,000 of 9,903 rows, sampled at random" in chosen.note
    assert probe_rows(values, limit=1000, seed=1).rows.tolist() == chosen.rows.tolist()
    assert probe_rows(values, limit=1000, seed=2).rows.tolist() != chosen.rows.tolist()
    with pytest.raises(ValueError, match="at least 2"):
        probe_rows(values, limit=1)


def _run(source: str, corpus) -> tuple[dict, str]:
    folder = f"path/to/{corpus.path.name}"
    assert source.count(repr(folder)) == 1
    return run_snippet(source.replace(repr(folder), repr(str(corpus.path))))


@pytest.mark.parametrize(("store", "column", "layer"), [("some", "label", 3), ("meta", "topic", 6)])
def test_snippet_reproduces_the_probe_on_the_store(stores, store, column, layer):
    corpus = stores[store]
    scores = store_layer_scores(corpus, column, "mean_max", folds=3, limit=12, control=True)
    chosen = scores.attrs["rows"]
    assert chosen.sampled and len(chosen.rows) == 12
    is_label = column == corpus.label_column
    source = stored_probe_snippet(str(corpus.path), column, is_label, layer, "mean_max", 3, 0, 12)
    assert str(corpus.path.parent) not in source
    namespace, printed = _run(source, corpus)
    assert namespace["chosen"].rows.tolist() == chosen.rows.tolist()
    assert namespace["layers"] == scores["layer"].tolist() == list(corpus.layers)
    np.testing.assert_allclose(namespace["scores"], scores.filter(like="fold_"), atol=1e-6)
    np.testing.assert_allclose(namespace["control"].mean(axis=1), scores["control_mean"], atol=1e-6)
    assert namespace["baseline"] == pytest.approx(scores.attrs["baseline"])
    scores = scores.assign(features="mean_max")
    headline = probe_notice(probing.best_layers(scores)) + " " + control_notice(scores)
    assert_prints_headline(printed, headline)  # issue 33.5: every layer's numbers, not one's


def test_one_long_label_costs_no_more_than_a_short_one_when_sampling():
    """Issue 32: the sample sorted the labels as a fixed-width string array (rows x longest
    label x 4 bytes: 800 MB for 5,000 rows and one 40,000-character label)."""
    import tracemalloc

    short = [("a", "b", "c")[i % 3] for i in range(5_000)]
    long = list(short)
    long[11] = "x" * 40_000
    probe_rows(short, limit=100)  # first-call costs out of the way
    peaks = []
    for values in (short, long):
        tracemalloc.start()
        try:
            found = probe_rows(values, limit=100)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert found.sampled and 90 <= len(found.rows) <= 110
    assert peaks[1] - peaks[0] < 2 * 2**20, peaks
