"""The clusters "Show code" snippet runs and gives the library's clusters and names."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.codegen.clusters import clusters_snippet
from explorer.codegen.projections import DATA_FILE, projection_data
from explorer.maps._clusters import cluster, cluster_names, cluster_terms
from explorer.model.ref import ModelRef
from tests.snippets import run_snippet
from tests.test_clusters import TEXTS


@pytest.mark.parametrize("method", ["kmeans", "hdbscan"])
@pytest.mark.parametrize("k", [None, 3])
def test_snippets_compile(method, k):
    code = clusters_snippet(ModelRef("bert-base-uncased"), TEXTS, "mean", "last", method, k)
    compile(code, "<snippet>", "exec")
    assert "CountVectorizer(stop_words='english')" in code


@pytest.mark.slow
@pytest.mark.parametrize(("method", "k"), [("kmeans", None), ("kmeans", 3), ("hdbscan", None)])
def test_snippet_reproduces_the_library(bundled, method, k, tmp_path):
    code = clusters_snippet(ModelRef(bundled.name), TEXTS, "mean", "last", method, k, top=3)
    data = projection_data(TEXTS)  # many texts: read from the file offered beside the code
    if data is not None:
        (tmp_path / DATA_FILE).write_bytes(data)
    namespace, out = run_snippet(code, folder=tmp_path)
    vectors = explorer.sentence_embeddings(bundled, TEXTS, "mean", "last")
    np.testing.assert_allclose(namespace["vectors"], vectors, atol=1e-4)
    result = cluster(vectors, method, k)
    np.testing.assert_array_equal(namespace["labels"], result.labels)
    terms = cluster_terms(TEXTS, result.labels, top=3)
    words = list(namespace["words"])
    for row, c in enumerate(sorted(terms)):
        for word, weight in terms[c]:
            assert namespace["weights"][row, words.index(word)] == pytest.approx(weight, abs=1e-4)
    for c, name in cluster_names(TEXTS, result.labels).items():
        assert f"{c:>3} (" in out and name in out


@pytest.mark.slow
def test_word_snippet_clusters_the_occurrences(bundled):
    texts = [
        "The bank approved the loan.",
        "She put money in the bank.",
        "The bank raised interest rates.",
        "We sat on the river bank.",
        "The boat reached the muddy bank.",
        "Fish swam near the bank of the stream.",
    ]
    occurrences, vectors = explorer.word_vectors(bundled, texts, "bank", "last")
    spans = [(o.text_index, o.char_start, o.char_end) for o in occurrences]
    code = clusters_snippet(
        ModelRef(bundled.name), texts, None, "last", "kmeans", 2, word="bank", spans=spans
    )
    namespace, _ = run_snippet(code)
    np.testing.assert_array_equal(namespace["labels"], cluster(vectors, k=2).labels)
