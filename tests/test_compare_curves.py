"""explorer.compare.depth_curves against the single-model functions of Word in context, How
contextual? and Which layer?, and its figure (two traces per measure)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer import context as ctx
from explorer.codegen.compare import depth_curves_snippet
from explorer.compare import MEASURES, depth_curves, depth_notice
from explorer.compare._curves import pooled_sense_gap
from explorer.data import corpora
from explorer.explain import classic_measures
from explorer.figures.compare_curves import depth_curves_figure
from explorer.model.ref import ModelRef
from explorer.probing import layer_scores
from explorer.words import word_layer_vectors
from tests.snippets import run_snippet


@pytest.fixture(scope="module")
def other(other_tokenizer_path) -> explorer.Model:
    return explorer.load_model(other_tokenizer_path)


@pytest.fixture(scope="module")
def inputs():
    senses = corpora.load_senses()
    senses = senses[senses["word"].isin(["bank", "bat"])].reset_index(drop=True)
    topics = corpora.load_topics().groupby("topic").head(6)
    return senses, topics["text"].tolist(), topics["topic"].tolist()


@pytest.fixture(scope="module")
def curves(tiny, other, inputs):
    senses, texts, labels = inputs
    seen = []
    frame = depth_curves(
        tiny, other, senses, texts, labels, progress=lambda d, t: seen.append((d, t))
    )
    frame.attrs["seen"] = seen
    return frame


def _curve(curves: pd.DataFrame, model: str, measure: str) -> np.ndarray:
    return curves[(curves["model"] == model) & (curves["measure"] == measure)]["value"].to_numpy()


def test_depth_is_layer_over_layers_for_each_model(curves, tiny, other):
    assert list(curves.columns) == ["model", "layer", "depth", "measure", "value"]
    for name, model in (("A", tiny), ("B", other)):
        rows = curves[curves["model"] == name]
        assert set(rows["measure"]) == set(MEASURES)
        for _, group in rows.groupby("measure"):
            assert group["layer"].tolist() == list(range(model.num_layers + 1))
            np.testing.assert_allclose(group["depth"], group["layer"] / model.num_layers)


def test_curves_equal_the_single_model_functions(curves, tiny, other, inputs):
    senses, texts, labels = inputs
    for name, model in (("A", tiny), ("B", other)):
        classic = classic_measures(model, senses["text"].tolist())
        np.testing.assert_allclose(
            _curve(curves, name, "self_similarity"), classic["self_similarity"]
        )
        np.testing.assert_allclose(_curve(curves, name, "anisotropy"), classic["baseline_cosine"])
        probe = layer_scores(model, texts, labels)
        np.testing.assert_allclose(_curve(curves, name, "probe"), probe["accuracy_mean"])
    # One word's sentences alone: the gap is the Word in context page's gap for that word.
    bank = senses[senses["word"] == "bank"]
    alone = depth_curves(tiny, tiny, bank, texts, labels)
    occurrences, vectors = word_layer_vectors(tiny, bank["text"].tolist(), "bank")
    page = ctx.sense_gap(
        ctx.pair_similarities(vectors), ctx.pair_kinds(occurrences, bank["sense"].tolist())
    )
    np.testing.assert_allclose(_curve(alone, "A", "sense_gap"), page["gap"], rtol=1e-6)


def test_each_model_reads_each_text_once(tiny, other, inputs, monkeypatch):
    # the sense gap and the classic measures share one pass over the sense sentences
    senses, texts, labels = inputs
    read: dict[str, list[int]] = {"A": [], "B": []}
    for name, model in (("A", tiny), ("B", other)):

        def counted(batch, *args, name=name, original=model.layer_states, **kwargs):
            read[name].append(len(batch.indices))
            return original(batch, *args, **kwargs)

        monkeypatch.setattr(model, "layer_states", counted)
    depth_curves(tiny, other, senses, texts, labels)
    assert {name: sum(counts) for name, counts in read.items()} == {
        "A": len(senses) + len(texts),
        "B": len(senses) + len(texts),
    }


def test_pooled_gap_from_shared_states_equals_reading_each_word(curves, tiny, other, inputs):
    senses = inputs[0]
    for name, model in (("A", tiny), ("B", other)):
        alone = pooled_sense_gap(model, senses)  # each word's sentences read on their own
        states = model.hidden_states_batch(senses["text"].tolist())
        shared = pooled_sense_gap(model, senses, states)
        np.testing.assert_allclose(shared, alone, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_curve(curves, name, "sense_gap"), alone, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="hidden states for 1"):
        pooled_sense_gap(tiny, senses, states[:1])


def test_progress_reaches_its_total(curves):
    seen = curves.attrs["seen"]
    assert seen and seen[-1][0] == seen[-1][1]
    assert all(0 <= d <= t for d, t in seen)


def test_notice_names_each_models_peak(curves):
    text = depth_notice(curves, "tiny", "other")
    gap_a = _curve(curves, "A", "sense_gap")
    peak = int(np.argmax(gap_a))
    assert f"tiny at layer {peak} (" in text
    assert "sense gap" in text and "probe accuracy" in text


def test_notice_says_how_many_layers_reach_a_shared_peak():
    def rows(model, values):
        n = len(values) - 1
        return pd.DataFrame(
            {
                "model": model,
                "layer": range(n + 1),
                "depth": np.arange(n + 1) / n,
                "measure": "probe",
                "value": values,
            }
        )

    curves = pd.concat([rows("A", [0.9, 1.0, 1.0, 0.95]), rows("B", [0.5, 0.8, 0.7])])
    text = depth_notice(curves, "a", "b")
    assert "a at layer 1 (33% deep, 1.00; 2 of its 4 layers reach it)" in text
    assert "b at layer 1 (50% deep, 0.80)" in text  # one layer at the peak: nothing added


def test_figure_has_two_traces_per_measure_a_solid_b_dashed(curves):
    figure = depth_curves_figure(curves, MEASURES, "tiny", "other")
    assert len(figure.data) == 2 * len(MEASURES)
    for a, b in zip(figure.data[::2], figure.data[1::2], strict=True):
        assert a.line.dash == "solid" and b.line.dash == "dash"
        assert a.legendgroup == "A" and b.legendgroup == "B"
        assert max(a.x) == pytest.approx(1.0) and min(a.x) == 0
    with pytest.raises(ValueError, match="depth"):
        depth_curves_figure(curves.drop(columns="depth"), MEASURES, "a", "b")
    # the legend's bottom clears the top subplot titles (about 25 px tall) and fits the margin
    layout = figure.layout
    plots = layout.height - layout.margin.t - layout.margin.b
    assert layout.legend.yanchor == "bottom"
    assert 39.9 <= (layout.legend.y - 1) * plots <= layout.margin.t - 30


@pytest.mark.parametrize("random_b", [False, True])
def test_snippet_prints_each_models_peaks(tiny_bert_path, other_tokenizer_path, random_b):
    b = ModelRef(tiny_bert_path, random=True) if random_b else ModelRef(other_tokenizer_path)
    source = depth_curves_snippet(ModelRef(tiny_bert_path), b, senses=40, topics=12)
    namespace, printed = run_snippet(source)
    curves = namespace["curves"]
    assert set(curves["model"]) == {"A", "B"}
    assert printed.count("peak") == 2 * len(MEASURES)
    best = curves[(curves["model"] == "A") & (curves["measure"] == "probe")]["value"].max()
    assert f"A probe: peak {best:.3f}" in printed


def test_the_probe_subplot_draws_the_chance_line(curves):
    # all-mpnet-base-v2's random weights probed the topic at 0.05-0.11 with nothing to read it
    # against: four topics, no line saying what guessing scores.
    from explorer.figures.compare_curves import CHANCE_NAME

    figure = depth_curves_figure(curves, MEASURES, "tiny", "other", chance=0.26)
    (line,) = [t for t in figure.data if t.name.startswith(CHANCE_NAME)]
    assert list(line.y) == [0.26, 0.26] and line.line.dash == "dot"
    keys = [k for k in MEASURES if (curves["measure"] == k).any()]
    index = keys.index("probe")
    probes = [t for t in figure.data if t.legendgroup == "A"]
    assert (line.xaxis, line.yaxis) == (probes[index].xaxis, probes[index].yaxis)
    assert len(depth_curves_figure(curves, MEASURES, "tiny", "other").data) == 2 * len(keys)
