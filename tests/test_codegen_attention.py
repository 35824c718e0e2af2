"""The Attention page's snippets run and print the library's numbers."""

from __future__ import annotations

import numpy as np

import explorer
from explorer.attention import _lens as lens
from explorer.attention import _weights as attention
from explorer.codegen import attention as codegen
from explorer.figures.attention_notices import what_to_notice
from explorer.model import attentions
from explorer.model.ref import ModelRef
from tests.snippets import assert_prints_headline, headline_numbers, run_snippet

TEXT = "The bank robber was seen fishing on the river bank."
PAIR = "Where did he go?"


def test_attention_snippet_matches_the_library(bundled):
    source = codegen.attention_snippet(
        ModelRef(explorer.DEFAULT_MODEL), TEXT, PAIR, layer=2, head=3
    )
    namespace, printed = run_snippet(source)
    result = attentions.attention_pass(bundled, TEXT, PAIR)
    np.testing.assert_allclose(namespace["attentions"], result.attentions, atol=1e-5)
    assert namespace["tokens"] == result.tokenization.tokens
    stats = attention.head_statistics(result.attentions, result.tokenization.tokens)
    np.testing.assert_allclose(namespace["on_sep"].ravel(), stats["sep"], atol=1e-5)
    np.testing.assert_allclose(namespace["on_cls"].ravel(), stats["cls"], atol=1e-5)
    np.testing.assert_allclose(
        namespace["rollout"], attention.rollout(result.attentions), atol=1e-5
    )
    norms = attention.value_norms(bundled, result.hidden_states)
    weighted = attention.norm_weighted(result.attentions, norms)[1]
    np.testing.assert_allclose(namespace["weighted"], weighted, rtol=1e-4, atol=1e-6)
    # the page's headline, every number of it
    headline = what_to_notice(stats, bundled.tokenizer.cls_token, bundled.tokenizer.sep_token)
    assert_prints_headline(printed, headline)
    assert headline_numbers(headline)


def test_attention_snippet_prints_the_headline_of_a_random_model(tiny_bert_path):
    # a tiny random BERT spreads its attention: another special token and other heads win
    model = explorer.load_model(tiny_bert_path)
    source = codegen.attention_snippet(ModelRef(tiny_bert_path), TEXT)
    _, printed = run_snippet(source)
    result = attentions.attention_pass(model, TEXT)
    stats = attention.head_statistics(result.attentions, result.tokenization.tokens)
    assert_prints_headline(printed, what_to_notice(stats))


def test_lens_snippet_matches_the_library(masked_lm_path):
    text = "The robber took the [MASK] from the [MASK]."
    source = codegen.lens_snippet(ModelRef(masked_lm_path), text, k=3)
    namespace, printed = run_snippet(source)
    expected = lens.layer_predictions(masked_lm_path, text, k=3)
    assert namespace["positions"] == expected.positions
    for layer, masks in namespace["top"].items():
        for mask, pairs in enumerate(masks):
            assert [t for t, _ in pairs] == expected.top_tokens[layer][mask]
            np.testing.assert_allclose(
                [p for _, p in pairs], expected.probabilities[layer, mask], atol=1e-5
            )
    assert printed.count("layer") == len(expected.top_tokens)
