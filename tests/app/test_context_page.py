"""AppTest of the "Word in context" page: heatmap, per-layer chart, table, bad input."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from explorer import context as ctx
from explorer.figures.context import BASELINE_NAME
from tests.app.rendered import plain


def _figures(at) -> dict[str, dict]:
    """The page's plotly figures as JSON specs, by their Streamlit key."""
    return {
        chart.key: json.loads(chart.proto.spec)
        for chart in at.get("plotly_chart")
        if chart.key is not None
    }


def _array(value) -> np.ndarray:
    """A plotly JSON array: a plain list, or plotly's base64 ``{"dtype", "bdata", "shape"}``."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = [int(n) for n in str(value.get("shape", flat.size)).split(",")]
        return flat.reshape(shape)
    return np.asarray(value)


def _heatmap(at) -> np.ndarray:
    return _array(_figures(at)["context.heatmap"]["data"][0]["z"])


def _by_layer(at) -> list[dict]:
    return _figures(at)["context.by_layer"]["data"]


def _check(at):
    assert not at.exception, [e.message for e in at.exception]


pytestmark = pytest.mark.slow


def test_default_renders_heatmap_chart_table_and_code(page):
    at = page("context")
    assert not at.error and not at.warning and not at.info
    assert at.text_area(key="context.text").value == "\n".join(ctx.DEFAULT_SENTENCES)
    assert at.text_input(key="context.word").value == "bank"
    assert at.selectbox(key="context.strategy").value == "last"
    assert at.selectbox(key="context.subwords").value == "mean"
    assert "5 occurrences" in at.subheader[0].value
    figures = _figures(at)
    assert set(figures) == {"context.heatmap", "context.by_layer"}
    assert len(_heatmap(at)) == 5
    traces = _by_layer(at)
    assert len(traces) == 10 + 1 and traces[-1]["name"] == BASELINE_NAME
    assert _array(traces[0]["y"]).shape == (7,)  # layers 0..6 of the bundled model
    table = at.dataframe[0].value
    assert table.shape == (10, 7) and table.index[0] == "#1 vs #2"
    code = at.code[0].value
    assert "word = 'bank'" in code and "occurrences[L]" in code
    occurrences = next(m.value for m in at.markdown if "<mark>" in m.value)
    assert occurrences.count("<mark><b>bank</b></mark>") == 5


def test_changing_the_strategy_changes_the_heatmap(page):
    at = page("context")
    before = _heatmap(at)
    at.selectbox(key="context.strategy").set_value("concat_last4").run()
    _check(at)
    assert _heatmap(at).shape == before.shape and not np.allclose(_heatmap(at), before)
    assert "torch.cat(" in at.code[0].value
    assert "concatenation" in _figures(at)["context.heatmap"]["layout"]["title"]["text"]


def test_changing_the_word_changes_the_output(page):
    at = page("context")
    at.text_input(key="context.word").input("man").run()
    _check(at)
    assert not at.error
    assert "2 occurrences" in at.subheader[0].value
    assert len(_heatmap(at)) == 2
    assert len(_by_layer(at)) == 1 + 1


def test_unknown_word_lists_the_words_that_are_there(page):
    at = page("context")
    at.text_input(key="context.word").input("zebra").run()
    _check(at)
    assert at.error
    message = at.error[0].value
    assert "zebra" in message and "does not occur" in message
    assert "robber" in message and "mississippi" in message
    assert not _figures(at)


@pytest.mark.parametrize("text", ["", "  \n \n"])
def test_empty_sentences_show_an_error(page, text):
    at = page("context")
    at.text_area(key="context.text").input(text).run()
    _check(at)
    assert at.error and "no sentences" in plain(at.error[0].value).lower()
    assert not _figures(at)


def test_empty_word_shows_an_error(page):
    at = page("context")
    at.text_input(key="context.word").input("  ").run()
    _check(at)
    assert at.error and "empty" in at.error[0].value


def test_a_single_occurrence_is_shown_with_an_info(page):
    at = page("context")
    at.text_input(key="context.word").input("vault").run()
    _check(at)
    assert not at.error
    assert at.info and "at least two occurrences" in at.info[0].value
    assert any("<mark><b>vault</b></mark>" in m.value for m in at.markdown)
    assert not _figures(at)


def test_mean_centring_changes_the_per_layer_chart(page):
    at = page("context")
    before = _by_layer(at)
    at.toggle(key="context.center").set_value(True).run()
    _check(at)
    after = _by_layer(at)
    for old, new in zip(before, after, strict=True):
        assert not np.allclose(_array(old["y"]), _array(new["y"]))
    baseline_before, baseline_after = _array(before[-1]["y"]), _array(after[-1]["y"])
    assert np.abs(baseline_after).max() < baseline_before.min()
    assert "occurrences - mean" in at.code[0].value
    assert "mean-centred" in _figures(at)["context.heatmap"]["layout"]["title"]["text"]


def test_loading_an_example_fills_sentences_and_word(page):
    at = page("context")
    at.selectbox(key="context.example").set_value("bat").run()
    _check(at)
    assert at.text_input(key="context.word").value == "bat"
    assert at.text_area(key="context.text").value == "\n".join(ctx.sense_examples("bat", 3))
    assert at.selectbox(key="context.example").value is None
    assert "6 occurrences of “bat”" in at.subheader[0].value
    assert len(_heatmap(at)) == 6


def test_user_text_is_escaped(page):
    at = page("context")
    at.text_area(key="context.text").input("<b>A</b> *bank*.\nA bank & <i>a</i> bank.").run()
    _check(at)
    listing = next(m.value for m in at.markdown if "<mark>" in m.value)
    assert "<b>A</b>" not in listing and "<i>" not in listing
    assert "&lt;b&gt;A&lt;/b&gt;" in listing and "\\*" in listing
