"""The Similarity & search page's snippets run and print the library's numbers."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer.codegen.similarity import search_snippet, similarity_snippet
from explorer.model.ref import ModelRef
from explorer.similarity import _search as search
from tests.snippets import assert_prints_headline, run_snippet

SENTENCES = [
    "The bank raised its interest rates again.",
    "We had a picnic on the grassy bank of the river.",
    "The striker scored twice in the second half.",
    'A "quoted" line with a backslash \\ in it.',
]


@pytest.mark.slow
@pytest.mark.parametrize("layers", ["last", "concat_last4"])
def test_similarity_snippet_matches_the_library(bundled, layers):
    poolings = list(explorer.POOLINGS)
    namespace, printed = run_snippet(
        similarity_snippet(ModelRef(explorer.DEFAULT_MODEL), SENTENCES, poolings, layers)
    )
    matrices = search.similarity_matrices(
        explorer.embed_corpus(bundled, SENTENCES), poolings, layers
    )
    agreement = search.spearman_agreement(matrices)
    for pooling in poolings:
        np.testing.assert_allclose(namespace["similarity"][pooling], matrices[pooling], atol=1e-4)
    for (a, b), rho in namespace["agreement"].items():
        assert rho == pytest.approx(agreement.loc[a, b], abs=1e-4)
        assert re.search(rf"Spearman {a} vs {b}: {agreement.loc[a, b]:.4f}", printed)


@pytest.mark.slow
def test_search_snippet_matches_the_library(bundled):
    corpus = SENTENCES + ["Our team lost the final on penalties.", "Bread smells wonderful."]
    query = "Who won the football match?"
    source = search_snippet(
        ModelRef(explorer.DEFAULT_MODEL),
        corpus,
        query,
        explorer.VectorChoice("cls", "sum_last4"),
        k=3,
    )
    namespace, printed = run_snippet(source)
    vectors = explorer.embed_corpus(bundled, corpus).sentence("cls", "sum_last4")
    query_vector = explorer.embed_corpus(bundled, [query]).sentence("cls", "sum_last4")[0]
    results = search.top_k(query_vector, vectors, corpus, k=3)
    assert list(namespace["top"]) == list(results["index"])
    np.testing.assert_allclose(namespace["scores"][namespace["top"]], results["score"], atol=1e-4)
    first = printed.splitlines()[0]
    assert (
        first.startswith(f"1. {results.loc[0, 'score']:.4f}")
        and corpus[results.loc[0, "index"]] in first
    )


@pytest.mark.slow
def test_similarity_snippet_prints_the_headline(bundled):
    # issue 33.5: the headline quotes two decimals (0.50) the 3-decimal matrices did not print
    from explorer import similarity
    from explorer.data.examples import SIMILARITY_SENTENCES
    from explorer.pooling import POOLING_LABELS, POOLINGS

    sentences = [s for s in SIMILARITY_SENTENCES.splitlines() if s.strip()]
    matrices = {
        p: explorer.cosine_similarity(explorer.sentence_embeddings(bundled, sentences, p, "last"))
        for p in POOLINGS
    }
    _, printed = run_snippet(similarity_snippet(ModelRef(bundled.name), sentences, list(POOLINGS)))
    assert_prints_headline(printed, similarity.similarity_notice(matrices, POOLING_LABELS))
