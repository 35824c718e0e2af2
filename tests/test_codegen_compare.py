"""The Compare models page's snippets print the library's numbers (explorer.compare)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer.codegen.compare import cross_cka_snippet, tokens_compare_snippet
from explorer.compare import cross_cka, token_stats
from explorer.model.loading import random_weights
from explorer.model.ref import ModelRef
from tests.snippets import run_snippet

A = ModelRef(explorer.DEFAULT_MODEL)

TEXTS = (
    "The bank robber, seen by the river, was fishing.",
    "She sat on the bank of the river.",
    "Embeddings cut words into Quokka-sized pieces.",
)


def test_cross_cka_snippet_matches_the_library_across_tokenizers(bundled, other_tokenizer_path):
    source = cross_cka_snippet(A, ModelRef(other_tokenizer_path), TEXTS, max_words=12)
    namespace, printed = run_snippet(source)
    expected = cross_cka(bundled, explorer.load_model(other_tokenizer_path), TEXTS, max_words=12)
    np.testing.assert_allclose(namespace["cka"], expected, atol=1e-5)
    assert printed.startswith("12 words")
    best = re.search(r"best layer of B for each layer of A: \[([\d ]+)\]", printed).group(1)
    assert [int(x) for x in best.split()] == list(expected.argmax(axis=1))


@pytest.mark.slow
def test_cross_cka_snippet_random_weights_are_the_apps(bundled):
    source = cross_cka_snippet(A, A.random_twin(), TEXTS[:2], max_words=1000)
    namespace, _ = run_snippet(source)
    expected = cross_cka(bundled, random_weights(bundled), TEXTS[:2])
    np.testing.assert_allclose(namespace["cka"], expected, atol=1e-5)


def test_tokens_snippet_counts_what_token_stats_counts(bundled, other_tokenizer_path):
    source = tokens_compare_snippet(A, ModelRef(other_tokenizer_path), TEXTS[0], TEXTS)
    namespace, printed = run_snippet(source)
    for label, model in (("A", bundled), ("B", explorer.load_model(other_tokenizer_path))):
        stats = token_stats(model, TEXTS)
        got = namespace["stats"][label]
        assert got["words"] == stats.words and got["unknown"] == stats.unknown
        assert got["tokens per word"] == pytest.approx(stats.fertility)
        assert got["share split"] == pytest.approx(stats.split_share)
    first, second = printed.split("\n")[:2]
    assert first.startswith("A ['[CLS]', 'the', 'bank', 'robber', ','")  # bundled: uncased
    assert second.startswith("B ['[CLS]', 'The', 'bank'")  # its own cased vocabulary


@pytest.mark.parametrize(("pooling", "layers"), [("mean", "last"), ("cls", "second_to_last")])
def test_neighbours_snippet_agrees_with_the_library(bundled, other_tokenizer_path, pooling, layers):
    from explorer.codegen.compare import neighbours_snippet
    from explorer.compare import neighbour_agreement

    texts = [*TEXTS, "A bat flew out of the cave.", "Spring is the season of flowers.", "Hi."]
    source = neighbours_snippet(A, ModelRef(other_tokenizer_path), texts, pooling, layers, 2)
    namespace, printed = run_snippet(source)
    other = explorer.load_model(other_tokenizer_path)
    vectors_a = explorer.embed_corpus(bundled, texts).sentence(pooling, layers)
    vectors_b = explorer.embed_corpus(other, texts).sentence(pooling, layers)
    np.testing.assert_allclose(namespace["vectors_a"], vectors_a, atol=1e-4)
    np.testing.assert_allclose(namespace["vectors_b"], vectors_b, atol=1e-4)
    expected = neighbour_agreement(vectors_a, vectors_b, 2)
    np.testing.assert_allclose(namespace["agreement"], expected)
    assert printed.startswith(f"mean agreement {expected.mean():.3f}")


def test_search_snippet_finds_what_the_library_finds(bundled, other_tokenizer_path):
    from explorer.codegen.compare import search_compare_snippet

    texts = [*TEXTS, "A bat flew out of the cave.", "Spring is the season of flowers."]
    query = "fishing by the water"
    source = search_compare_snippet(
        A, ModelRef(other_tokenizer_path), texts, query, "mean", "last", 3
    )
    namespace, printed = run_snippet(source)
    for name, model in (("top_a", bundled), ("top_b", explorer.load_model(other_tokenizer_path))):
        vectors = explorer.embed_corpus(model, texts).sentence("mean", "last")
        query_vector = explorer.embed_corpus(model, [query]).sentence("mean", "last")[0]
        expected = explorer.neighbors(vectors, query_vector, 3).indices.tolist()
        assert namespace[name].tolist() == expected
    assert printed.strip().endswith("of 3")
