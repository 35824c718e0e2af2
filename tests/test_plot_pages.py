"""explorer.plot draws what the pages draw: for the page's inputs, the same traces (same
builder, same numbers) and the page's what-to-notice sentence in ``layout.meta``."""

from __future__ import annotations

import base64
import json
import math

import numpy as np
import pytest

from explorer import plot
from explorer.pooling import POOLINGS
from tests.app.conftest import open_page
from tests.app.rendered import plain

pytestmark = pytest.mark.slow  # each test runs the app once (AppTest)


def _array(value):
    """A typed array plotly wrote as ``{"dtype", "bdata"(, "shape")}``, decoded."""
    array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    shape = value.get("shape")
    return array if shape is None else array.reshape([int(n) for n in str(shape).split(",")])


def _same(a, b, path="data") -> None:
    """``a`` and ``b`` (JSON) equal, numbers to 1e-6."""
    if isinstance(a, dict) and "bdata" in a:
        assert isinstance(b, dict) and "bdata" in b, path
        x, y = _array(a), _array(b)
        assert x.shape == y.shape, path
        assert np.allclose(x, y, rtol=1e-6, atol=1e-6, equal_nan=True), (path, abs(x - y).max())
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), (path, set(a) ^ set(b))
        for key in a:
            _same(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6), (path, a, b)
    else:
        assert a == b, (path, a, b)


def _chart(at, key: str) -> dict:
    charts = [c for c in at.get("plotly_chart") if c.key == key]
    assert len(charts) == 1, [c.key for c in at.get("plotly_chart")]
    return json.loads(charts[0].proto.spec)


def _check(at, key: str, figure) -> None:
    page = _chart(at, key)
    ours = json.loads(figure.to_json())
    assert len(ours["data"]) == len(page["data"]) > 0
    _same(ours["data"], page["data"])
    notices = [plain(element.value) for element in at.info]
    assert figure.layout.meta["notice"] in notices, notices
    assert figure.layout.title.subtitle.text  # on the picture too


def test_tokens_are_the_pages_chips_and_notice(bundled):
    at = open_page("tokens")
    text = at.text_area(key="tokens.text").value
    shown = plot.tokens(bundled, text)
    assert shown.chips == at.html[0].value
    assert shown.notice == plain(at.info[0].value)
    assert shown.table["token"].tolist() == at.dataframe[0].value["token"].tolist()


def test_layers_is_the_pages_norm_heatmap(bundled):
    at = open_page("layers")
    text = at.text_area(key="layers.text").value
    figure = plot.layers(bundled, text)
    _check(at, "layers.norms", figure)


def test_word_in_context_is_the_pages_heatmap(bundled):
    at = open_page("context")
    text, word = at.text_area(key="context.text").value, at.text_input(key="context.word").value
    figure = plot.word_in_context(bundled, text.splitlines(), word, layers="last")
    _check(at, "context.heatmap", figure)
    at.selectbox(key="context.layers").set_value("sum_last4").run()
    figure = plot.word_in_context(bundled, text.splitlines(), word, layers="sum_last4")
    _check(at, "context.heatmap", figure)


def test_similarity_is_the_pages_heatmaps(bundled):
    at = open_page("similarity")
    text = at.text_area(key="similarity.text").value
    figure = plot.similarity(bundled, text, list(POOLINGS))
    _check(at, "similarity.heatmaps", figure)
    at.multiselect(key="similarity.pooling").set_value(["mean"]).run()
    figure = plot.similarity(bundled, text, "mean")
    _check(at, "similarity.heatmaps", figure)


@pytest.mark.parametrize("method", ["pca", "tsne"])
def test_projection_is_the_pages_map(bundled, method):
    from explorer.data import corpora

    at = open_page("projections")
    if method != "pca":
        at.radio(key="projections.method").set_value(method).run()
    frame = corpora.load_dataset("Topics")  # the page's default data set
    figure = plot.projection(bundled, frame["text"].tolist(), frame["label"].tolist(), method)
    _check(at, "projections.chart", figure)


def test_attention_is_the_pages_overview(bundled):
    at = open_page("attention")
    text = at.text_area(key="attention.text").value
    _check(at, "attention.grid", plot.attention(bundled, text))


def test_contextual_is_the_pages_chart(bundled):
    at = open_page("contextual")
    figure = plot.contextual(bundled)
    page = _chart(at, "contextual.chart")
    _same(json.loads(figure.to_json())["data"], page["data"])
    bullets = [line.removeprefix("- ") for line in plain(at.info[0].value).splitlines()[1:] if line]
    assert bullets and figure.layout.meta["notice"] == " ".join(bullets)


def test_probe_is_the_pages_chart(bundled):
    from explorer.data import corpora

    at = open_page("probe")
    at.selectbox(key="probe.dataset").set_value("topics").run()
    at.multiselect(key="probe.poolings").set_value(["cls", "mean"]).run()
    frame = corpora.load_dataset("Topics")
    figure = plot.probe(bundled, frame["text"].tolist(), frame["label"].tolist(), ["cls", "mean"])
    _check(at, "probe.chart", figure)


def test_why_close_is_the_pages_pair_heatmap(bundled):
    from explorer.data.uploads import texts_from_lines

    at = open_page("similarity")
    at.selectbox(key="similarity.why_a").set_value("s0")
    at.selectbox(key="similarity.why_b").set_value("s1")  # not the query and its best result
    at.selectbox(key="similarity.why_pooling").set_value("mean").run()
    first, second = texts_from_lines(at.text_area(key="similarity.text").value, None)[:2]
    _check(at, "similarity.why.pairs", plot.why_close(bundled, first, second, "mean", "last"))


def test_compare_is_the_pages_cross_cka_heatmap(bundled):
    at = open_page("compare")  # model B: model A's random weights; the topics texts
    assert at.selectbox(key="compare.corpus").value == "topics"
    _check(at, "compare.cka", plot.compare(bundled, "random"))
