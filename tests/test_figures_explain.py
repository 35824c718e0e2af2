"""Figures and what-to-notice sentences of the explanations, on two models."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.explain import classic_measures, explain_similarity, layer_cka, sense_accuracy
from explorer.explain._classic import REFERENCES
from explorer.figures.explain import (
    CLASSIC_SERIES,
    cka_heatmaps,
    classic_figure,
    pair_heatmap,
    shaded_tokens_html,
)
from explorer.figures.explain_notices import (
    ABOVE_CHANCE,
    ANISOTROPIC,
    CHANGE,
    cka_notice,
    classic_notice,
    classic_random_notice,
    classic_table,
    explanation_notice,
)
from explorer.model.loading import random_weights

A = "The invoice <b>was</b> paid late, again and again."
B = "They settled the bill after the deadline, again."
TEXTS = ["The bank approved the loan.", "We sat on the river bank.", "Rain fell all night."]


@pytest.fixture(params=["tiny", "bundled"])
def model(request):
    return request.getfixturevalue(request.param)


def test_pair_heatmap_shows_every_pair_with_both_token_axes(model):
    explained = explain_similarity(model, A, B)
    figure = pair_heatmap(explained)
    heatmap = figure.data[0]
    np.testing.assert_allclose(np.asarray(heatmap.z), explained.pairs)
    assert len(set(heatmap.y)) == len(explained.tokens_a)  # repeated tokens stay distinct
    assert heatmap.y[0] == "0 [CLS]" and heatmap.x[-1].endswith("[SEP]")
    assert any("&lt;" in label for label in heatmap.y)  # tokens are escaped
    assert heatmap.zmin == -heatmap.zmax  # centred on 0
    small = pair_heatmap(explained, max_tokens=5)
    assert np.asarray(small.data[0].z).shape == (5, 5)
    assert "the 5 tokens of each text" in small.layout.title.text
    rows = np.sort(np.argsort(-np.abs(explained.token_scores_a))[:5])
    cols = np.sort(np.argsort(-np.abs(explained.token_scores_b))[:5])
    np.testing.assert_allclose(np.asarray(small.data[0].z), explained.pairs[np.ix_(rows, cols)])


def test_cls_has_no_heatmap_but_shaded_tokens(tiny):
    explained = explain_similarity(tiny, A, B, "cls")
    with pytest.raises(ValueError, match="no token pairs"):
        pair_heatmap(explained)
    page = shaded_tokens_html(explained, "a")
    assert page.count("<span") == len(explained.tokens_a)
    assert "&lt;" in page and "<b>" not in page
    notice = explanation_notice(explained)
    assert f"{explained.baseline_scores[0]:.3f}" in notice and "integrated gradients" in notice


def test_shaded_tokens_follow_the_shares(model):
    explained = explain_similarity(model, A, B)
    page = shaded_tokens_html(explained, "b")
    shares = explained.token_shares("b")
    strongest = int(np.argmax(np.abs(shares)))
    spans = page.split("<span")[1:]
    assert "0.85)" in spans[strongest]  # the largest share gets the strongest shade
    assert f"({shares[strongest]:.1%})" in spans[strongest]


def test_explanation_notice_is_derived_from_the_numbers(model):
    explained = explain_similarity(model, A, B)
    notice = explanation_notice(explained)
    i, j, value = explained.top_pairs(1)[0]
    assert f"{value / explained.score:.0%} of it" in notice
    assert f"{explained.tokens_a[i]!r} with {explained.tokens_b[j]!r}" in notice
    special = np.array(explained.special_a)[:, None] | np.array(explained.special_b)[None, :]
    share = explained.pairs[special].sum() / explained.score
    assert ("Pairs with a special token" in notice) == (share >= 0.15)


def test_cka_figure_and_notice_trained_vs_random(model):
    trained = layer_cka(model, TEXTS)
    untrained = layer_cka(random_weights(model), TEXTS)
    figure = cka_heatmaps({"trained": trained, "random weights": untrained})
    assert len(figure.data) == 2
    np.testing.assert_allclose(np.asarray(figure.data[1].z), untrained)
    notice = cka_notice(trained, untrained)
    steps = np.round(np.diag(trained, k=1), 2)  # as shown
    if (steps == steps[0]).all():  # every step ties at the precision shown
        assert "no step stands out" in notice
    else:
        where = int(np.argmin(steps))
        assert f"between layer {where} and layer {where + 1}" in notice
    off = ~np.eye(len(trained), dtype=bool)
    assert f"{untrained[off].mean():.2f}, trained {trained[off].mean():.2f}" in notice


@pytest.fixture(scope="module")
def classic_results(request):
    """``{model name: (measures, senses)}`` for the tiny random BERT and the bundled model,
    the senses of two words (computed once for the module)."""
    results = {}
    for name in ("tiny", "bundled"):
        model = request.getfixturevalue(name)
        results[name] = (classic_measures(model), sense_accuracy(model, ["bank", "plant"]))
    return results


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tiny", "bundled"])
def test_classic_figure_and_notice(classic_results, name):
    measures, senses = classic_results[name]
    figure = classic_figure(measures, senses, mev_reference=REFERENCES["mev"].value)
    assert len(figure.data) == 7  # the MEV reference's legend entry last
    assert [t.xaxis for t in figure.data[:6]] == ["x", "x", "x", "x", "x2", "x2"]  # two panels
    assert figure.layout.yaxis2.tickformat == ".0%" and figure.layout.xaxis.title.text
    assert figure.layout.shapes[0].y0 == REFERENCES["mev"].value
    notes = classic_notice(measures, senses)
    assert len(notes) == 5
    cosine = measures["baseline_cosine"]
    assert ("unlike the anisotropy" in notes[0]) == bool((cosine < ANISOTROPIC).any())
    assert f"{cosine.min():.2f} to {cosine.max():.2f}" in notes[0]
    adjusted = measures["self_similarity_adjusted"]
    change = adjusted.iloc[-1] - adjusted.iloc[1]
    assert ("as the paper found" in notes[1]) == (change <= -CHANGE)
    assert ("unlike the paper" in notes[1]) == (change > -CHANGE)
    assert f"{adjusted.iloc[1]:.2f} at layer 1" in notes[1]
    mev = measures["mev_adjusted"]
    assert ("above the paper's under-5%" in notes[3]) == bool((mev > 0.05).any())
    accuracy, chance = senses["accuracy"], senses["chance"].iloc[0]
    assert ("barely above chance" in notes[4]) == (accuracy.max() - chance < ABOVE_CHANCE)
    tied = [int(i) for i in accuracy.index if f"{accuracy[i]:.0%}" == f"{accuracy.max():.0%}"]
    named = f"layer {tied[0]}" if len(tied) == 1 else "layers " + ", ".join(map(str, tied[:-1]))
    assert f"best {accuracy.max():.0%} at {named}" in notes[4]  # every tied layer named
    assert "Ethayarajh (2019)" in notes[0] and "Coenen et al. (2019)" in notes[4]
    table = classic_table(measures, senses)
    assert list(table["source"]) == [r.source for r in REFERENCES.values()]
    assert list(table["BERT-base in the paper"]) == [r.finding for r in REFERENCES.values()]
    assert f"highest {mev.max():.0%} at layer" in table["this model"].iloc[2] or (
        f"{mev.min():.0%}" == f"{mev.max():.0%}"
    )
    assert len(classic_table(measures)) == 3  # no senses, no row for them


@pytest.mark.slow
def test_classic_random_weights_comparison(classic_results):
    trained, random = classic_results["bundled"], classic_results["tiny"]
    figure = classic_figure(*trained, random=random)
    assert len(figure.data) == 6 + 1 + 5  # the model's, one legend entry, random weights'
    dashed = [t for t in figure.data if t.name.endswith("random weights")]
    assert len(dashed) == 6 and all(t.line.dash == "dash" for t in dashed)
    assert [t.name for t in dashed if t.showlegend is not False] == [
        "dashed: the same model with random weights"
    ]
    note = classic_random_notice(trained, random)
    gain = trained[1]["accuracy"].max() - random[1]["accuracy"].max()
    assert f"at best {random[1]['accuracy'].max():.0%}" in note
    assert ("is learned" in note) == (gain >= ABOVE_CHANCE)


@pytest.mark.slow
def test_classic_figure_grows_and_lowers_its_legend_with_the_scale(classic_results):
    # presentation mode: the legend ran over the larger axis titles
    measures, senses = classic_results["tiny"]
    normal = classic_figure(measures, senses)
    large = classic_figure(measures, senses, scale=1.35)
    assert large.layout.height == round(1.35 * normal.layout.height)
    assert large.layout.legend.y == pytest.approx(1.35 * normal.layout.legend.y)
    assert large.layout.legend.y < normal.layout.legend.y < 0  # further below the axes


def test_the_papers_mev_bound_is_named_in_the_legend_not_written_over_the_curves():
    """A label on the reference line at 5 % sat on the anisotropy curve where a model's random
    tokens have a cosine near 0.05-0.1 (all-mpnet-base-v2): the bound is a legend entry."""
    import pandas as pd

    layers = range(4)
    measures = pd.DataFrame({column: [0.06, 0.07, 0.08, 0.05] for column in CLASSIC_SERIES})
    measures.index = layers
    senses = pd.DataFrame({"accuracy": [0.5, 0.8, 0.9, 0.9], "chance": [0.47] * 4}, index=layers)
    figure = classic_figure(measures, senses, mev_reference=0.05)
    assert not [a.text for a in figure.layout.annotations if "MEV" in a.text]
    named = [t for t in figure.data if t.name and "MEV: under 5%" in t.name]
    assert len(named) == 1 and named[0].line.dash == "dash"
    assert figure.layout.shapes[0].y0 == 0.05  # the line itself stays


def test_the_mev_range_says_which_layer_is_highest_and_which_lowest():
    # all-mpnet-base-v2: MEV falls from 78% at layer 0 to 14% at layer 12; "14% to 78%" read
    # as a rise.
    import pandas as pd

    layers = pd.RangeIndex(13, name="layer")
    mev = pd.Series(np.linspace(0.78, 0.14, 13), index=layers)
    measures = pd.DataFrame(
        {
            "baseline_cosine": np.linspace(0.04, 0.15, 13),
            "self_similarity_adjusted": np.linspace(0.9, 0.2, 13),
            "intra_sentence_similarity_adjusted": np.linspace(0.3, 0.8, 13),
            "mev_adjusted": mev,
        },
        index=layers,
    )
    said = "highest 78% at layer 0, lowest 14% at layer 12"
    assert f"Maximum explainable variance (adjusted): {said};" in classic_notice(measures)[3]
    assert classic_table(measures)["this model"].iloc[2] == f"adjusted: {said}"
    flat = measures.assign(mev_adjusted=0.1)
    assert "10% in every layer" in classic_notice(flat)[3]
