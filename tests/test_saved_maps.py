"""Saved maps of a store (explorer project) and the density layer drawn under their points."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench.store import synthetic_store
from explorer import open_corpus
from explorer.data.store.project import save_projection
from explorer.data.store.saved_maps import (
    inspect_saved,
    saved_map,
    saved_projector,
    selection_frame,
)
from explorer.figures.density import add_density, density_counts, density_trace


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("saved-maps") / "store"
    synthetic_store(folder, 600, dim=16, shard_rows=250, clusters=3)
    return folder


def test_no_saved_projection_is_none(store):
    assert saved_map(open_corpus(store), "tsne") is None


def test_a_saved_sample_is_drawn_from_its_own_rows(store):
    entry = save_projection(store, "pca", sample=400, random_state=1)
    found = saved_map(open_corpus(store), "pca", max_points=50, seed=2)
    projected = np.load(store / entry["rows_file"])
    assert (found.rows == projected).all() and len(found.coords) == 400
    assert len(found.shown) == 50 and np.isin(found.shown, projected).all()
    assert (np.diff(found.shown) > 0).all()
    assert "Saved PCA coordinates of 400 rows (a sample of 600 rows)" in found.note
    assert "50 of them, drawn at random, are points; the grey shading counts all" in found.note
    projector = saved_projector(found, found.shown)
    where = np.searchsorted(projected, found.shown)
    np.testing.assert_array_equal(projector.embedding_, found.coords[where])
    assert projector.trustworthiness_ == pytest.approx(entry["trustworthiness"])
    missing = np.setdiff1d(np.arange(600), projected)[:1]
    with pytest.raises(ValueError, match="not in the saved projection"):
        saved_projector(found, missing)


def test_every_row_projected_shows_every_row(store):
    save_projection(store, "pca", pooling="mean", layers="last")
    found = saved_map(open_corpus(store), "pca")
    assert len(found.rows) == len(found.shown) == 600
    assert "every one is drawn as a point" in found.note
    assert "shading" not in found.note  # no density layer is drawn when every row is a point


def test_density_counts_every_point_once_and_keeps_a_small_figure():
    rng = np.random.default_rng(0)
    coords = rng.normal(size=(1_000_000, 2)).astype(np.float32)
    counts, x_edges, y_edges = density_counts(coords, bins=100, chunk=300_000)
    assert counts.shape == (100, 100) and counts.sum() == 1_000_000
    assert x_edges[0] == coords[:, 0].min() and y_edges[-1] == pytest.approx(coords[:, 1].max())
    # y along the first axis: the upper half of the grid holds the points with y > 0
    assert abs(counts[50:].sum() - (coords[:, 1] > y_edges[50]).sum()) == 0
    trace = density_trace(coords, bins=100)
    size = len(json.dumps(trace.to_plotly_json(), default=lambda a: a.tolist()))
    assert size < 400_000
    import plotly.graph_objects as go

    figure = add_density(go.Figure(go.Scattergl(x=[0], y=[0])), coords[:1000], bins=20)
    assert figure.data[0].type == "heatmap" and figure.data[1].type == "scattergl"


@pytest.mark.parametrize(
    "bad", [np.zeros((0, 2)), np.zeros((5, 3)), np.array([[0.0, np.nan], [1.0, 1.0]])]
)
def test_density_refuses_bad_coordinates(bad):
    with pytest.raises(ValueError):
        density_counts(bad)


def test_inspecting_a_saved_point_searches_every_row_of_the_store(store):
    save_projection(store, "pca", sample=300, random_state=3)
    corpus = open_corpus(store)
    found = saved_map(corpus, "pca")
    position = 7
    seen = inspect_saved(corpus, found, position, 5)
    row = int(found.rows[position])
    vectors = corpus.sentence("mean", "last", normalize=True)
    scores = vectors @ vectors[row]
    scores[row] = -np.inf
    assert seen.row == row
    np.testing.assert_array_equal(seen.indices, np.argsort(-scores, kind="stable")[:5])
    # full-space neighbours from all 600 store rows (above), map neighbours from the 300 projected
    assert np.isin(seen.on_map, found.rows).all() and row not in seen.on_map
    assert seen.kept == len(set(seen.indices.tolist()) & set(seen.on_map.tolist()))
    with pytest.raises(ValueError, match="No point 300"):
        inspect_saved(corpus, found, 300, 5)


def test_a_selection_table_has_the_rows_their_coordinates_and_columns(store):
    save_projection(store, "pca", sample=300, random_state=3)
    corpus = open_corpus(store)
    found = saved_map(corpus, "pca")
    frame = selection_frame(corpus, found, np.array([5, 0, 299]))
    assert frame["row"].tolist() == found.rows[[5, 0, 299]].tolist()
    np.testing.assert_array_equal(frame[["x", "y"]].to_numpy(), found.coords[[5, 0, 299]])
    texts = corpus.texts
    assert frame[corpus.text_column].tolist() == [texts[r] for r in frame["row"]]
    assert corpus.label_column in frame.columns
    assert len(selection_frame(corpus, found, np.zeros(0, dtype=int))) == 0
    with pytest.raises(ValueError, match="points 0 to 299"):
        selection_frame(corpus, found, np.array([300]))


def test_a_column_of_every_row_reads_numbers_as_numbers(store):
    corpus = open_corpus(store)
    labels = corpus.column(corpus.label_column)
    assert labels.dtype == object and labels.tolist() == corpus.labels
    with pytest.raises(ValueError, match="no column 'nope'"):
        corpus.column("nope")
    columns = corpus.text_columns()
    assert list(columns.columns) == [corpus.text_column, corpus.label_column]
    picked = columns.take([7, 3, 599, 3])
    assert picked[corpus.text_column].tolist() == [corpus.texts[i] for i in (7, 3, 599, 3)]
    assert picked[corpus.label_column].tolist() == [corpus.labels[i] for i in (7, 3, 599, 3)]


def test_a_text_column_as_categories_and_the_word_counts_read_shard_by_shard(store):
    from explorer.data.columns import text_lengths

    corpus = open_corpus(store)
    labels = corpus.column(corpus.label_column, categorical=True)
    assert labels.codes.itemsize <= 4 and len(labels.categories) < len(corpus) / 10
    assert list(np.asarray(labels, dtype=object)) == corpus.labels
    lengths = corpus.text_lengths()
    np.testing.assert_array_equal(lengths, text_lengths(corpus.texts))
    assert lengths.dtype == np.float64 and len(lengths) == len(corpus)


def test_the_texts_for_clicks_are_memory_mapped_not_held(store, tmp_path):
    """Corpus.text_columns copies the text and label columns into an Arrow file and maps it:
    Arrow's allocator holds none of the texts afterwards (they were 92 MB of the server's own
    memory at 1,000,000 rows, and 125 MB more the allocator kept), and the file is gone."""
    import pyarrow as pa

    corpus = open_corpus(store)
    size = sum(len(t.encode()) for t in corpus.texts)
    before = pa.total_allocated_bytes()
    columns = corpus.text_columns(tmp_path)
    assert pa.total_allocated_bytes() - before < size / 4
    assert len(columns) == len(corpus) and not any(tmp_path.iterdir())
    picked = columns.take(np.array([599, 0, 250]))
    assert picked[corpus.text_column].tolist() == [corpus.texts[i] for i in (599, 0, 250)]
    assert picked.index.tolist() == [0, 1, 2]
    assert len(columns.take([])) == 0
    with pytest.raises(ValueError, match="from 0 to 599"):
        columns.take([600])
    held = corpus.text_columns(tmp_path / "nowhere")  # no file: the columns in memory
    assert held.take([599, 0]).equals(columns.take([599, 0]))
