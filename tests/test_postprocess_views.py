"""Post-processing as the pages use it: layer by layer, the rogue sentence, and the
"Show code" lines that post-process a map's vectors (checked against the library)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer.choice import POSTPROCESSING
from explorer.codegen.explain import postprocess_lines
from explorer.codegen.projections import projection_snippet, word_projection_snippet
from explorer.explain import postprocess, postprocess_layers, rogue_report, rogue_share
from explorer.explain._postprocess import rogue_sentence
from explorer.maps import ProjectionParams
from explorer.model.ref import ModelRef
from tests.snippets import run_snippet

TEXTS = [
    "The bank raised its interest rates.",
    "We sat on the river bank.",
    "The striker scored twice.",
    "This soup needs more salt.",
    "Rain is expected tomorrow.",
    "She opened a savings account.",
    "Our team lost the final.",
]


def _vectors(seed: int = 0, n: int = 40, dim: int = 24) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, dim))
    x[:, 3] += 30.0  # a rogue dimension: a large shared value
    return x


def test_postprocess_layers_is_postprocess_at_each_layer_with_its_own_reference():
    per_layer = np.stack([_vectors(s, n=10) for s in range(3)])
    reference = np.stack([_vectors(10 + s) for s in range(3)])
    for mode in POSTPROCESSING:
        out = postprocess_layers(per_layer, mode, reference)
        assert out.shape == per_layer.shape and out.dtype == np.float32
        for layer in range(3):
            expected = postprocess(per_layer[layer], mode, reference[layer])
            np.testing.assert_allclose(out[layer], expected, rtol=1e-6)
    centred = postprocess_layers(per_layer, "center", reference)  # by the formula
    np.testing.assert_allclose(
        centred, per_layer - reference.mean(axis=1, keepdims=True), rtol=1e-5, atol=1e-5
    )


def test_postprocess_layers_refuses_mismatched_layers():
    with pytest.raises(ValueError, match="layers"):
        postprocess_layers(np.zeros((3, 4, 5)), "center", np.zeros((2, 4, 5)))
    with pytest.raises(ValueError, match="shape"):
        postprocess_layers(np.zeros((4, 5)), "center")


def test_rogue_sentence_reads_the_shares_it_is_given():
    x = _vectors()
    before = rogue_share(x)
    after = rogue_share(postprocess(x, "standardize"), dimensions=before.dimensions)
    assert before.dimensions[0] == 3
    sentence = rogue_sentence(before, after, "standardize")
    assert (
        f"carried {before.share:.0%}" in sentence
        and f"after standardize, {after.share:.0%}" in sentence
    )
    assert after.share < before.share
    assert sentence == rogue_report(x, "standardize")[2]
    assert rogue_sentence(before, before, "none").endswith(f"{before.mean_cosine:.2f}).")


@pytest.mark.parametrize("mode", POSTPROCESSING)
def test_postprocess_lines_compute_what_the_library_computes(mode):
    x = _vectors(n=30)
    namespace = {"np": np, "vectors": x.copy()}
    exec(postprocess_lines(mode, "vectors", "vectors"), namespace)  # noqa: S102
    np.testing.assert_allclose(namespace["vectors"], postprocess(x, mode), rtol=1e-4, atol=1e-4)


@pytest.fixture(scope="module")
def bundled() -> explorer.Model:
    return explorer.load_model()


@pytest.mark.slow
def test_projection_snippet_post_processes_the_vectors_as_the_page(bundled):
    code = projection_snippet(
        ModelRef(bundled.name), TEXTS, "mean", "last", ProjectionParams("pca"), post="abtt"
    )
    assert "post-processing: abtt" in code
    namespace, out = run_snippet(code)
    raw = explorer.sentence_embeddings(bundled, TEXTS, "mean", "last")
    np.testing.assert_allclose(namespace["vectors"], postprocess(raw, "abtt"), atol=1e-4)
    total = float(re.search(r"total: ([\d.]+)", out).group(1))
    expected = ProjectionParams("pca").projector().fit(postprocess(raw, "abtt"))
    assert total == pytest.approx(expected.explained_variance_ratio_.sum(), abs=1e-4)


@pytest.mark.slow
def test_word_projection_snippet_post_processes_the_occurrences(bundled):
    texts = ["The bank was closed.", "A bank of the river.", "Bank on it, the bank said."]
    occurrences, raw = explorer.word_vectors(bundled, texts, "bank", "last")
    spans = [(o.text_index, o.char_start, o.char_end) for o in occurrences]
    code = word_projection_snippet(
        ModelRef(bundled.name),
        texts,
        spans,
        "bank",
        "last",
        ProjectionParams("pca"),
        post="standardize",
    )
    namespace, _ = run_snippet(code)
    np.testing.assert_allclose(
        namespace["vectors"], postprocess(raw, "standardize"), rtol=1e-3, atol=1e-3
    )


@pytest.mark.slow
@pytest.mark.parametrize("post", ["standardize", "abtt"])
def test_similarity_snippet_post_processes_with_the_reference(bundled, post):
    from explorer.codegen.similarity import similarity_snippet

    reference = [*TEXTS, "The weather turned cold.", "A loan for a new house.", "Chips again."]
    sentences = TEXTS[:4]
    code = similarity_snippet(
        ModelRef(bundled.name), sentences, ["mean", "max"], "last", post, reference
    )
    namespace, _ = run_snippet(code)
    for pooling in ("mean", "max"):
        raw = explorer.sentence_embeddings(bundled, sentences, pooling, "last")
        ref = explorer.sentence_embeddings(bundled, reference, pooling, "last")
        expected = explorer.cosine_similarity(postprocess(raw, post, ref))
        np.testing.assert_allclose(namespace["similarity"][pooling], expected, atol=1e-4)
    with pytest.raises(ValueError, match="reference"):
        similarity_snippet(ModelRef(bundled.name), sentences, ["mean"], "last", post)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["bundled", "tiny"])
def test_the_pages_sentences_read_their_own_numbers(request, which):
    """On the bundled model and a tiny random BERT: the Layers page's CKA sentence names the
    neighbouring layers with the lowest CKA, and Word in context's rogue sentence quotes the
    shares of the occurrences' cosines before and after."""
    from explorer import context as ctx
    from explorer.choice import VectorChoice
    from explorer.explain import cka_matrix
    from explorer.figures.explain_notices import cka_notice
    from explorer.layers import combine_layers
    from explorer.ui.layer_by_layer._cka import content_states
    from explorer.ui.word_in_context import rogue_note

    model = request.getfixturevalue(which)
    text = "The bank by the river was closed, so the bank robber went fishing on the bank."
    tokens = model.tokenize(text)
    cka = cka_matrix(content_states(model.hidden_states(text), tokens.special))
    steps = np.round(np.diag(cka, k=1), 2)  # as shown: ties at two decimals are named together
    lowest = np.flatnonzero(steps == steps.min())
    said = cka_notice(cka)
    if len(lowest) == len(steps):
        assert f"(CKA {steps[0]:.2f} at each step): no step stands out" in said, said
    else:
        for step in lowest:
            assert f"between layer {step} and layer {step + 1}" in said, said
        assert f"(CKA {steps.min():.2f}" in said, said

    sentences = [text, "She paid the cheque into the bank.", "Ducks swam by the muddy bank."]
    _, per_layer = explorer.word_layer_vectors(model, sentences, "bank")
    states = ctx.content_token_states(model, sentences)
    processed = postprocess_layers(per_layer, "abtt" if which == "bundled" else "center", states)
    mode = "abtt" if which == "bundled" else "center"
    note = rogue_note(per_layer, processed, VectorChoice(post=mode), "bank")
    before = rogue_share(combine_layers(per_layer, "last"))
    after = rogue_share(combine_layers(processed, "last"), dimensions=before.dimensions)
    assert f"the {per_layer.shape[1]} occurrences of “bank”" in note
    assert f"carried {before.share:.0%}" in note and f", {after.share:.0%} (mean cosine" in note


def test_abtt_removes_the_svds_directions_with_many_reference_vectors():
    """More reference vectors than dimensions takes the scatter matrix's eigenvectors: the
    same result as the SVD's directions."""
    reference = _vectors(3, n=200, dim=24)
    x = _vectors(4, n=10, dim=24)
    centred = reference - reference.mean(axis=0)
    top = np.linalg.svd(centred, full_matrices=False)[2][:3]
    expected = (x - reference.mean(axis=0)) - (x - reference.mean(axis=0)) @ top.T @ top
    np.testing.assert_allclose(
        postprocess(x, "abtt", reference, components=3), expected, rtol=1e-4, atol=1e-4
    )
