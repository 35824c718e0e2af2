"""How contextual?'s IsoScore view: the figure, its sentence against the numbers (hand-made
tables for each case, then real models), and its snippet against the library."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer.codegen.isotropy import isoscore_snippet
from explorer.explain import classic_measures
from explorer.explain._isoscore import dimensions_used
from explorer.figures.explain_notices import ANISOTROPIC
from explorer.figures.isotropy import UNEVEN, isotropy_figure, isotropy_notice
from explorer.model.ref import ModelRef
from tests.snippets import run_snippet

SENTENCES = [
    "The bank was closed on Sunday.",
    "She walked along the bank of the river.",
    "A new bank opened in the town.",
    "The bank raised its rates.",
    "Ducks rested on the muddy bank.",
    "Nobody answered the phone.",
]


def table(isoscore, cosine, dimensions: int = 384) -> pd.DataFrame:
    frame = pd.DataFrame(
        {"isoscore": isoscore, "baseline_cosine": cosine},
        index=pd.RangeIndex(len(isoscore), name="layer"),
    )
    frame.attrs.update(dimensions=dimensions, tokens=1000)
    return frame


def test_the_sentence_says_what_a_low_cosine_hides():
    # Layer 2 has the lowest cosine (0.04 < ANISOTROPIC), yet IsoScore 0.27 < UNEVEN.
    measures = table([0.20, 0.13, 0.27], [0.07, 0.20, 0.04])
    note = isotropy_notice(measures)
    assert "runs from 0.13 at layer 1 to 0.27 at layer 2" in note
    assert f"about {dimensions_used(0.27, 384):.0f} of the 384 dimensions" in note  # 104
    assert f"{dimensions_used(0.13, 384):.0f} at worst" in note  # 51
    assert "At layer 2 the average cosine is only 0.04" in note and "IsoScore is 0.27" in note


def test_the_sentence_says_whether_the_two_agree():
    agree = isotropy_notice(table([0.2, 0.8, 0.5], [0.3, 0.05, 0.2]))  # even use: no warning
    assert "the two agree: layer 1 has both the lowest average cosine (0.05)" in agree
    disagree = isotropy_notice(table([0.2, 0.6, 0.7], [0.3, 0.15, 0.2]))
    assert "lowest at layer 1 (0.15), IsoScore highest at layer 2" in disagree


@pytest.mark.parametrize("fixture", ["bundled", "tiny_bert_path", "distilbert_path"])
def test_figure_and_sentence_on_real_models(request, fixture):
    value = request.getfixturevalue(fixture)
    model = value if fixture == "bundled" else explorer.load_model(value)
    measures = classic_measures(model, SENTENCES, min_contexts=5)
    score, cosine = measures["isoscore"], measures["baseline_cosine"]
    assert ((score >= 0) & (score <= 1)).all()
    assert measures.attrs["dimensions"] == model.hidden_size
    note = isotropy_notice(measures)
    if f"{score.min():.2f}" == f"{score.max():.2f}":  # a random model: every layer alike
        assert f"is {score.max():.2f} at every layer" in note
    else:
        assert f"{score.min():.2f} at layer" in note and f"to {score.max():.2f} at layer" in note
        assert f" {score.idxmin()}" in note.split(" to ")[0] and f" {score.idxmax()}" in note
    flat = cosine.idxmin()
    hides = cosine[flat] < ANISOTROPIC and score[flat] < UNEVEN
    assert (f"At layer {flat} the average cosine is only {cosine[flat]:.2f}" in note) == hides
    shown = score.round(2) == round(score.max(), 2)  # the highest IsoScore as the chart shows it
    lowest = cosine.round(2) == round(cosine.min(), 2)
    assert ("the two agree" in note) == (not hides and bool((shown & lowest).any()))
    figure = isotropy_figure(measures, random=measures)
    assert len(figure.data) == 4
    assert [t.line.dash for t in figure.data] == [None, None, "dash", "dash"]
    assert figure.layout.yaxis.range[0] <= min(score.min(), cosine.min())
    large = isotropy_figure(measures, scale=1.35)
    assert large.layout.height == round(1.35 * isotropy_figure(measures).layout.height)


def test_snippet_prints_the_librarys_isoscore(tiny_bert_path):
    model = explorer.load_model(tiny_bert_path)
    namespace, printed = run_snippet(isoscore_snippet(ModelRef(tiny_bert_path), SENTENCES))
    expected = classic_measures(model, SENTENCES, min_contexts=5)
    np.testing.assert_allclose(namespace["scores"], expected["isoscore"], atol=1e-6)
    # The average cosine of every pair of tokens from different sentences, by brute force.
    states, owner = namespace["states"], namespace["owner"]
    different = owner[:, None] != owner[None, :]
    for layer, cosine in zip(states, namespace["cosines"], strict=True):
        unit = layer / np.linalg.norm(layer, axis=1, keepdims=True)
        assert cosine == pytest.approx((unit @ unit.T)[different].mean())
    rows = printed.strip().splitlines()[1:]
    assert len(rows) == model.num_layers + 1
    first = [float(x) for x in re.findall(r"-?\d+\.\d+", rows[0])]
    assert first[0] == pytest.approx(expected["isoscore"].iloc[0], abs=6e-4)


def test_the_sentence_names_layers_that_tie_at_two_decimals():
    # "IsoScore highest at layer 2" and "the two disagree" when layer 1 showed 0.70 too, with
    # the lowest cosine
    note = isotropy_notice(table([0.2, 0.698, 0.701, 0.3], [0.3, 0.15, 0.2, 0.4]))
    assert "to 0.70 at layers 1 and 2" in note
    assert "the two agree: layer 1 has both the lowest average cosine (0.15)" in note
    apart = isotropy_notice(table([0.2, 0.5, 0.701, 0.698], [0.3, 0.15, 0.2, 0.151]))
    assert "lowest at layers 1 and 3 (0.15), IsoScore highest at layers 2 and 3" not in apart
    assert "the two agree: layer 3" in apart  # layer 3 ties for both at two decimals
    same = isotropy_notice(table([0.301, 0.298, 0.3], [0.3, 0.15, 0.2]))
    assert "IsoScore (Rudman et al. 2022) is 0.30 at every layer" in same
