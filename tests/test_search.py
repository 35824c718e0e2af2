"""Similarity under several poolings, Spearman agreement, top-k search, their figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer.data import uploads
from explorer.figures.similarity import agreement_figure, similarity_heatmaps
from explorer.layers import layer_choices
from explorer.similarity import _search as search

SENTENCES = [
    "The bank raised its interest rates.",
    "We sat on the river bank.",
    "The striker scored twice.",
    "Fresh bread smells wonderful.",
]


@pytest.fixture(scope="module")
def corpus(tiny):
    return explorer.embed_corpus(tiny, SENTENCES)


def test_similarity_matrices(corpus):
    matrices = search.similarity_matrices(corpus, ("cls", "mean_max"), "sum_last4")
    assert list(matrices) == ["cls", "mean_max"]
    for matrix in matrices.values():
        assert matrix.shape == (4, 4)
        np.testing.assert_allclose(np.diag(matrix), 1.0, atol=1e-5)
        np.testing.assert_allclose(matrix, matrix.T, atol=1e-6)
    expected = explorer.cosine_similarity(corpus.sentence("cls", "sum_last4"))
    np.testing.assert_allclose(matrices["cls"], expected, atol=1e-6)
    with pytest.raises(ValueError, match="Unknown pooling"):
        search.similarity_matrices(corpus, ("median",))
    with pytest.raises(ValueError, match="at least one pooling"):
        search.similarity_matrices(corpus, ())


def test_spearman_agreement():
    rng = np.random.default_rng(0)
    a = rng.uniform(size=(5, 5))
    a = (a + a.T) / 2
    table = search.spearman_agreement({"x": a, "same": a.copy(), "cubed": a**3, "neg": -a})
    assert table.loc["x", "same"] == pytest.approx(1.0)  # identical strategies
    assert table.loc["x", "cubed"] == pytest.approx(1.0)  # same ranks, other values
    assert table.loc["neg", "x"] == pytest.approx(-1.0)
    np.testing.assert_allclose(table.to_numpy(), table.to_numpy().T)
    assert list(table.index) == list(table.columns) == ["x", "same", "cubed", "neg"]
    with pytest.raises(ValueError, match="at least 3 sentences"):
        search.spearman(a[:2, :2], a[:2, :2])
    assert np.isnan(search.spearman(np.ones((3, 3)), a[:3, :3]))


def test_pair_values_take_the_upper_triangle():
    matrix = np.arange(9).reshape(3, 3)
    assert search.pair_values(matrix).tolist() == [1, 2, 5]
    with pytest.raises(ValueError, match="square"):
        search.pair_values(np.zeros((2, 3)))


def test_top_k(corpus):
    vectors = corpus.sentence("mean", "last")
    results = search.top_k(vectors[2], vectors, SENTENCES, k=3)
    assert list(results.columns) == ["rank", "score", "text", "index"]
    assert results.loc[0, "index"] == 2 and results.loc[0, "score"] == pytest.approx(1.0)
    assert results["score"].is_monotonic_decreasing and list(results["rank"]) == [1, 2, 3]
    assert len(search.top_k(vectors[0], vectors, SENTENCES, k=50)) == 4  # capped at n
    for bad in (0, 51, 2.5, True):
        with pytest.raises(ValueError, match="k must be"):
            search.top_k(vectors[0], vectors, SENTENCES, k=bad)
    with pytest.raises(ValueError, match="corpus vectors"):
        search.top_k(vectors[0], vectors[:2], SENTENCES)


def test_input_helpers():
    assert uploads.texts_from_lines(" a \n\n b\n", max_rows=None) == ["a", "b"]
    with pytest.raises(ValueError, match="No sentences"):
        uploads.texts_from_lines(" \n ", max_rows=None)
    assert search.corpus_texts(pd.DataFrame({"Text": ["x", " ", "y"], "n": [1, 2, 3]})) == [
        "x",
        "y",
    ]
    assert search.corpus_texts(pd.DataFrame({"sentence": ["only"]})) == ["only"]
    with pytest.raises(ValueError, match="no 'text' column"):
        search.corpus_texts(pd.DataFrame({"a": ["x"], "b": ["y"]}))
    assert layer_choices(3) == ["last", "second_to_last", "sum_all", "embeddings"]
    assert len(layer_choices(6)) == len(explorer.LAYER_CHOICES)


def test_too_many_sentences_raise(tiny):
    many = explorer.embed_corpus(tiny, [f"Sentence {i}." for i in range(61)])
    with pytest.raises(ValueError, match="too many"):
        search.similarity_matrices(many)


def test_figures(corpus):
    matrices = search.similarity_matrices(corpus, ("cls", "mean"))
    figure = similarity_heatmaps(matrices, SENTENCES, {"cls": "[CLS]", "mean": "Mean"})
    assert len(figure.data) == 2
    assert [a.text for a in figure.layout.annotations] == ["[CLS]", "Mean"]
    assert figure.layout.coloraxis.cmax == 1.0
    assert all("cosine" in trace.hovertemplate for trace in figure.data)
    assert figure.data[0].customdata[0][1][1].startswith("We sat")  # full text on hover
    other = similarity_heatmaps({"max": matrices["mean"] * 0 + 1}, SENTENCES)
    assert other.data[0].z.tolist() != figure.data[0].z.tolist()
    assert other.layout.annotations[0].text == explorer.pooling.POOLING_LABELS["max"]  # the default
    rho = agreement_figure(search.spearman_agreement(matrices))
    assert rho.data[0].zmin == -1 and rho.layout.title.text


def test_similarity_notice_names_the_extreme_pairs_and_the_flattest_pooling():
    mean = np.array([[1.0, 0.8, 0.1], [0.8, 1.0, 0.3], [0.1, 0.3, 1.0]])
    flat = np.array([[1.0, 0.9, 0.85], [0.9, 1.0, 0.88], [0.85, 0.88, 1.0]])
    text = search.similarity_notice({"mean": mean, "max": flat}, {"max": "max pooling"})
    assert "Under mean, sentences 1 and 2 are the most similar (0.80)" in text
    assert "1 and 3 the least (0.10)" in text
    assert "Max pooling squeezes every pair into 0.85–0.90" in text
    assert "squeezes" not in search.similarity_notice({"mean": mean})
    with pytest.raises(ValueError, match="pooling"):
        search.similarity_notice({})
