"""The explanation snippets run and print the numbers the library gives."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer.codegen.explain import (
    cka_snippet,
    classic_snippet,
    explain_snippet,
    postprocess_snippet,
)
from explorer.explain import explain_similarity, layer_cka, postprocess, rogue_share
from explorer.layers import LAYER_CHOICES
from explorer.model.ref import ModelRef
from tests.snippets import run_snippet

A = "The invoice was paid late, again."
B = "They settled the bill after the deadline."
TEXTS = [
    "The invoice was paid late.",
    "They settled the bill.",
    "We sat on the river bank.",
    "The striker scored twice.",
    "Rain fell all night.",
    "A cat slept by the fire.",
    "Prices rose again this year.",
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pooling", "layers", "exclude_special"),
    [("mean", "last", False), ("max", "sum_last4", False), ("mean_max", "concat_last4", True)],
)
def test_explain_snippet_prints_the_library_pairs(bundled, pooling, layers, exclude_special):
    source = explain_snippet(
        ModelRef(explorer.DEFAULT_MODEL),
        A,
        B,
        pooling,
        layers,
        exclude_special=exclude_special,
        top=3,
    )
    namespace, printed = run_snippet(source)
    explained = explain_similarity(bundled, A, B, pooling, layers, exclude_special=exclude_special)
    assert namespace["score"] == pytest.approx(explained.score, abs=1e-5)
    np.testing.assert_allclose(namespace["pairs"], explained.pairs, atol=1e-5)
    assert tuple(namespace["tokens_a"]) == explained.tokens_a
    assert f"cosine {explained.score:.4f}; the pairs sum to {explained.score:.4f}" in printed
    i, j, value = explained.top_pairs(1)[0]
    assert f"{explained.tokens_a[i]!r} with {explained.tokens_b[j]!r}: {value:+.4f}" in printed


@pytest.mark.slow
def test_explain_snippet_for_cls_matches_integrated_gradients(tiny_bert_path, tiny):
    explained = explain_similarity(tiny, A, B, "cls", "last")
    source = explain_snippet(ModelRef(tiny_bert_path), A, B, "cls", "last", steps=explained.steps)
    namespace, printed = run_snippet(source)
    assert namespace["score"] == pytest.approx(explained.score, abs=1e-5)
    np.testing.assert_allclose(namespace["scores_a"], explained.token_scores_a, atol=1e-5)
    np.testing.assert_allclose(namespace["scores_b"], explained.token_scores_b, atol=1e-5)
    np.testing.assert_allclose(namespace["baselines"], explained.baseline_scores, atol=1e-5)
    assert f"attributions sum to {explained.token_scores_a.sum():.4f}" in printed


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["none", "center", "standardize", "abtt"])
def test_postprocess_snippet_matches_the_library(bundled, mode):
    namespace, printed = run_snippet(
        postprocess_snippet(ModelRef(explorer.DEFAULT_MODEL), TEXTS, mode, components=2)
    )
    vectors = explorer.sentence_embeddings(bundled, TEXTS, "mean", "last")
    np.testing.assert_allclose(namespace["vectors"], vectors, atol=1e-5)
    processed = postprocess(vectors, mode, components=2)
    np.testing.assert_allclose(namespace["processed"], processed, atol=1e-4)
    np.testing.assert_allclose(
        namespace["similarity"], explorer.cosine_similarity(processed), atol=1e-4
    )
    before = rogue_share(vectors, 3)
    assert namespace["before"] == pytest.approx(before.share, abs=1e-4)
    assert f"{before.share:.0%} of the terms before" in printed


@pytest.mark.slow
def test_cka_snippet_matches_layer_cka(bundled):
    namespace, printed = run_snippet(cka_snippet(ModelRef(explorer.DEFAULT_MODEL), TEXTS[:3]))
    expected = layer_cka(bundled, TEXTS[:3])
    np.testing.assert_allclose(namespace["cka"], expected, atol=1e-5)
    matrix = printed.split("\n", 1)[1]  # after the line naming the layers
    numbers = np.array([float(x) for x in re.findall(r"\d\.\d*", matrix)])
    np.testing.assert_allclose(numbers.reshape(expected.shape), expected, atol=6e-4)


@pytest.mark.parametrize("layers", [*LAYER_CHOICES, 2, -1])
@pytest.mark.parametrize("pooling", ["mean", "max", "mean_max", "cls"])
def test_explain_snippet_compiles_for_every_choice(pooling, layers):
    source = explain_snippet(
        ModelRef("bert-base-uncased"), 'A "quoted" \\ text.', "B's text.", pooling, layers
    )
    compile(source, "<explain snippet>", "exec")


def test_snippets_refuse_unknown_choices():
    with pytest.raises(ValueError, match="pooling"):
        explain_snippet(ModelRef(explorer.DEFAULT_MODEL), A, B, "median")
    with pytest.raises(ValueError, match="layer"):
        explain_snippet(ModelRef(explorer.DEFAULT_MODEL), A, B, "mean", "middle")
    with pytest.raises(ValueError, match="post-processing"):
        postprocess_snippet(ModelRef(explorer.DEFAULT_MODEL), TEXTS, "whiten")


@pytest.mark.slow
def test_classic_snippet_matches_the_library(bundled):
    from explorer.data import corpora
    from explorer.explain import sense_accuracy
    from explorer.explain._classic import (
        max_explainable_variance,
        self_similarity,
        word_measures,
    )

    frame = corpora.load_senses("bank")
    source = classic_snippet(
        ModelRef(explorer.DEFAULT_MODEL), frame["text"].tolist(), frame["sense"].tolist(), "bank"
    )
    namespace, printed = run_snippet(source)
    _, vectors = explorer.word_layer_vectors(bundled, frame["text"].tolist(), "bank")
    np.testing.assert_allclose(namespace["self_similarity"], self_similarity(vectors), atol=1e-5)
    np.testing.assert_allclose(namespace["mev"], max_explainable_variance(vectors), atol=1e-5)
    expected = sense_accuracy(bundled, ["bank"])["bank"].to_numpy()
    np.testing.assert_allclose(namespace["accuracy"], expected, atol=1e-9)
    # What "How contextual?" shows for one word is what the snippet prints.
    table = word_measures(vectors, frame["sense"].tolist())
    np.testing.assert_allclose(namespace["self_similarity"], table["self_similarity"], atol=1e-5)
    np.testing.assert_allclose(namespace["accuracy"], table["sense_accuracy"], atol=1e-9)
    last = printed.strip().splitlines()[-1].split()
    assert float(last[1]) == pytest.approx(self_similarity(vectors)[-1], abs=6e-4)
    with pytest.raises(ValueError, match="senses"):
        classic_snippet(ModelRef(explorer.DEFAULT_MODEL), ["A bank."], [], "bank")
