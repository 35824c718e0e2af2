"""Corpus stores: the stored vectors equal embed_corpus's for every pooling and layer choice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer.data.store import Settings, embed_to_store, open_corpus
from explorer.similarity._nearest import neighbors
from tests.store_helpers import TEXTS, write_csv


@pytest.fixture(scope="module")
def bundled_store(bundled, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bundled-store")
    source = write_csv(folder / "in.csv", TEXTS[:12])
    embed_to_store(bundled, source, folder / "store", Settings(shard_rows=5))
    return open_corpus(folder / "store")


def test_every_pooling_and_layer_choice_equals_embed_corpus(bundled, bundled_store):
    corpus = bundled_store
    assert len(corpus) == 12 and len(corpus.manifest["shards"]) == 3
    reference = explorer.embed_corpus(bundled, corpus.texts)
    choices = [
        *explorer.LAYER_CHOICES,
        *range(-(bundled.num_layers + 1), bundled.num_layers + 1),
    ]
    for pooling in explorer.POOLINGS:
        for layers in choices:
            for normalize in (False, True):
                got = corpus.sentence(pooling, layers, normalize=normalize)
                want = reference.sentence(pooling, layers, normalize=normalize)
                assert got.dtype == np.float32 and got.shape == want.shape
                np.testing.assert_allclose(got, want, atol=1e-5, err_msg=f"{pooling} {layers}")
        np.testing.assert_allclose(
            corpus.per_layer(pooling), reference.per_layer(pooling), atol=1e-5
        )
    np.testing.assert_array_equal(corpus.num_tokens, reference.num_tokens)
    np.testing.assert_array_equal(corpus.truncated, reference.truncated)


def test_each_layer_file_is_a_plain_npy_with_its_row_norms(bundled_store):
    from explorer.data.store import format as fmt
    from explorer.similarity._nearest import row_norms

    corpus, folder = bundled_store, bundled_store.path
    for pooling, layers in corpus.manifest["vectors"].items():
        for layer, relative in layers.items():
            stored = np.load(folder / relative)  # not memory-mapped: the whole file is read
            assert stored.shape == (len(corpus), 384) and stored.dtype == np.float32
            np.testing.assert_array_equal(stored, corpus.sentence(pooling, int(layer)))
            np.testing.assert_array_equal(
                np.load(folder / fmt.norms_file(pooling, int(layer))), row_norms(stored)
            )


def test_texts_labels_metadata_and_take(bundled_store):
    corpus = bundled_store
    frame = pd.DataFrame(TEXTS[:12])
    assert corpus.texts == list(frame["text"])
    assert corpus.labels == list(frame["label"])
    assert list(corpus.metadata.columns) == ["score", "source"]
    assert corpus.metadata["score"].dtype.kind in "if"  # CSV text turned back into numbers
    rows = corpus.take([11, 0, 5])
    assert list(rows["row"]) == [11, 0, 5]
    assert list(rows["text"]) == [TEXTS[11]["text"], TEXTS[0]["text"], TEXTS[5]["text"]]


def test_search_and_neighbors_go_through_the_one_knn(bundled, bundled_store):
    corpus = bundled_store
    found = corpus.search(bundled, TEXTS[3]["text"], 3)
    assert found.indices[0] == 3 and found.scores[0] == pytest.approx(1.0, abs=1e-5)
    vectors = corpus.sentence("mean", "last")
    want = neighbors(vectors, 3, 4)
    got = corpus.neighbors(3, 4)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_allclose(got.scores, want.scores, atol=1e-6)
    combined = corpus.neighbors(0, 2, choice=explorer.VectorChoice("mean_max", "sum_last4"))
    assert combined.indices.shape == (2,)


def test_names_become_a_choice_once_at_the_stores_edge(bundled, bundled_store, monkeypatch):
    """A search by pooling name reads the names once (explorer.choice.vector_choice) and hands
    the choice on: before, search, embed_query, neighbors and vectors each read them again."""
    from explorer.choice import vector_choice
    from explorer.data.store import corpus as module

    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return vector_choice(*args, **kwargs)

    monkeypatch.setattr(module, "vector_choice", counted)
    found = bundled_store.search(bundled, TEXTS[3]["text"], 3, pooling="mean_max", layers=-2)
    assert found.indices[0] == 3
    assert calls == [("mean_max", -2)]


def test_search_refuses_another_model(tiny, bundled_store):
    with pytest.raises(ValueError, match="not the model this store was embedded with"):
        bundled_store.search(tiny, "hello", 2)


def test_float16_and_last_layer_only(tiny, tmp_path):
    source = write_csv(tmp_path / "in.csv", TEXTS[:9])
    settings = Settings(poolings=("mean", "max"), layers="last", dtype="float16", shard_rows=4)
    embed_to_store(tiny, source, tmp_path / "store", settings)
    corpus = open_corpus(tmp_path / "store")
    reference = explorer.embed_corpus(tiny, corpus.texts)
    assert corpus.vectors("mean", "last").dtype == np.float16
    for pooling in ("mean", "max", "mean_max"):
        for layers in ("last", -1, tiny.num_layers):
            got = corpus.sentence(pooling, layers)
            assert got.dtype == np.float32
            np.testing.assert_allclose(
                got, reference.sentence(pooling, layers), atol=2e-3, rtol=2e-3
            )
    with pytest.raises(ValueError, match=r"keeps only \[4\].*--layers all"):
        corpus.sentence("mean", "sum_last4")
    with pytest.raises(ValueError, match="keeps mean, max"):
        corpus.sentence("cls", "last")
    with pytest.raises(ValueError, match="needs every layer"):
        corpus.per_layer("mean")
