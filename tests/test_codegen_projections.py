"""The Projections page's "Show code" snippets run and give the library's numbers."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer.codegen.datafile import INLINE_ROWS
from explorer.codegen.mapfile import map_file_block
from explorer.codegen.projections import (
    DATA_FILE,
    projection_data,
    projection_snippet,
    word_projection_snippet,
)
from explorer.expressions import layers_expression
from explorer.maps import ProjectionParams, Projector
from explorer.model.ref import ModelRef
from tests.snippets import assert_prints_headline, run_snippet

TEXTS = [
    "The bank approved the loan.",
    "We sat on the grassy river bank all afternoon.",
    "Rain again.",
    "Stocks fell sharply today, and the bank lost money on all of them.",
    "This soup needs more salt.",
    "Our team won the final on penalties after a dramatic, nervous evening.",
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pooling", "layers"),
    [
        ("mean", "sum_last4"),
        ("max", "concat_last4"),
        ("mean_max", "last"),
        ("mean_max", "concat_last4"),
        ("cls", "sum_all"),
        ("mean", -2),
    ],
)
def test_snippet_vectors_equal_the_library(bundled, pooling, layers):
    code = projection_snippet(
        ModelRef(bundled.name), TEXTS, pooling, layers, ProjectionParams("pca")
    )
    namespace, out = run_snippet(code)
    expected = explorer.sentence_embeddings(bundled, TEXTS, pooling, layers)
    assert namespace["vectors"].shape == expected.shape
    np.testing.assert_allclose(namespace["vectors"], expected, atol=1e-4)
    projector = Projector("pca").fit(expected)
    printed = re.search(r"explained variance per axis: \[([^\]]+)\]", out).group(1).split()
    np.testing.assert_allclose(
        [float(v) for v in printed], projector.explained_variance_ratio_, atol=1e-4
    )
    total = float(re.search(r"total: ([\d.]+)", out).group(1))
    assert total == pytest.approx(projector.explained_variance_ratio_.sum(), abs=1e-4)
    trust = float(re.search(r"trustworthiness \(2 neighbours\): ([\d.]+)", out).group(1))
    assert trust == pytest.approx(projector.trustworthiness_, abs=1e-4)


@pytest.mark.slow
def test_tsne_snippet_prints_shape_and_first_vectors(bundled):
    code = projection_snippet(
        ModelRef(bundled.name), TEXTS, "mean", "last", ProjectionParams("tsne", perplexity=1.6)
    )
    assert "perplexity=1.6" in code and "random_state=0" in code
    assert "from openTSNE import" in code and "sklearn.manifold import TSNE" not in code
    namespace, out = run_snippet(code)
    assert "vectors: (6, 384)" in out
    assert namespace["coords"].shape == (6, 2)
    expected = explorer.sentence_embeddings(bundled, TEXTS, "mean", "last")
    np.testing.assert_allclose(namespace["vectors"], expected, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("n_components", [2, 3])
def test_tsne_snippet_gives_the_pages_coordinates(bundled, n_components):
    texts = [*TEXTS, "Money in the vault.", "Fish by the river.", "A loan for a house."]
    vectors = explorer.sentence_embeddings(bundled, texts, "mean", "last")
    projector = Projector("tsne", n_components, random_state=3).fit(vectors)
    assert projector.perplexity_ == 2.6  # lowered for 9 points: the page passes this on
    code = projection_snippet(
        ModelRef(bundled.name), texts, "mean", "last",
        ProjectionParams("tsne", n_components, 3, perplexity=projector.perplexity_),
    )  # fmt: skip
    namespace, out = run_snippet(code)
    np.testing.assert_allclose(namespace["vectors"], vectors, atol=1e-4)
    page = Projector("tsne", n_components, random_state=3).fit(namespace["vectors"])
    np.testing.assert_allclose(namespace["coords"], page.embedding_, atol=1e-3)
    trust = float(re.search(r"trustworthiness \(4 neighbours\): ([\d.]+)", out).group(1))
    assert trust == pytest.approx(page.trustworthiness_, abs=1e-4)


def test_tsne_snippet_writes_the_librarys_settings():
    from explorer.maps._tsne import TSNE_EARLY_ITERATIONS, TSNE_ITERATIONS, tsne_neighbors

    texts = [f"Sentence number {i}." for i in range(500)]
    code = projection_snippet(
        ModelRef("bert-base-uncased"), texts, "mean", "last", ProjectionParams("tsne", 2, 0)
    )
    compile(code, "<snippet>", "exec")
    assert f"k_neighbors={tsne_neighbors(500, 30.0)}" in code
    assert f"optimize(n_iter={TSNE_EARLY_ITERATIONS}, exaggeration=12" in code
    assert f"optimize(n_iter={TSNE_ITERATIONS}, momentum=" in code
    assert "negative_gradient_method='fft'" in code
    code3 = projection_snippet(
        ModelRef("bert-base-uncased"), texts, "mean", "last", ProjectionParams("tsne", 3, 0)
    )
    assert "negative_gradient_method='bh'" in code3
    assert "initialization.pca(reduced, 3, random_state=0)" in code3


def test_umap_snippet_compiles_and_names_its_parameters():
    code = projection_snippet(
        ModelRef("bert-base-uncased"), TEXTS, "cls", "embeddings", ProjectionParams("umap", 3, 7, 5)
    )
    compile(code, "<snippet>", "exec")
    assert "n_components=3, n_neighbors=5, random_state=7, n_jobs=1, metric='precomputed'" in code
    assert "name = 'bert-base-uncased'" in code
    assert "cls = hidden[:, :, 0]" in code and "return cls[0]" in code
    assert "estimates" not in code  # 6 points: the page's trustworthiness is exact too


def test_large_umap_snippets_give_exact_neighbours_and_say_the_page_estimates():
    params = ProjectionParams("umap", 2, 0, 15)
    texts = [f"Sentence number {i}." for i in range(4100)]
    code = projection_snippet(ModelRef("bert-base-uncased"), texts, "mean", "last", params)
    compile(code, "<snippet>", "exec")
    assert "NearestNeighbors(\n    n_neighbors=15\n).fit(vectors).kneighbors(vectors)" in code
    assert "umap.UMAP(\n    n_components=2, n_neighbors=15, random_state=0, n_jobs=1," in code
    assert "precomputed_knn=(indices.astype('int32'), distances.astype('float32'))" in code
    assert "The page estimates this from 2,000 random points" in code
    texts = [f"Sentence number {i}." for i in range(10_001)]
    code = projection_snippet(ModelRef("bert-base-uncased"), texts, "mean", "last", params)
    compile(code, "<snippet>", "exec")
    assert "umap.UMAP(n_components=2, n_neighbors=15, random_state=0, n_jobs=1)" in code
    assert "precomputed" not in code


@pytest.mark.slow
def test_umap_snippet_gives_the_pages_coordinates(bundled):
    texts = [*TEXTS, "Money in the vault.", "Fish by the river.", "A loan for a house."]
    code = projection_snippet(
        ModelRef(bundled.name), texts, "mean", "last", ProjectionParams("umap", 2, 3, 4)
    )
    namespace, out = run_snippet(code)
    projector = Projector("umap", 2, random_state=3, n_neighbors=4).fit(namespace["vectors"])
    np.testing.assert_allclose(namespace["coords"], projector.embedding_, atol=1e-4)
    trust = float(re.search(r"trustworthiness \(4 neighbours\): ([\d.]+)", out).group(1))
    assert trust == pytest.approx(projector.trustworthiness_, abs=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("layers", ["sum_last4", "concat_last4", "last"])
def test_word_snippet_vectors_equal_the_library(bundled, layers):
    texts = [*TEXTS, "A bank, another bank and an embankment."]
    occurrences, expected = explorer.word_vectors(bundled, texts, "bank", layers)
    spans = [(o.text_index, o.char_start, o.char_end) for o in occurrences]
    code = word_projection_snippet(
        ModelRef(bundled.name), texts, spans, "bank", layers, ProjectionParams("pca", 3)
    )
    assert "Rain again." not in code  # only texts with the word are written
    namespace, _ = run_snippet(code)
    np.testing.assert_allclose(namespace["vectors"], expected, atol=1e-4)
    assert namespace["coords"].shape == (5, 3)


@pytest.mark.slow
def test_word_snippet_averages_subwords(bundled):
    texts = ["Contextual embeddings are useful.", "We study embeddings.", "Embeddings!"]
    occurrences, expected = explorer.word_vectors(bundled, texts, "embeddings", "last")
    assert occurrences[0].num_tokens > 1
    spans = [(o.text_index, o.char_start, o.char_end) for o in occurrences]
    namespace, _ = run_snippet(
        word_projection_snippet(ModelRef(bundled.name), texts, spans, "embeddings")
    )
    np.testing.assert_allclose(namespace["vectors"], expected, atol=1e-4)


def test_a_long_corpus_is_read_from_the_data_file(bundled, tmp_path):
    # Issue 33: the page's program was about 300 lines, nearly all of them its texts; a long
    # corpus now goes to a file beside the program, which stays short and gives every number.
    texts = [
        f"Sentence {i}: the {w} was {v}."
        for i, (w, v) in enumerate(
            (w, v)
            for w in ("match", "bank", "soup", "film", "train")
            for v in ("late", "fine", "new", "cold", "loud", "odd")
        )
    ]
    values = [len(t) for t in texts]
    code = projection_snippet(
        ModelRef(bundled.name), texts, "mean", "last", ProjectionParams("pca")
    )
    code += map_file_block("Length", values, numeric=True, contours=False, from_data=True)
    # 90 lines, and 13 to read the trustworthiness as the page does (issue 33.5)
    assert len(code.splitlines()) <= 105 and "Sentence 7" not in code
    (tmp_path / DATA_FILE).write_bytes(projection_data(texts, values))
    namespace, _ = run_snippet(code, folder=tmp_path)
    expected = explorer.sentence_embeddings(bundled, texts, "mean", "last")
    np.testing.assert_allclose(namespace["vectors"], expected, atol=1e-4)
    assert namespace["values"] == values
    assert projection_data(texts[:INLINE_ROWS]) is None  # a few texts are written out


def test_texts_are_safe_literals():
    texts = ['It\'s "quoted"\nwith a newline', "'''; import os; '''"]
    code = projection_snippet(ModelRef("bert-base-uncased"), texts)
    namespace: dict = {}
    texts_source = code[code.index("texts = [") : code.index("vectors = np.concatenate")]
    exec(texts_source, namespace)
    assert namespace["texts"] == texts


def test_combine_expressions():
    assert layers_expression("last") == "x[L]"
    assert layers_expression(0) == "x[0]"
    assert layers_expression("sum_all", "mean") == "mean[1:].sum(dim=0)"
    with pytest.raises(ValueError, match="Unknown layer choice"):
        layers_expression("middle")


def test_snippet_prints_the_pages_trustworthiness_caution(tiny, tiny_bert_path):
    # issue 33.5: the page's caption reads the trustworthiness with its k neighbours and says
    # what it does not measure; the snippet printed the score alone
    from explorer.maps._quality import TRUST_CAUTION, describe_trustworthiness

    texts = [*TEXTS, "Money in the vault.", "Fish by the river.", "A loan for a house."]
    texts += ["The match was late.", "Cold soup again.", "A loud film."]
    code = projection_snippet(
        ModelRef(tiny_bert_path), texts, "mean", "last", ProjectionParams("pca")
    )
    namespace, printed = run_snippet(code)
    projector = Projector("pca").fit(namespace["vectors"])
    k = projector.trustworthiness_neighbors_
    assert k == 5
    caption = describe_trustworthiness(projector.trustworthiness_, k)
    total = projector.explained_variance_ratio_.sum()
    caption += f" The 2 principal components together explain {100 * total:.1f} % of the variance"
    assert_prints_headline(printed, caption)
    assert caption.split(". ")[0] + "." in printed  # the score, its neighbours, its reading
    assert TRUST_CAUTION + "." in printed


@pytest.mark.parametrize(("score", "reading"), [(0.949, "almost every"), (0.8496, "most")])
def test_trustworthiness_is_read_as_shown(score, reading):
    from explorer.maps._quality import describe_trustworthiness

    # 0.949 shows as 0.95: it reads as 0.95 does (the page read it as below 0.95)
    assert describe_trustworthiness(score, 5).split(": ", 1)[1].startswith(reading)
    assert "(with 1 neighbour)" in describe_trustworthiness(score, 1)


def test_the_maps_vector_choice_writes_the_snippets_its_parts_write():
    # issue 34: the map hands its snippets its VectorChoice, not its parts one by one
    ref, params = ModelRef(explorer.DEFAULT_MODEL), ProjectionParams("pca")
    choice = explorer.VectorChoice("max", "sum_last4", post="center")
    texts = ["A bank.", "The river bank.", "Banks lend."]
    spans = [(0, 2, 6), (1, 10, 14)]
    assert projection_snippet(ref, texts, choice, params=params) == projection_snippet(
        ref, texts, "max", "sum_last4", params, "center"
    )
    assert word_projection_snippet(
        ref, texts, spans, "bank", choice, params
    ) == word_projection_snippet(ref, texts, spans, "bank", "sum_last4", params, "center")
