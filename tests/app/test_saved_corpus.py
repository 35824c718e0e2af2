"""Saved corpora in the app: listed from EXPLORER_CORPORA only, opened on Projections."""

from __future__ import annotations

import json

import pytest

from tests.app.rendered import plain
from tests.store_helpers import TEXTS, write_csv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stores(tmp_path_factory, bundled):
    from explorer.data.store import embed_to_store

    allowed = tmp_path_factory.mktemp("allowed")
    outside = tmp_path_factory.mktemp("outside")
    source = write_csv(allowed / "input.csv", TEXTS)
    embed_to_store(bundled, source, allowed / "tickets", label_column="label")
    embed_to_store(bundled, source, outside / "secret", label_column="label")
    return allowed, outside


def test_projections_open_a_saved_corpus_listed_from_the_operators_folders(
    page, stores, monkeypatch
):
    allowed, outside = stores
    monkeypatch.setenv("EXPLORER_CORPORA", str(allowed))
    at = page("projections")
    at.radio(key="projections.source").set_value("saved").run()
    assert not at.exception, [e.message for e in at.exception]
    options = at.selectbox(key="projections.store").options
    assert options == ["tickets"]  # the folder name; its rows and model under the box
    details = f"{len(TEXTS)} texts · sentence-transformers/all-MiniLM-L6-v2"
    assert details in " ".join(plain(c.value) for c in at.caption)
    assert not any(str(allowed) in o or "secret" in o for o in options)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = sorted(trace["name"] for trace in figure["data"])
    assert names == ["finance", "music", "nature", "sport"]
    assert f"PCA of {len(TEXTS)} sentence vectors" in figure["layout"]["title"]["text"]
    page_text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert str(allowed) not in page_text


def test_no_saved_source_without_the_operators_folders(page, monkeypatch):
    monkeypatch.delenv("EXPLORER_CORPORA", raising=False)
    at = page("projections")
    assert "saved" not in at.radio(key="projections.source").options


def test_a_damaged_store_is_named_without_its_server_folder(page, stores, tmp_path, monkeypatch):
    import shutil

    allowed, _ = stores
    damaged = tmp_path / "corpora"
    shutil.copytree(allowed / "tickets", damaged / "tickets")
    (vectors,) = sorted((damaged / "tickets" / "vectors" / "mean").glob("*6*.npy"))[-1:]
    vectors.write_bytes(vectors.read_bytes()[:100])
    monkeypatch.setenv("EXPLORER_CORPORA", str(damaged))
    at = page("projections")
    at.radio(key="projections.source").set_value("saved").run()
    assert not at.exception, [e.message for e in at.exception]
    errors = plain(" ".join(e.value for e in at.error))
    assert "tickets/vectors/mean/layer_06.npy is not a readable .npy file" in errors, errors
    shown = plain(" ".join(e.value for e in [*at.error, *at.warning, *at.caption, *at.markdown]))
    assert str(tmp_path) not in shown


def test_layers_in_motion_of_a_saved_corpus_maps_a_sample_beyond_its_cap(page, stores, monkeypatch):
    from explorer.server import limits

    allowed, _ = stores
    monkeypatch.setenv("EXPLORER_CORPORA", str(allowed))
    monkeypatch.setattr(limits, "MAX_MOTION_POINTS", 5)
    at = page("projections")
    at.radio(key="projections.source").set_value("saved").run()
    at.radio(key="projections.view").set_value("motion").run()
    assert not at.exception, [e.message for e in at.exception]
    motion = json.loads(
        next(c for c in at.get("plotly_chart") if c.key == "projections.motion").proto.spec
    )
    assert len(motion["frames"]) == 7
    from tests.app.test_projections_page import _values

    assert sum(len(_values(trace["x"])) for trace in motion["frames"][0]["data"]) == 5
    assert any(f"shows 5 of the {len(TEXTS)} points" in plain(i.value) for i in at.info)
