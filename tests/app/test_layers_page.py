"""AppTest of the Layers page: charts, statistics, outliers, widgets and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.model import Model
from tests.app.rendered import plain

CHARTS = (
    "layers.token_histogram",
    "layers.layer_histogram",
    "layers.grid",
    "layers.stats_chart",
    "layers.dimensions",
    "layers.norms",
    "layers.cka",
    "layers.positions",
)


def _chart(at, key: str) -> dict:
    """The plotly figure (as a dict) of the chart with ``key``."""
    charts = [c for c in at.get("plotly_chart") if c.key == key]
    assert len(charts) == 1, [c.key for c in at.get("plotly_chart")]
    return json.loads(charts[0].proto.spec)


def _stats(at):
    return next(d for d in at.dataframe if "kurtosis" in d.value.columns).value


def _layers_code(at) -> str:
    """The page's main "Show code" snippet (the hidden states), not a section's."""
    codes = [c.value for c in at.code if "layer, token = " in c.value]
    assert len(codes) == 1, len(codes)
    return codes[0]


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


@pytest.mark.slow
def test_first_load_has_the_charts_tables_and_code(page):
    at = page("layers")
    assert not at.error
    assert {c.key for c in at.get("plotly_chart")} == set(CHARTS)
    stats = _stats(at)
    assert stats["layer"].tolist() == list(range(7))  # the bundled model: 6 layers + embeddings
    assert (stats["tokens"] == 22).all()
    assert at.selectbox(key="layers.token").value == 6  # the first "bank", not "the"
    assert at.selectbox(key="layers.token").format_func(6) == "6: bank"
    assert at.slider(key="layers.layer").value == 5
    token_figure = _chart(at, "layers.token_histogram")
    assert token_figure["layout"]["xaxis"]["title"]["text"] == "value"
    grid = _chart(at, "layers.grid")
    assert len(grid["data"]) == 7
    outliers = next(d for d in at.dataframe if "dimension" in d.value.columns).value
    assert 0 < len(outliers) < 60
    assert any("stand" in m.value and "out" in m.value for m in at.markdown)
    code = _layers_code(at)
    assert "output_hidden_states=True" in code and "layer, token = 5, 6" in code
    # Where is a token? The bundled BERT's 512 positions, 2-D and cosines, with a sentence.
    positions = _chart(at, "layers.positions")
    assert len(positions["data"][0]["text"]) == 512 and positions["data"][1]["type"] == "heatmap"
    assert any(
        "The 512 positions (from 0) have a mean cosine of" in plain(i.value) for i in at.info
    )
    assert any("position_embeddings" in c.value and "cosines" in c.value for c in at.code)


@pytest.mark.slow
def test_token_and_layer_change_the_histograms_without_a_forward_pass(page, monkeypatch):
    calls = []
    original = Model.hidden_states

    def counting(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Model, "hidden_states", counting)
    at = page("layers")
    before = _chart(at, "layers.token_histogram")
    grid_before = _chart(at, "layers.grid")
    forward_passes = len(calls)

    at.selectbox(key="layers.token").set_value(5).run()
    _ok(at)
    after_token = _chart(at, "layers.token_histogram")
    assert after_token != before
    assert "5: the" in after_token["layout"]["title"]["text"]
    assert _chart(at, "layers.grid") != grid_before
    assert "layer, token = 5, 5" in _layers_code(at)

    at.slider(key="layers.layer").set_value(2).run()
    _ok(at)
    after_layer = _chart(at, "layers.token_histogram")
    assert after_layer != after_token
    assert "Layer 2" in after_layer["layout"]["title"]["text"]
    assert "layer 2" in _chart(at, "layers.layer_histogram")["layout"]["title"]["text"].lower()

    at.radio(key="layers.mode").set_value("overlay").run()
    _ok(at)
    assert len(_chart(at, "layers.layer_histogram")["data"]) == 22
    at.toggle(key="layers.log_counts").set_value(True).run()
    _ok(at)
    assert _chart(at, "layers.token_histogram")["layout"]["yaxis"]["type"] == "log"
    at.slider(key="layers.threshold").set_value(3.0).run()
    _ok(at)
    assert len(calls) == forward_passes  # display options never re-run the model
    at.text_area(key="layers.text").input("A counted forward pass, once.").run()
    _ok(at)
    assert len(calls) == forward_passes + 1  # ... while a new text does (the counter works)


@pytest.mark.slow
def test_changing_the_text_changes_the_statistics(page):
    at = page("layers")
    before = _stats(at)
    at.text_area(key="layers.text").input("The river bank was muddy.").run()
    _ok(at)
    assert not at.error
    after = _stats(at)
    assert (after["tokens"] == 8).all()
    assert not after["std"].equals(before["std"])
    assert "The river bank was muddy." in _layers_code(at)


@pytest.mark.slow
def test_leaving_out_special_tokens_changes_the_table(page):
    at = page("layers")
    before = _stats(at)
    at.toggle(key="layers.special").set_value(False).run()
    _ok(at)
    after = _stats(at)
    assert (after["tokens"] == 20).all()
    assert (after["max_abs"] < before["max_abs"]).any()


@pytest.mark.slow
def test_a_shorter_text_resets_a_token_that_no_longer_exists(page):
    at = page("layers")
    at.selectbox(key="layers.token").set_value(19).run()
    at.text_area(key="layers.text").input("A bank.").run()
    _ok(at)
    assert at.selectbox(key="layers.token").value < 5


@pytest.mark.slow
@pytest.mark.parametrize("text", ["", "   \n "])
def test_empty_text_shows_an_error_not_a_traceback(page, text):
    at = page("layers")
    at.text_area(key="layers.text").input(text).run()
    _ok(at)
    assert at.error and "empty" in at.error[0].value
    assert not at.get("plotly_chart")


@pytest.mark.slow
def test_the_page_opens_with_a_summary_it_computed(page):
    at = page("layers")
    summary = next(d for d in at.dataframe if "change" in d.value.columns).value
    assert summary["layer"].tolist() == list(range(7))
    notice = plain(at.info[0].value)
    most = int(summary["change"].iloc[1:].idxmin())
    assert f"“bank” changes most from layer {most - 1} to layer {most}" in notice
    assert f"cosine {summary['change'].iloc[most]:.2f}" in notice
    at.selectbox(key="layers.token").set_value(2).run()  # "stealing"
    _ok(at)
    assert "“stealing” changes most" in plain(at.info[0].value)


def test_a_new_text_starts_at_its_own_first_ambiguous_word(page):
    at = page("layers")
    _ok(at)
    at.selectbox(key="layers.token").set_value(1).run()  # the visitor picks a token
    assert at.selectbox(key="layers.token").value == 1
    at.text_area(key="layers.text").input("Visitor 0 saw 2 banks by the bank").run()
    _ok(at)
    tokens = at.selectbox(key="layers.token").options
    assert tokens[at.selectbox(key="layers.token").value].startswith("8: bank"), tokens


@pytest.mark.slow
def test_layers_compared_by_cka_trained_then_beside_random_weights(page):
    """The CKA heatmap of the trained model; the toggle adds the random-weights one, and the
    notice reads the step where the two layers differ most off the trained matrix."""
    from tests.app.test_context_page import _array

    at = page("layers")
    _ok(at)
    figure = _chart(at, "layers.cka")
    assert len(figure["data"]) == 1
    trained = _array(figure["data"][0]["z"])
    assert trained.shape == (7, 7) and np.allclose(np.diag(trained), 1.0)
    step = int(np.argmin(np.diag(trained, k=1)))
    notice = next(m.value for m in at.info if "representation changes most" in m.value)
    assert f"between layer {step} and layer {step + 1}" in notice
    assert "random weights" not in notice
    assert any("linear_cka" in c.value for c in at.code)

    at.toggle(key="layers.cka_random").set_value(True).run()
    _ok(at)
    figure = _chart(at, "layers.cka")
    assert len(figure["data"]) == 2
    assert np.allclose(_array(figure["data"][0]["z"]), trained)  # the trained one stays
    assert not np.allclose(_array(figure["data"][1]["z"]), trained)
    assert any("With random weights the mean CKA" in m.value for m in at.info)


@pytest.mark.slow
def test_layers_compared_says_why_a_baseline_is_refused(page, monkeypatch):
    """A server that cannot keep a second copy of the weights refuses the baseline: the page
    shows the refusal and still draws the trained model's heatmap."""
    from explorer.model import loading
    from explorer.ui import compute

    compute.clear()  # no random-weights states kept from an earlier test

    def refuse(weight_bytes, max_bytes):
        return "The comparison with random weights needs a second copy of this model."

    monkeypatch.setattr(loading, "twin_refusal", refuse)
    at = page("layers")
    at.toggle(key="layers.cka_random").set_value(True).run()
    _ok(at)
    assert any("second copy of this model" in w.value for w in at.warning)
    assert len(_chart(at, "layers.cka")["data"]) == 1
