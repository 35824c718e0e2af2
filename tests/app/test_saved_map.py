"""A saved corpus's own map (explorer project) on the Projections page: drawn, not fitted."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pandas as pd
import pytest

from tests.app.rendered import plain
from tests.store_helpers import TEXTS, projected_store

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def projected(tmp_path_factory, bundled):
    allowed = tmp_path_factory.mktemp("allowed-maps")
    store, entry = projected_store(bundled, allowed, "projected")
    return allowed, store, entry


def _open(page, monkeypatch, allowed):
    monkeypatch.setenv("EXPLORER_CORPORA", str(allowed))
    at = page("projections")
    at.radio(key="projections.source").set_value("saved").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_saved_pca_map_is_drawn_as_saved(page, monkeypatch, projected):
    allowed, store, entry = projected
    at = _open(page, monkeypatch, allowed)
    infos = [plain(i.value) for i in at.info]
    assert any(f"Saved PCA coordinates of {len(TEXTS) - 4:,} rows" in i for i in infos), infos
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    # every row is a point: no density layer, and the note speaks of no grey shading
    assert figure["data"][0]["type"] != "heatmap" and "shading" not in " ".join(infos)
    assert f"PCA of {len(TEXTS) - 4} sentence vectors" in figure["layout"]["title"]["text"]
    xs = sorted(x for t in figure["data"] for x in _values(t.get("x", [])))
    saved = np.load(store / entry["file"])
    np.testing.assert_allclose(xs, np.sort(saved[:, 0]), atol=1e-4)  # drawn as saved


def _values(array) -> list:
    """A trace's x: plotly stores numpy arrays as base64 ``bdata``."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def test_without_a_saved_map_the_sample_is_fitted_and_the_command_is_named(
    page, monkeypatch, projected
):
    allowed, _, _ = projected
    at = _open(page, monkeypatch, allowed)
    at.radio(key="projections.method").set_value("tsne").run()
    assert not at.exception
    infos = " ".join(plain(i.value) for i in at.info)
    assert "Saved PCA coordinates" not in infos and str(allowed) not in infos


def test_rows_beyond_the_drawn_sample_are_a_density_layer(page, monkeypatch, projected):
    from explorer.server import limits
    from explorer.ui import compute

    allowed, _, _ = projected
    monkeypatch.setattr(limits, "MAX_POINTS", 6)
    compute.clear()
    try:
        at = _open(page, monkeypatch, allowed)
        at.checkbox(key="projections.every_row").uncheck().run()  # the 20,000-point figure
        assert not at.exception, [e.message for e in at.exception]
        infos = " ".join(plain(i.value) for i in at.info)
        assert "6 of them, drawn at random, are points; the grey shading counts all" in infos
        figure = json.loads(at.get("plotly_chart")[0].proto.spec)
        assert figure["data"][0]["type"] == "heatmap"
        assert "PCA of 6 sentence vectors" in figure["layout"]["title"]["text"]
    finally:
        compute.clear()


def _bigmap(at):
    return [e for e in at.get("component_instance") if "bigmap" in e.proto.component_name]


def test_a_saved_map_beyond_the_drawn_sample_is_drawn_whole_and_selected_whole(
    page, monkeypatch, projected
):
    from streamlit.runtime.media_file_manager import MediaFileManager

    from explorer.server import limits
    from explorer.ui import compute

    allowed, store, entry = projected
    monkeypatch.setattr(limits, "MAX_POINTS", 6)
    deferred = {}  # AppTest's runtime lives for a run only: keep the CSV's callable
    add_deferred = MediaFileManager.add_deferred

    def keep(manager, data, *args, **kwargs):
        file_id = add_deferred(manager, data, *args, **kwargs)
        deferred[file_id] = data
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", keep)
    compute.clear()
    try:
        at = _open(page, monkeypatch, allowed)
        assert at.checkbox(key="projections.every_row").value
        infos = " ".join(plain(i.value) for i in at.info)
        assert f"Saved PCA coordinates of {entry['points']:,} rows" in infos
        assert "every one is drawn as a point" in infos and "shading" not in infos
        (component,) = _bigmap(at)
        args = json.loads(component.proto.json_args)
        sent = {a.key: len(a.bytes) for a in component.proto.special_args}
        assert sent["coords"] == 8 * entry["points"] and sent["colours"] == entry["points"]
        assert not at.get("plotly_chart")  # no 20,000-point figure beside it
        # what a click's panel reads (the texts) is read once the page has drawn the map, not
        # while it draws nor on the first click
        memo = compute.BUDGETS["corpora"]
        texts = [k for k in memo._items if isinstance(k, tuple) and k[0] == "store texts"]
        assert not texts
        at.session_state["projections.bigmap"] = {"kind": "drawn", "id": "t:drawn"}
        at.run()
        assert any(isinstance(k, tuple) and k[0] == "store texts" for k in memo._items)
        # a second run sends the arrays' names only: the page holds them
        at.run()
        (component,) = _bigmap(at)
        assert {a.key: len(a.bytes) for a in component.proto.special_args}["coords"] == 0
        assert json.loads(component.proto.json_args)["coords_key"] == args["coords_key"]
        # a page that lost them (reloaded) asks again: they are sent again, once
        need = {"kind": "need", "keys": [args["coords_key"]], "id": "t:0"}
        at.session_state["projections.bigmap"] = need
        at.run()
        (component,) = _bigmap(at)
        sent = {a.key: len(a.bytes) for a in component.proto.special_args}
        assert sent["coords"] == 8 * entry["points"] and sent["colours"] == 0
        assert json.loads(component.proto.json_args)["attached"] == ["coords"]
        # a box over the whole map selects every projected row, not only the 6 drawn
        saved = np.load(store / entry["file"])
        low, high = saved.min(axis=0) - 1, saved.max(axis=0) + 1
        box = {"kind": "box", "x": [low[0], high[0]], "y": [low[1], high[1]], "id": "t:1"}
        at.session_state["projections.bigmap"] = box
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        shown = " ".join(plain(m.value) for m in at.markdown)
        assert f"{entry['points']:,} rows selected" in shown
        (button,) = [b for b in at.get("download_button") if "selection" in b.proto.label]
        frame = pd.read_csv(io.BytesIO(deferred[button.proto.deferred_file_id]()))
        projected_rows = np.load(store / entry["rows_file"])
        assert sorted(frame["row"]) == sorted(projected_rows.tolist())
        assert len(frame) == entry["points"] and {"x", "y", "text", "label"} <= set(frame)
        texts = dict(zip(frame["row"], frame["text"], strict=True))
        listed = [c for c in at.get("html") if "projections.selection" in c.proto.body]
        assert listed and all(texts[r][:30] in listed[0].proto.body for r in frame["row"][:3])
        # coloured by the texts' lengths (counted a shard at a time): new codes, not coordinates
        at.selectbox(key="projections.colour").set_value("length").run()
        assert not at.exception, [e.message for e in at.exception]
        (component,) = _bigmap(at)
        sent = {a.key: len(a.bytes) for a in component.proto.special_args}
        assert sent["colours"] == entry["points"] and sent["coords"] == 0
        legend = json.loads(component.proto.json_args)["legend"]
        assert legend["title"] == "Length (words)" and "scale" in legend
    finally:
        compute.clear()
