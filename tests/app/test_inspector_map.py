"""The map and its neighbour panel (explorer.ui.projection_maps._map) in AppTest, on uploaded
vectors: the figure is built once per map, a selection on a small map rings the neighbours on
the map, and on a large one leaves the map's figure exactly as it was and draws a close-up instead.

AppTest cannot click a plotly chart, so the selection comes from a stand-in for
``selected_rows`` (the browser test clicks for real: tests/browser/test_inspector.py)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from explorer.figures.highlights import INSPECTED, NEIGHBOURS
from explorer.ui.projection_maps import _map as mapview


def _script() -> None:
    import weakref

    import numpy as np
    import streamlit as st

    from explorer.maps import ProjectionParams
    from explorer.ui.projection_maps import _map as mapview
    from explorer.ui.projection_maps import fit
    from explorer.ui.projection_maps._points import VectorPoints

    n = st.session_state["n"]
    vectors = np.random.default_rng(0).normal(size=(n, 16)).astype(np.float32)
    points = VectorPoints(f"inspector-test-{n}", weakref.ref(vectors))
    params = ProjectionParams("pca", 2)
    shown = mapview.MapPoints([f"text {i}" for i in range(n)], None, None, "Label", "A map")
    if st.session_state.get("long"):  # labels cut for the map, as shown_points cuts them
        from explorer.data.columns import cut_labels

        whole = [f"label {i % 3} " + "long " * 2_000 for i in range(n)]
        shown = mapview.MapPoints(
            shown.texts, cut_labels(whole)[0], None, "Label", "A map", whole_labels=whole
        )
    kept = np.linspace(0, 1, n) if st.session_state.get("kept") else None
    mapview.draw(points, params, fit(points, params), shown, kept_share=kept)


def _charts(at: AppTest) -> dict[str, dict]:
    return {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


@pytest.fixture
def selection(monkeypatch):
    """Rows the map reports as selected (set ``selection.rows``)."""

    class Selection:
        rows: list[int] = []

    monkeypatch.setattr(mapview, "selected_rows", lambda state, n: list(Selection.rows))
    return Selection


def _run(n: int) -> AppTest:
    at = AppTest.from_function(_script, default_timeout=120)
    at.session_state["n"] = n
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_figure_is_built_once_and_sent_unchanged_on_a_rerun(selection):
    at = _run(300)
    (built,) = at.session_state[mapview.FIGURE_KEY].values()
    spec = _charts(at)[mapview.CHART_KEY]
    at.run()
    (again,) = at.session_state[mapview.FIGURE_KEY].values()
    assert again is built and _charts(at)[mapview.CHART_KEY] == spec
    assert "Click a point" in at.info[0].value


def test_switching_the_colouring_back_and_forth_builds_each_figure_once(selection):
    at = _run(300)
    (labels,) = at.session_state[mapview.FIGURE_KEY].values()
    at.session_state["kept"] = True
    at.run()
    at.session_state["kept"] = False
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    figures = list(at.session_state[mapview.FIGURE_KEY].values())
    assert len(figures) == mapview.FIGURES_KEPT and figures[-1] is labels


def test_a_small_map_rings_the_neighbours_on_the_map(selection):
    at = _run(300)
    selection.rows = [3]
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    charts = _charts(at)
    names = [t.get("name") for t in charts[mapview.CHART_KEY]["data"]]
    assert names[-2:] == [NEIGHBOURS, INSPECTED]
    assert "projections.closeup" not in charts
    configs = {c.key: json.loads(c.proto.config) for c in at.get("plotly_chart")}
    assert configs[mapview.CHART_KEY] == {}  # an SVG map: plotly's defaults
    assert any("Nearest texts in the full space" in m.value for m in at.markdown)


def test_a_large_map_stays_as_it_was_and_the_closeup_marks_the_neighbours(selection):
    n = mapview.RINGS_UP_TO + 500
    at = _run(n)
    before = _charts(at)[mapview.CHART_KEY]
    selection.rows = [3]
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    charts = _charts(at)
    assert charts[mapview.CHART_KEY] == before  # the same spec: nothing to resend or redraw
    configs = {c.key: json.loads(c.proto.config) for c in at.get("plotly_chart")}
    assert configs[mapview.CHART_KEY]["plotGlPixelRatio"] == 1  # a quarter of the pixels
    assert configs["projections.closeup"] == mapview.CLOSEUP_CONFIG
    closeup = charts["projections.closeup"]
    assert [t.get("name") for t in closeup["data"]][-2:] == [NEIGHBOURS, INSPECTED]
    assert any("close-up" in c.value for c in at.caption)


def test_the_panel_shows_a_long_label_whole_and_the_map_shortened(selection):
    """Issue 32: the map shows a long label shortened, the clicked point's panel whole."""
    at = AppTest.from_function(_script, default_timeout=120)
    at.session_state["n"], at.session_state["long"] = 60, True
    at.run()
    selection.rows = [4]
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    names = [t.get("name") or "" for t in _charts(at)[mapview.CHART_KEY]["data"]]
    assert names and max(map(len, names)) <= 80
    label = next(c.value for c in at.caption if c.value.startswith("Label:"))
    assert label.count("long") == 2_000 and "label 1" in label
