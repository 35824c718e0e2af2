"""The "Word in context" snippet runs and prints the similarity matrix the page shows."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer import context as ctx
from explorer.codegen.context import context_snippet
from explorer.context.sentences import TUTORIAL_SENTENCES
from explorer.layers import LAYER_CHOICES
from explorer.model.ref import ModelRef
from tests.snippets import assert_prints_headline, run_snippet

SENTENCES = list(TUTORIAL_SENTENCES)


def _printed_matrix(printed: str, n: int) -> np.ndarray:
    matrix = printed.split("]\n", 1)[1].split("]]", 1)[0]  # the headline's lines follow
    numbers = [float(x) for x in re.findall(r"-?\d+\.\d*", matrix)]
    return np.array(numbers).reshape(n, n)


@pytest.mark.slow
@pytest.mark.parametrize("layers", ["last", "concat_last4"])
@pytest.mark.parametrize("post", ["none", "center", "standardize", "abtt"])
def test_snippet_matches_the_library(bundled, layers, post):
    from explorer.explain import postprocess_layers

    source = context_snippet(
        ModelRef(explorer.DEFAULT_MODEL), SENTENCES, "bank", layers, "mean", post=post
    )
    assert "output_hidden_states=True" in source and "word_ids()" in source
    assert ("occurrences - mean" in source) == (post == "center")
    namespace, printed = run_snippet(source)

    if post == "center":  # the page's centring by the layer means, as it always was
        occurrences, per_layer = explorer.word_layer_vectors(bundled, SENTENCES, "bank")
        means = ctx.layer_means(ctx.content_token_states(bundled, SENTENCES))
        expected = ctx.similarity_matrix(per_layer, layers, means)
    elif post != "none":
        occurrences, per_layer = explorer.word_layer_vectors(bundled, SENTENCES, "bank")
        tokens = ctx.content_token_states(bundled, SENTENCES)
        expected = ctx.similarity_matrix(postprocess_layers(per_layer, post, tokens), layers)
    else:
        occurrences, vectors = explorer.word_vectors(bundled, SENTENCES, "bank", layers)
        expected = explorer.cosine_similarity(vectors)
    assert namespace["similarity"].shape == (5, 5) == expected.shape
    np.testing.assert_allclose(namespace["similarity"], expected, atol=1e-4)
    # The printed matrix carries the same numbers (3 decimals).
    np.testing.assert_allclose(_printed_matrix(printed, 5), expected, atol=6e-4)
    assert "#5 (sentence 3)" in printed


@pytest.mark.slow
def test_snippet_handles_split_words_phrases_and_other_subword_modes(bundled):
    sentences = [
        "Contextual embeddings change with context.",
        "Static embeddings do not.",
        "Word embeddings, again: EMBEDDINGS!",
    ]
    for word, subwords in (("embeddings", "max"), ("word embeddings", "first")):
        source = context_snippet(
            ModelRef(explorer.DEFAULT_MODEL), sentences, word, "sum_last4", subwords
        )
        namespace, _ = run_snippet(source)
        _, vectors = explorer.word_vectors(bundled, sentences, word, "sum_last4", subwords)
        np.testing.assert_allclose(
            namespace["similarity"], explorer.cosine_similarity(vectors), atol=1e-4
        )


@pytest.mark.parametrize("layers", [*LAYER_CHOICES, 3, -2])
@pytest.mark.parametrize("post", ["none", "center", "abtt"])
def test_snippet_compiles_for_every_layer_choice(layers, post):
    source = context_snippet(
        ModelRef("bert-base-uncased"),
        ["A bank.", 'A "quoted" bank\'s \\ edge.'],
        "bank",
        layers,
        "mean",
        post=post,
    )
    compile(source, "<context snippet>", "exec")
    assert "name = 'bert-base-uncased'" in source


def test_snippet_rejects_unknown_modes():
    with pytest.raises(ValueError, match="subword mode"):
        context_snippet(ModelRef(explorer.DEFAULT_MODEL), ["A bank."], "bank", "last", "median")
    with pytest.raises(ValueError, match="layer choice"):
        context_snippet(ModelRef(explorer.DEFAULT_MODEL), ["A bank."], "bank", "middle", "mean")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("labelled", "layers", "post"),
    [(True, "last", "none"), (True, "concat_last4", "center"), (False, "last", "none")],
)
def test_snippet_prints_the_headline(bundled, labelled, layers, post):
    # issue 33.5: the snippet printed only the matrix, not the means, gaps or extremes the
    # page's headline quotes
    from explorer.choice import POST_NAMES

    text = ctx.DEFAULT_TEXT if labelled else "\n".join(SENTENCES)
    sentences, senses = ctx.parse_labelled_sentences(text)
    occurrences, per_layer = explorer.word_layer_vectors(bundled, sentences, ctx.DEFAULT_WORD)
    if post == "center":
        per_layer = (
            per_layer - ctx.layer_means(ctx.content_token_states(bundled, sentences))[:, None]
        )
    kinds = ctx.pair_kinds(occurrences, senses)
    headline = ctx.what_to_notice(
        ctx.DEFAULT_WORD,
        ctx.pair_similarities(per_layer),
        kinds,
        ctx.pair_labels(len(occurrences)),
        layers,
        ctx.similarity_matrix(per_layer, layers),
        POST_NAMES[post],
    )
    source = context_snippet(
        ModelRef(bundled.name), sentences, ctx.DEFAULT_WORD, layers, post=post, senses=senses
    )
    _, printed = run_snippet(source)
    assert ("different senses" in headline) == labelled
    assert_prints_headline(printed, headline)


@pytest.mark.parametrize(
    ("layers", "subwords", "post"),
    [("last", "mean", "none"), ("concat_last4", "max", "center"), (3, "first", "abtt")],
)
def test_the_pages_vector_choice_writes_the_snippet_its_parts_write(layers, subwords, post):
    # issue 34: the page hands the snippet its VectorChoice, not its parts one by one
    ref = ModelRef(explorer.DEFAULT_MODEL)
    choice = explorer.VectorChoice("cls", layers, subwords, post)  # pooling: unused for words
    parts = context_snippet(ref, SENTENCES, "bank", layers, subwords, post=post)
    assert context_snippet(ref, SENTENCES, "bank", choice) == parts
    with pytest.raises(ValueError, match="not both"):
        context_snippet(ref, SENTENCES, "bank", choice, "mean")
