"""Figures and what-to-notice sentences of the explanations, on two models."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.explain import classic_measures, explain_similarity, layer_cka, sense_accuracy
from explorer.figures.explain import (
    cka_heatmaps,
    classic_figure,
    pair_heatmap,
    shaded_tokens_html,
)
from explorer.figures.explain_notices import cka_notice, classic_notice, explanation_notice
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
    where = int(np.argmin(np.diag(trained, k=1)))
    assert f"between layer {where} and layer {where + 1}" in notice
    off = ~np.eye(len(trained), dtype=bool)
    assert f"{untrained[off].mean():.2f}, trained {trained[off].mean():.2f}" in notice


@pytest.mark.slow
def test_classic_figure_and_notice(model):
    measures = classic_measures(model)
    senses = sense_accuracy(model, ["bank", "plant"])
    figure = classic_figure(measures, senses)
    assert len(figure.data) == 6
    notes = classic_notice(measures, senses)
    assert len(notes) == 4
    falls = (
        measures["self_similarity_adjusted"].iloc[-1] < measures["self_similarity_adjusted"].iloc[1]
    )
    assert ("as the paper found" in notes[1]) == falls
    assert "Ethayarajh (2019)" in notes[0] and "Coenen et al. (2019)" in notes[3]
    assert f"best {senses['accuracy'].max():.0%}" in notes[3]
