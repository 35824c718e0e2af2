"""explorer.model.attentions and explorer.attention: eager attentions, head statistics,
rollout, norm-weighted attention."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from explorer.attention import _weights as attention
from explorer.model import attentions
from tests.attention_by_hand import attention_linears

TEXT = "The bank robber was seen fishing on the river bank."
PAIR = "Where did he go?"


def _eager_reference(model, text, pair=None):
    from transformers import AutoModel

    reference = AutoModel.from_pretrained(model.source, attn_implementation="eager").eval()
    encoding = model.tokenizer(text, pair, return_tensors="pt", truncation=True)
    with torch.inference_mode():
        output = reference(**encoding, output_attentions=True)
    return torch.cat(output.attentions).numpy()


@pytest.mark.parametrize("which", ["bundled", "tiny", "distilbert", "tiny_roberta"])
def test_attentions_equal_transformers_eager(request, which):
    model = request.getfixturevalue(which)
    for pair in (None, PAIR):
        weights = attentions.attentions(model, TEXT, pair)
        expected = _eager_reference(model, TEXT, pair)
        assert weights.dtype == np.float32
        n = len(model.tokenize(TEXT, pair))
        assert weights.shape == (model.num_layers, expected.shape[1], n, n)
        np.testing.assert_allclose(weights, expected, atol=1e-5)
        np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)


def test_embedding_path_keeps_fast_attention(tiny):
    attentions.attentions(tiny, TEXT)
    assert tiny.encoder.config._attn_implementation != "eager"
    eager = attentions.eager_encoder(tiny)
    assert eager is attentions.eager_encoder(tiny)
    assert eager.config._attn_implementation == "eager"
    shared = zip(tiny.encoder.parameters(), eager.parameters(), strict=True)
    assert all(a.data_ptr() == b.data_ptr() for a, b in shared)


def test_pair_segments_and_hidden_states(tiny):
    result = attentions.attention_pass(tiny, TEXT, PAIR)
    tokens = result.tokenization
    assert tokens.pair == PAIR and set(tokens.segment_ids) == {0, 1}
    np.testing.assert_allclose(result.hidden_states, tiny.hidden_states(TEXT, PAIR), atol=1e-5)
    second = [i for i, s in enumerate(tokens.sequence_ids) if s == 1]
    assert all(tokens.segment_ids[i] == 1 for i in second)


def test_long_input_is_truncated(tiny):
    result = attentions.attention_pass(tiny, "word " * 2000)
    assert result.tokenization.truncated
    assert result.attentions.shape[-1] == tiny.max_length


def test_empty_text_is_a_value_error(tiny):
    with pytest.raises(ValueError, match="empty"):
        attentions.attentions(tiny, "   ")


def test_head_statistics_on_a_hand_made_matrix():
    tokens = ["[CLS]", "hi", ",", "there", "[SEP]"]
    eye = np.eye(5)
    on_sep = np.zeros((5, 5))
    on_sep[:, 4] = 1
    previous = np.zeros((5, 5))
    previous[0, 0] = 1
    previous[np.arange(1, 5), np.arange(0, 4)] = 1
    uniform = np.full((5, 5), 0.2)
    stack = np.stack([eye, on_sep, previous, uniform])[None]  # (1 layer, 4 heads, 5, 5)
    stats = attention.head_statistics(stack, tokens)
    assert list(stats.columns) == ["layer", "head", *attention.STATISTICS]
    assert list(stats["head"]) == [1, 2, 3, 4] and set(stats["layer"]) == {1}
    rows = stats.set_index("head")
    assert rows.loc[1, "self"] == pytest.approx(1) and rows.loc[1, "entropy"] == pytest.approx(0)
    assert rows.loc[1, "cls"] == pytest.approx(0.2) and rows.loc[1, "punctuation"] == 0.2
    assert rows.loc[2, "sep"] == pytest.approx(1) and rows.loc[2, "next"] == pytest.approx(0.25)
    assert rows.loc[3, "previous"] == pytest.approx(1) and rows.loc[3, "self"] == 0.2
    assert rows.loc[4, "entropy"] == pytest.approx(np.log2(5), abs=1e-6)
    assert rows.loc[4, "punctuation"] == pytest.approx(0.2)


def test_strongest_pattern_names_each_heads_largest_share():
    tokens = ["[CLS]", "hi", ",", "there", "[SEP]"]
    on_sep = np.zeros((5, 5))
    on_sep[:, 4] = 1
    previous = np.zeros((5, 5))
    previous[0, 0] = 1
    previous[np.arange(1, 5), np.arange(0, 4)] = 1
    stats = attention.head_statistics(np.stack([np.eye(5), on_sep, previous])[None], tokens)
    assert attention.strongest_pattern(stats, 1, 1) == ("self", pytest.approx(1), 0)
    assert attention.strongest_pattern(stats, 1, 2) == ("sep", pytest.approx(1), 0)
    assert attention.strongest_pattern(stats, 1, 3)[0] == "previous"
    with pytest.raises(ValueError, match="layer 2, head 1"):
        attention.strongest_pattern(stats, 2, 1)


def test_head_statistics_checks_shapes():
    with pytest.raises(ValueError, match="tokens"):
        attention.head_statistics(np.ones((1, 1, 3, 3)) / 3, ["a", "b"])
    with pytest.raises(ValueError, match="layers, heads"):
        attention.head_statistics(np.ones((3, 3)), ["a", "b", "c"])


def test_punctuation_tokens():
    assert attention.is_punctuation(",") and attention.is_punctuation("##.")
    assert attention.is_punctuation("Ġ!") and not attention.is_punctuation("a,")
    assert not attention.is_punctuation("##")


def test_rollout_of_identity_attention_is_identity():
    stack = np.broadcast_to(np.eye(6), (3, 2, 6, 6))
    np.testing.assert_allclose(attention.rollout(stack), np.broadcast_to(np.eye(6), (3, 6, 6)))


def test_rollout_multiplies_mixed_layers(tiny):
    weights = attentions.attentions(tiny, TEXT)
    rolled = attention.rollout(weights)
    mixed = (weights.mean(1) + np.eye(weights.shape[-1])) / 2
    np.testing.assert_allclose(rolled[1], mixed[1] @ mixed[0], atol=1e-5)
    np.testing.assert_allclose(rolled.sum(-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("which", ["tiny", "distilbert", "tiny_roberta"])
def test_norm_weighted_equals_direct_computation(request, which):
    model = request.getfixturevalue(which)
    result = attentions.attention_pass(model, TEXT)
    norms = attention.value_norms(model, result.hidden_states)
    # direct: record each layer's value vectors with hooks, push each head's slice through
    # its part of the output projection
    modules = [attention_linears(model, layer)[2:] for layer in range(model.num_layers)]
    recorded = []
    hooks = [v.register_forward_hook(lambda m, i, o: recorded.append(o[0])) for v, _ in modules]
    try:
        model.hidden_states(TEXT)
    finally:
        for hook in hooks:
            hook.remove()
    heads = model.encoder.config.num_attention_heads
    with torch.inference_mode():
        _check_norms(norms, recorded, modules, heads)
    weighted = attention.norm_weighted(result.attentions, norms)
    expected = result.attentions[1, 0, 2, 3] * norms[1, 0, 3]
    assert weighted[1, 0, 2, 3] == pytest.approx(expected)
    np.testing.assert_allclose(attention.row_normalize(weighted).sum(-1), 1.0, atol=1e-5)


def _check_norms(norms, recorded, modules, heads):
    for layer, (_, output) in enumerate(modules):
        values = recorded[layer]
        size = values.shape[-1] // heads
        for h in range(heads):
            part = (
                values[:, h * size : (h + 1) * size] @ output.weight[:, h * size : (h + 1) * size].T
            )
            np.testing.assert_allclose(norms[layer, h], part.norm(dim=-1).numpy(), rtol=1e-4)


def test_norm_weighted_checks_shapes():
    with pytest.raises(ValueError, match="do not match"):
        attention.norm_weighted(np.ones((2, 2, 3, 3)), np.ones((2, 2, 4)))
