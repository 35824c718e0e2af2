"""``explorer project`` of more rows than ``fit_sample``: a fit on a random sample of them,
the rest placed by the fitted model's ``transform`` (issue 38)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench.store import synthetic_store
from explorer import open_corpus
from explorer.choice import VectorChoice
from explorer.cli import main
from explorer.data.store import placing
from explorer.data.store.project import save_projection
from explorer.data.store.saved_maps import saved_map
from explorer.maps import Projector


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fit-sample") / "store"
    synthetic_store(folder, 1000, dim=16, shard_rows=400, clusters=3)
    return folder


def test_pca_fits_the_sample_and_places_the_rest_in_chunks(store, monkeypatch):
    monkeypatch.setattr(placing, "CHUNK_ROWS", 300)
    calls = []
    entry = save_projection(
        store, "pca", fit_sample=200, random_state=3, progress=lambda d, t: calls.append((d, t))
    )
    corpus = open_corpus(store)
    coords, rows = corpus.projection("pca", VectorChoice("mean", "last"))
    assert rows is None and coords.shape == (1000, 2) and np.isfinite(coords).all()
    fit_rows = np.load(store / entry["fit_rows_file"])
    assert len(fit_rows) == 200 and (np.diff(fit_rows) > 0).all()
    vectors = corpus.sentence("mean", "last")
    alone = Projector("pca", 2, random_state=3).fit(vectors[fit_rows]).embedding_
    np.testing.assert_allclose(coords[fit_rows], alone, atol=1e-4)
    # PCA places a row where the same linear map puts it
    mean = vectors[fit_rows].mean(axis=0)
    basis = np.linalg.lstsq(vectors[fit_rows] - mean, alone, rcond=None)[0]
    np.testing.assert_allclose(coords, (vectors - mean) @ basis, atol=1e-3)
    assert entry["fit_sample"] == 200 and entry["placed_by"] == "transform"
    assert entry["points"] == entry["of_rows"] == 1000
    assert 0 < entry["trustworthiness"] <= 1
    assert calls == [(300, 800), (600, 800), (800, 800)]
    manifest = json.loads((store / "manifest.json").read_text())
    saved = next(p for p in manifest["projections"] if p["method"] == "pca")
    assert saved["fit_sample"] == 200 and saved["placed_by"] == "transform"
    found = saved_map(corpus, "pca")
    assert "fitted on a sample of 200 rows" in found.note


def test_umap_sample_rows_keep_their_fitted_coordinates(store):
    entry = save_projection(store, "umap", sample=600, fit_sample=150, random_state=0)
    corpus = open_corpus(store)
    coords, rows = corpus.projection("umap", VectorChoice("mean", "last"))
    assert coords.shape == (600, 2) and len(rows) == 600 and np.isfinite(coords).all()
    fit_rows = np.load(store / entry["fit_rows_file"])
    refit = placing.SampleFit("umap", corpus.sentence(rows=rows[fit_rows]), 0)
    np.testing.assert_allclose(coords[fit_rows], refit.embedding, atol=1e-5)
    # placed rows land among the fitted ones, not far outside the map
    low, high = refit.embedding.min(axis=0), refit.embedding.max(axis=0)
    span = high - low
    assert ((coords >= low - span) & (coords <= high + span)).all()
    assert entry["fit_sample"] == 150 and entry["points"] == 600 and entry["of_rows"] == 1000


def test_small_stores_and_fit_sample_zero_fit_every_row(store):
    entry = save_projection(store, "pca", fit_sample=0)
    assert entry["fit_sample"] is None and entry["placed_by"] is None
    entry = save_projection(store, "pca", fit_sample=1000)
    assert entry["fit_sample"] is None and entry["fit_rows_file"] is None
    with pytest.raises(ValueError, match="--fit-sample must be 0"):
        save_projection(store, "pca", fit_sample=-1)
    with pytest.raises(ValueError, match="--fit-sample must be at least 4"):
        save_projection(store, "umap", fit_sample=3)


def test_cli_says_it_fitted_on_a_sample(store, capsys):
    assert main(["project", str(store), "--method", "pca", "--fit-sample", "250"]) == 0
    out = capsys.readouterr().out
    assert "Projected 1,000 of 1,000 rows with pca" in out
    assert "fitted on a random sample of 250 rows" in out
    assert "the other 750 placed by the fitted model's transform" in out
    assert main(["info", str(store)]) == 0
    assert (
        "Projection pca of mean/last: 1,000 of 1,000 rows, fitted on 250" in capsys.readouterr().out
    )
