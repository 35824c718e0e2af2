"""The probe page's figures, the built-in word senses end to end and the generated snippet
(the probe itself: tests/test_probing_*)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from explorer import probing
from explorer.codegen.probe import DATA_FILE, probe_data, probe_snippet
from explorer.data import corpora
from explorer.figures.probe import head_comparison_figure, head_notice, layer_accuracy_figure
from explorer.model.ref import ModelRef
from tests.snippets import assert_prints_headline, run_snippet
from tests.test_probing_scores import toy_set


def test_figures():
    scores = pd.DataFrame(
        {
            "features": ["cls"] * 3 + ["mean"] * 3,
            "layer": [0, 1, 2] * 2,
            "accuracy_mean": [0.5, 0.7, 0.6, 0.5, 0.8, 0.8],
            "accuracy_std": [0.1] * 6,
            "baseline": [0.5] * 6,
        }
    )
    figure = layer_accuracy_figure(scores, 0.5, {"cls": "[CLS]", "mean": "Mean"})
    names = [trace.name for trace in figure.data]
    assert names[:2] == ["[CLS]", "Mean"] and "baseline" in names[2].lower()
    assert figure.layout.xaxis.title.text and figure.layout.yaxis.title.text
    assert all(trace.hovertemplate for trace in figure.data)
    controlled = scores.assign(control_mean=[0.5, 0.55, 0.5, 0.5, 0.5, 0.6])
    controlled["selectivity"] = controlled["accuracy_mean"] - controlled["control_mean"]
    figure = layer_accuracy_figure(controlled, 0.5, {"cls": "[CLS]", "mean": "Mean"})
    by_name = {trace.name: trace for trace in figure.data}
    assert by_name["Mean: control task"].line.dash == "dot"
    assert by_name["Mean: control task"].line.color == by_name["Mean"].line.color
    np.testing.assert_allclose(by_name["Mean: selectivity"].y, [0.0, 0.3, 0.2])
    assert by_name["Mean: selectivity"].yaxis == "y2" and by_name["Mean"].yaxis == "y"
    assert figure.layout.yaxis2.title.text == "Selectivity"
    gap = figure.layout.yaxis.domain[0] - figure.layout.yaxis2.domain[1]
    plot_height = (figure.layout.height or 450) - 60 - 10  # less the top and bottom margins
    assert gap * plot_height >= 45, "the top panel's layer numbers sit on the lower panel"
    heads = pd.DataFrame({"head": ["linear", "cnn"], "accuracy_mean": [0.8, 0.7],
                          "accuracy_std": [0.05, 0.1]})  # fmt: skip
    bars = head_comparison_figure(heads, 0.5)
    assert list(bars.data[0].x) == ["linear", "cnn"] and bars.layout.title.text
    # what to notice: within noise (0.1 apart, the CNN's std 0.1), then each way out of it
    assert "0.700 ± 0.100 and the linear probe 0.800 ± 0.050: within one" in head_notice(heads, 3)
    heads["accuracy_std"] = 0.02
    assert head_notice(heads, 3).endswith(
        "the CNN has many more weights to learn from the same few texts."
    )
    heads["accuracy_mean"] = [0.7, 0.8]
    assert "the tokens hold more" in head_notice(heads, 3)


@pytest.mark.slow
def test_built_in_word_senses_need_context(bundled):
    """The issue's "done when": layer 0 near the majority baseline, later layers well above."""
    frame = corpora.load_dataset("Word senses (all words)")
    start = time.perf_counter()
    scores = probing.layer_scores(
        bundled, list(frame["text"]), list(frame["label"]), word=list(frame["word"])
    )
    elapsed = time.perf_counter() - start
    baseline = scores.attrs["baseline"]
    assert baseline == pytest.approx(112 / 238)
    assert abs(scores["accuracy_mean"].iloc[0] - baseline) < 0.1
    assert scores["accuracy_mean"].iloc[1:].min() > baseline + 0.3
    print(f"\nword senses: {scores[['layer', 'accuracy_mean']].round(3).values.tolist()}, "
          f"baseline {baseline:.3f}, {elapsed:.1f} s")  # fmt: skip


def _with_data(tmp_path, texts, labels, words=None, spans=None):
    """The folder a probe snippet runs in: its data file there when it reads one."""
    data = probe_data(texts, labels, words, spans)
    if data is not None:
        (tmp_path / DATA_FILE).write_bytes(data)
    return tmp_path


def _headline(scores: pd.DataFrame, what: str = "label") -> str:
    """The page's headline for one strategy's ``scores``: probe notice and control notice."""
    from explorer.probing.control import control_notice
    from explorer.probing.scores import probe_notice

    return probe_notice(probing.best_layers(scores), what=what) + " " + control_notice(scores)


def test_snippet_reproduces_every_layer_of_a_sentence_task(tiny, tiny_bert_path, tmp_path):
    texts, labels = toy_set()
    scores = probing.layer_scores(tiny, texts, labels, pooling="mean_max", folds=3, control=True)
    namespace, printed = run_snippet(
        probe_snippet(ModelRef(tiny_bert_path), texts, labels, 2, "mean_max", folds=3),
        "<probe snippet>",
        _with_data(tmp_path, texts, labels),
    )
    assert namespace["layers"] == list(range(tiny.num_layers + 1))
    np.testing.assert_allclose(namespace["scores"], scores.filter(like="fold_"), atol=1e-6)
    np.testing.assert_allclose(namespace["control"].mean(axis=1), scores["control_mean"], atol=1e-6)
    assert namespace["baseline"] == pytest.approx(scores.attrs["baseline"], abs=1e-6)
    # issue 33.5: the snippet probed one layer, so the headline's layer-0 accuracy (0.81 here,
    # the best layer 1 at 0.83) and the most selective layer were never printed
    headline = _headline(scores.assign(features="mean_max"))
    assert "The embedding layer (0)" in headline
    assert_prints_headline(printed, headline)
    assert (
        f"layer 2, each fold: {np.round(scores.filter(like='fold_').iloc[2].values, 4)}" in printed
    )


def test_snippet_reproduces_every_layer_of_a_grouped_word_task(tiny, tiny_bert_path, tmp_path):
    texts = [f"The {w} is near the bank." for w in ("river", "money", "fish", "cash")] * 3
    texts += [f"A {w} bat flew by." for w in ("small", "wooden", "black", "cricket")] * 3
    labels = ["river", "finance"] * 6 + ["animal", "sport"] * 6
    words = ["bank"] * 12 + ["bat"] * 12
    scores = probing.layer_scores(
        tiny, texts, labels, word=words, folds=3, subwords="first", control=True
    )
    features = probing.word_features(tiny, texts, words)
    spans = [(o.char_start, o.char_end) for o in features.occurrences]
    folds = scores.attrs["folds"]  # lowered to 2: each sense has two distinct texts, repeated
    assert folds == 2
    source = probe_snippet(
        ModelRef(tiny_bert_path), texts, labels, 3, "first", folds, 0, words, spans
    )
    assert texts[0] not in source  # 24 rows: read from the data file, not written out
    assert len(source.splitlines()) < 110  # a program a student reads through
    folder = _with_data(tmp_path, texts, labels, words, spans)
    namespace, printed = run_snippet(source, "<probe snippet>", folder)
    np.testing.assert_allclose(namespace["stack"], features.vectors["first"], atol=1e-4)
    np.testing.assert_allclose(namespace["scores"], scores.filter(like="fold_"), atol=1e-6)
    np.testing.assert_allclose(namespace["control"].mean(axis=1), scores["control_mean"], atol=1e-6)
    assert namespace["baseline"] == pytest.approx(0.5)
    assert_prints_headline(printed, _headline(scores.assign(features="first"), "word's sense"))
