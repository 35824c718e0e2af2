"""AppTest of "How contextual?": the classic measurements on the bundled model, the papers'
findings beside them, the random-weights comparison and one word up close."""

from __future__ import annotations

import json

import pytest

from explorer.explain._classic import REFERENCES
from tests.app.rendered import plain


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _word_code(at) -> str:
    """The one-word program (the headline's program comes first)."""
    return next(c.value for c in at.code if "\nword = " in c.value)


def _chart(at, key: str = "contextual.chart") -> dict:
    (chart,) = [c for c in at.get("plotly_chart") if c.key == key]
    return json.loads(chart.proto.spec)


def _word_code(at) -> str:
    """The one-word section's snippet (the isotropy section's comes first)."""
    return next(c.value for c in at.code if "word = " in c.value)


@pytest.mark.slow
def test_first_visit_shows_the_measurements_beside_the_papers(page):
    at = page("contextual")
    _ok(at)
    assert at.title[0].value == "How contextual are the model's word vectors?"
    figure = _chart(at)
    names = [trace["name"] for trace in figure["data"]]
    assert "self-similarity (adjusted)" in names and "sense accuracy" in names
    assert not any("random weights" in name for name in names)
    assert figure["layout"]["xaxis"]["title"]["text"] == "layer (0 = embeddings)"
    (notice,) = [plain(i.value) for i in at.info if "What **" in i.value]
    assert "Self-similarity (adjusted) goes from" in notice and "Coenen et al." in notice
    (refs,) = at.table
    assert {plain(s) for s in refs.value["source"]} == {r.source for r in REFERENCES.values()}
    word_table = next(d.value for d in at.dataframe if "sense_accuracy" in d.value.columns)
    assert len(word_table) == 7  # embeddings + 6 layers
    assert "word = 'bank'" in _word_code(at)
    # IsoScore beside the average cosine, its sentence and its code.
    isotropy = [trace["name"] for trace in _chart(at, "contextual.isotropy")["data"]]
    assert isotropy == [
        "IsoScore: how evenly the directions are used",
        "random tokens' average cosine (anisotropy)",
    ]
    assert "IsoScore (Rudman et al. 2022) runs from" in notice
    assert any("def isoscore(points):" in c.value for c in at.code)
    # the headline's program reads the sentences the page offers, as the page names them
    headline = at.code[0].value
    assert "sense_sentences.csv" in headline and "mev_adjusted" in headline


@pytest.mark.slow
def test_random_weights_and_another_word(page):
    at = page("contextual")
    at.toggle(key="contextual.random").set_value(True).run()
    _ok(at)
    names = [trace["name"] for trace in _chart(at)["data"]]
    assert "sense accuracy · random weights" in names
    assert any("With random weights" in plain(i.value) for i in at.info)
    isotropy = [trace["name"] for trace in _chart(at, "contextual.isotropy")["data"]]
    assert "IsoScore: how evenly the directions are used · random weights" in isotropy
    before = _word_code(at)
    at.selectbox(key="contextual.word").set_value("plant").run()
    _ok(at)
    assert _word_code(at) != before and "word = 'plant'" in _word_code(at)


@pytest.mark.slow
def test_a_refused_baseline_leaves_the_measurements_on_screen(page, monkeypatch):
    # Issue 24: with BERT-large the baseline does not fit beside the model; the page stopped
    # with an error box instead of showing the trained model's measurements.
    from explorer.ui import compute

    compute.clear()  # no random-weights measurements kept from an earlier test
    monkeypatch.setenv("EXPLORER_MODEL_MEMORY", "150MB")  # the bundled model's 87 MB, not twice
    at = page("contextual")
    at.toggle(key="contextual.random").set_value(True).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("needs a second copy of this model" in w.value for w in at.warning)
    names = [trace["name"] for trace in _chart(at)["data"]]
    assert "sense accuracy" in names and not any("random weights" in n for n in names)
