"""A store's neighbours by row, exact (Corpus.neighbors) or through its neighbour index (ann):
one check of the row and of k (explorer.similarity.check_row_query), one message for each."""

from __future__ import annotations

import pytest

from bench.store import synthetic_store
from explorer import open_corpus
from explorer.data.store import ann
from explorer.similarity import check_row_query

pytest.importorskip("faiss")

ROWS = 400
OTHERS = "the number of other rows (the query row is left out)"


@pytest.fixture(scope="module")
def searches(tmp_path_factory):
    """``{"exact": nearest, "index": nearest}``: the two paths of :func:`ann.nearest`."""
    folder = tmp_path_factory.mktemp("checks") / "store"
    synthetic_store(folder, ROWS, dim=8, shard_rows=ROWS, clusters=3)
    corpus = open_corpus(folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ann, "MIN_ROWS", 100)
        patch.setattr(ann, "LISTS", 4)
        patch.setattr(ann, "PROBES", 2)
        patch.setattr(ann, "TRAIN_ROWS", ROWS)
        assert ann.build_index(corpus) is not None
        index = ann.load_index(corpus)
    assert index is not None
    return {
        "exact": lambda row, k: ann.nearest(corpus, row, k),
        "index": lambda row, k: ann.nearest(corpus, row, k, index=index),
    }


BAD = [
    (-1, 5, f"Query row -1 is out of range: vectors has {ROWS} rows, numbered 0 to {ROWS - 1}."),
    (ROWS, 5, f"Query row {ROWS} is out of range: vectors has {ROWS} rows, numbered 0 to 399."),
    (3, 0, f"k must be a whole number from 1 to {ROWS - 1}, {OTHERS}; got 0."),
    (3, ROWS, f"k must be a whole number from 1 to {ROWS - 1}, {OTHERS}; got {ROWS}."),
    (3, True, f"k must be a whole number from 1 to {ROWS - 1}, {OTHERS}; got True."),
    (3, 2.0, f"k must be a whole number from 1 to {ROWS - 1}, {OTHERS}; got 2.0."),
]


@pytest.mark.parametrize("path", ["exact", "index"])
@pytest.mark.parametrize(("row", "k", "message"), BAD)
def test_each_path_refuses_a_bad_row_or_k_with_the_same_message(searches, path, row, k, message):
    with pytest.raises(ValueError) as refused:
        searches[path](row, k)
    assert str(refused.value) == message


@pytest.mark.parametrize("path", ["exact", "index"])
def test_a_row_that_is_not_a_whole_number_is_refused_on_each_path(searches, path):
    with pytest.raises(ValueError, match=r"query must be a row index \(int\)"):
        searches[path](2.0, 5)


@pytest.mark.parametrize("path", ["exact", "index"])
def test_the_largest_k_and_the_last_row_are_answered_on_each_path(searches, path):
    found = searches[path](ROWS - 1, ROWS - 1)
    assert len(found.indices) == ROWS - 1 and ROWS - 1 not in found.indices


def test_the_check_returns_plain_ints():
    import numpy as np

    row, k = check_row_query(np.int64(3), np.int32(4), 10)
    assert (row, k) == (3, 4) and type(row) is int and type(k) is int
