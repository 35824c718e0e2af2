"""A saved corpus's own map (explorer project) on the Projections page: drawn, not fitted."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from tests.app.rendered import plain
from tests.store_helpers import TEXTS, write_csv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def projected(tmp_path_factory, bundled):
    from explorer.data.store import embed_to_store
    from explorer.data.store.project import save_projection

    allowed = tmp_path_factory.mktemp("allowed-maps")
    source = write_csv(allowed / "input.csv", TEXTS)
    store = allowed / "projected"
    embed_to_store(bundled, source, store, label_column="label")
    entry = save_projection(store, "pca", sample=len(TEXTS) - 4, random_state=3)
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
        infos = " ".join(plain(i.value) for i in at.info)
        assert "6 of them, drawn at random, as points" in infos
        figure = json.loads(at.get("plotly_chart")[0].proto.spec)
        assert figure["data"][0]["type"] == "heatmap"
        assert "PCA of 6 sentence vectors" in figure["layout"]["title"]["text"]
    finally:
        compute.clear()
