"""The neighbour index of a large store (explorer.data.store.ann, issue 38): built by explorer
project from ann.MIN_ROWS rows, its answers re-ranked by exact cosine, and the click's panel
(inspect_saved) the same through it as through the exact scan."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.store import synthetic_store
from explorer import open_corpus
from explorer.cli import main
from explorer.data.store import ann
from explorer.data.store.project import save_projection
from explorer.data.store.saved_maps import inspect_saved, saved_map

pytest.importorskip("faiss")

ROWS = 3000


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ann") / "store"
    synthetic_store(folder, ROWS, dim=24, shard_rows=1000, clusters=6)
    return folder


@pytest.fixture
def small(monkeypatch):
    """Index settings for a store of :data:`ROWS` rows: 16 lists, 4 read per query."""
    monkeypatch.setattr(ann, "MIN_ROWS", 1000)
    monkeypatch.setattr(ann, "LISTS", 16)
    monkeypatch.setattr(ann, "PROBES", 4)
    monkeypatch.setattr(ann, "TRAIN_ROWS", 2000)
    monkeypatch.setattr(ann, "CHUNK_ROWS", 700)


def test_a_store_under_min_rows_has_no_index_and_is_searched_exactly(store):
    corpus = open_corpus(store)
    assert ann.MIN_ROWS > ROWS
    assert ann.build_index(corpus) is None and ann.load_index(corpus) is None
    found = ann.nearest(corpus, 5, 10)
    exact = corpus.neighbors(5, 10)
    assert (found.indices == exact.indices).all()


def test_the_index_answers_with_exact_cosines_and_high_recall(store, small):
    corpus = open_corpus(store)
    done = []
    path = ann.build_index(corpus, progress=lambda i, n: done.append((i, n)))
    assert path == ann.index_path(corpus, corpus_choice()) and path.is_file()
    assert done[-1] == (ROWS, ROWS) and len(done) == 5  # 700 rows at a time
    index = ann.load_index(corpus)
    assert index.ntotal == ROWS
    rows = np.random.default_rng(0).choice(ROWS, size=100, replace=False)
    exact = corpus.neighbors(rows, 10)
    hits = 0
    for row, truth in zip(rows, exact.indices, strict=True):
        found = ann.nearest(corpus, int(row), 10, index=index)
        assert int(row) not in found.indices and len(set(found.indices.tolist())) == 10
        # the scores are the exact cosines of the rows returned, best first
        vectors = corpus.vectors(corpus_choice())
        q = vectors[row] / np.linalg.norm(vectors[row])
        cosines = vectors[found.indices] @ q / np.linalg.norm(vectors[found.indices], axis=1)
        np.testing.assert_allclose(found.scores, cosines, rtol=1e-5, atol=1e-6)
        assert (np.diff(found.scores) <= 0).all()
        hits += len(set(found.indices.tolist()) & set(truth.tolist()))
    assert hits / 1000 >= 0.9


def test_reading_every_list_gives_the_exact_neighbours(store, small, monkeypatch):
    corpus = open_corpus(store)
    ann.build_index(corpus)
    monkeypatch.setattr(ann, "PROBES", ann.LISTS)
    monkeypatch.setattr(ann, "CANDIDATES", 200)
    index = ann.load_index(corpus)
    save_projection(store, "pca")
    saved = saved_map(open_corpus(store), "pca")
    for position in (0, 17, ROWS - 1):
        fast = inspect_saved(corpus, saved, position, 10, index=index)
        exact = inspect_saved(corpus, saved, position, 10)
        assert (fast.indices == exact.indices).all()
        np.testing.assert_allclose(fast.scores, exact.scores, rtol=1e-5)
        assert fast.kept == exact.kept


def test_a_stale_index_is_not_used(store, small, tmp_path):
    import faiss

    corpus = open_corpus(store)
    path = ann.build_index(corpus)
    index = faiss.read_index(str(path))
    index.remove_ids(np.arange(10, dtype=np.int64))  # as if the store had changed since
    faiss.write_index(index, str(path))
    assert ann.load_index(corpus) is None


def test_explorer_project_builds_the_index_once(tmp_path, small, capsys):
    folder = tmp_path / "store"
    synthetic_store(folder, 1200, dim=16, shard_rows=600, clusters=3)
    assert main(["project", str(folder), "--method", "pca"]) == 0
    out = capsys.readouterr().out
    assert "neighbour index for the map's clicks" in out and "index/ivfsq8-mean-last" in out
    assert ann.load_index(open_corpus(folder)) is not None
    assert main(["project", str(folder), "--method", "pca"]) == 0
    assert "neighbour index" not in capsys.readouterr().out  # kept, not built again


def corpus_choice():
    from explorer.choice import VectorChoice

    return VectorChoice("mean", "last")


def test_the_index_is_memory_mapped_not_read_into_the_process(store, small):
    """The loaded index's inverted lists are faiss's on-disk lists over a mapping of the saved
    file (its pages shared and paged in by the lists a query reads), not a copy in the
    process's own memory (0.39 GB at 1,000,000 rows)."""
    import faiss

    corpus = open_corpus(store)
    path = ann.build_index(corpus)
    index = ann.load_index(corpus)
    lists = faiss.downcast_InvertedLists(faiss.extract_index_ivf(index).invlists)
    assert isinstance(lists, faiss.OnDiskInvertedLists) and lists.prefetch_nthread == 0
    mapped = Path("/proc/self/maps")
    if mapped.is_file():
        assert str(path.resolve()) in mapped.read_text()
    found = ann.nearest(corpus, 3, 10, index=index)
    assert len(found.indices) == 10 and 3 not in found.indices
