"""A "Show code" snippet for random weights builds the weights the page uses (issue 34).

Under free entry a visitor can type ``random-weights:<model>``; the page then runs that
model's architecture with random weights (seed 0), and before this fix every single-model
snippet loaded the trained weights (``from_pretrained``) and printed other numbers.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from explorer.codegen.attention import attention_snippet, lens_snippet
from explorer.codegen.compare import cross_cka_snippet
from explorer.codegen.layers import layers_snippet
from explorer.compare import cross_cka
from explorer.model.cache import ModelCache
from explorer.model.loading import load_ref
from explorer.model.ref import ModelRef
from tests.snippets import run_snippet
from tests.tiny_models import save_copy

TEXT = "The bank robber was seen fishing on the river bank."
TEXTS = (TEXT, "She sat on the bank of the river.")


@pytest.fixture(scope="module")
def cache() -> ModelCache:
    return ModelCache(max_bytes=2**30)


@pytest.fixture(scope="module")
def trained_path(tmp_path_factory, tiny_bert_path) -> str:
    """The tiny BERT's architecture and tokenizer with weights other than seed 0's (the shared
    tiny models are saved from seed 0, so their random twins equal them): "trained" ones."""
    return save_copy(tiny_bert_path, tmp_path_factory.mktemp("tiny-trained"), seed=1)


def test_layers_snippet_prints_the_random_weights_numbers(trained_path, cache):
    ref = ModelRef.parse(f"random-weights:{trained_path}")  # as typed under free entry
    namespace, printed = run_snippet(layers_snippet(ref, TEXT, 2, 3))
    random = load_ref(ref, cache).hidden_states(TEXT)
    trained = load_ref(ref.trained(), cache).hidden_states(TEXT)
    assert not np.allclose(random[1:], trained[1:], atol=1e-2)  # the two differ
    np.testing.assert_allclose(namespace["hidden"], random, atol=1e-5)
    # the printed numbers are the random model's: token 3 at layer 2, to 4 decimals
    vector = random[2, 3]
    last = printed.splitlines()[-1]
    printed_numbers = [float(x) for x in re.findall(r"-?\d+\.\d{4}", last)]
    wanted = [vector.mean(), vector.std(), np.linalg.norm(vector), np.abs(vector).max()]
    np.testing.assert_allclose(printed_numbers, wanted, atol=1e-4)


def test_trained_and_random_preambles_differ_only_in_how_the_model_is_built(tiny_bert_path):
    trained = layers_snippet(ModelRef(tiny_bert_path), TEXT, 2, 3)
    random = layers_snippet(ModelRef(tiny_bert_path, random=True), TEXT, 2, 3)
    assert "from_pretrained(name, dtype=torch.float32).eval()" in trained
    assert "from_config" not in trained
    assert "torch.manual_seed(0)" in random and "AutoModel.from_pretrained" not in random
    assert "random-weights:" not in random  # the source's name, never the text form


def test_attention_snippet_for_random_weights_reads_them_eagerly(trained_path, cache):
    ref = ModelRef(trained_path, random=True)
    source = attention_snippet(ref, TEXT, None, layer=1, head=2)
    assert 'attn_implementation="eager"' in source
    namespace, _ = run_snippet(source)
    model = load_ref(ref, cache)
    inputs = model.tokenizer(TEXT, return_tensors="pt", truncation=True)
    import torch

    with torch.inference_mode():
        output = model.encoder(**inputs, output_hidden_states=True)
    # the same weights: the snippet's forward pass gives the page's states
    np.testing.assert_allclose(
        torch.stack(output.hidden_states)[:, 0].numpy(),
        torch.stack(namespace["output"].hidden_states)[:, 0].numpy(),
        atol=1e-5,
    )


def test_the_lens_refuses_random_weights(masked_lm_path):
    with pytest.raises(ValueError, match="masked-LM head"):
        lens_snippet(ModelRef(masked_lm_path, random=True), "A [MASK].")


@pytest.mark.parametrize("which", ["b random, other source", "a random, b trained"])
def test_compare_snippet_builds_each_models_own_random_weights(
    trained_path, other_tokenizer_path, cache, which
):
    # B random with a source other than A's: B's own configuration and tokenizer
    if which == "b random, other source":
        a, b = ModelRef(other_tokenizer_path), ModelRef(trained_path, random=True)
    else:
        a, b = ModelRef(trained_path, random=True), ModelRef(other_tokenizer_path)
    assert not np.allclose(  # random weights are not the trained ones
        cross_cka(load_ref(a.trained(), cache), load_ref(b.trained(), cache), TEXTS),
        cross_cka(load_ref(a, cache), load_ref(b, cache), TEXTS),
        atol=1e-3,
    )
    namespace, _ = run_snippet(cross_cka_snippet(a, b, TEXTS, max_words=1000))
    expected = cross_cka(load_ref(a, cache), load_ref(b, cache), TEXTS)
    np.testing.assert_allclose(namespace["cka"], expected, atol=1e-5)
    assert namespace["tokenizer_b"].vocab_size == load_ref(b, cache).tokenizer.vocab_size


def test_compare_snippet_b_random_twin_of_a_random_a(trained_path, cache):
    a = ModelRef(trained_path, random=True)
    namespace, _ = run_snippet(cross_cka_snippet(a, a.random_twin(), TEXTS, max_words=1000))
    expected = cross_cka(load_ref(a, cache), load_ref(a, cache), TEXTS)
    np.testing.assert_allclose(namespace["cka"], expected, atol=1e-5)
