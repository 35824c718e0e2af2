"""Head ablation (explorer.ablate_heads) against a hand computation of one layer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import explorer
from explorer.model.ablation import AblatedModel, ablate_heads
from explorer.model.ref import ModelRef
from tests.attention_by_hand import head_contexts

TEXT = "The bank robber was seen fishing on the river bank."


def _layer_by_hand(model, layer, x, zeroed):
    """Layer ``layer`` (from 0) of ``model`` on ``x`` with the ``zeroed`` heads' context 0."""
    context = head_contexts(model, layer, x, zeroed)
    if model.model_type == "distilbert":
        block = model.encoder.transformer.layer[layer]
        attended = block.sa_layer_norm(block.attention.out_lin(context) + x)
        return block.output_layer_norm(block.ffn(attended) + attended)
    block = model.encoder.encoder.layer[layer]
    attended = block.attention.output(context, x)
    return block.output(block.intermediate(attended), attended)


@pytest.mark.parametrize("which", ["tiny", "distilbert", "tiny_roberta"])
def test_zeroing_a_head_equals_the_hand_computation(request, which):
    model = request.getfixturevalue(which)
    plain = model.hidden_states(TEXT)
    heads = model.encoder.config.num_attention_heads
    for layer, head in [(1, 1), (model.num_layers, heads)]:
        ablated = ablate_heads(model, {layer: [head]}).hidden_states(TEXT)
        # layers before the ablated one are untouched, the ablated layer's output changes
        np.testing.assert_array_equal(ablated[:layer], plain[:layer])
        assert not np.allclose(ablated[layer], plain[layer], atol=1e-4)
        with torch.inference_mode():
            x = torch.from_numpy(plain[layer - 1].copy())
            expected = _layer_by_hand(model, layer - 1, x, [head - 1]).numpy()
            unablated = _layer_by_hand(model, layer - 1, x, []).numpy()
        np.testing.assert_allclose(unablated, plain[layer], atol=1e-4)  # the hand model is right
        np.testing.assert_allclose(ablated[layer], expected, atol=1e-4)


def test_every_head_of_a_layer(tiny):
    heads = tiny.encoder.config.num_attention_heads
    ablated = ablate_heads(tiny, {2: list(range(1, heads + 1))}).hidden_states(TEXT)
    plain = tiny.hidden_states(TEXT)
    with torch.inference_mode():
        x = torch.from_numpy(plain[1].copy())
        expected = _layer_by_hand(tiny, 1, x, list(range(heads))).numpy()
    np.testing.assert_allclose(ablated[2], expected, atol=1e-4)


@pytest.mark.parametrize("which", ["tiny", "distilbert"])
def test_no_head_named_is_the_model_exactly(request, which):
    model = request.getfixturevalue(which)
    same = ablate_heads(model, {})
    assert isinstance(same, AblatedModel)
    np.testing.assert_array_equal(same.hidden_states(TEXT), model.hidden_states(TEXT))
    np.testing.assert_array_equal(
        ablate_heads(model, {1: []}).hidden_states(TEXT), model.hidden_states(TEXT)
    )


def test_the_plain_model_is_untouched_and_weights_are_shared(tiny):
    before = tiny.hidden_states(TEXT)
    ablated = ablate_heads(tiny, {1: [1], 3: [2]})
    ablated.hidden_states(TEXT)
    np.testing.assert_array_equal(tiny.hidden_states(TEXT), before)
    assert ablated.encoder is tiny.encoder and ablated.tokenizer is tiny.tokenizer


def test_batched_and_parallel_passes_are_ablated(tiny):
    ablated = ablate_heads(tiny, {2: [1]})
    texts = [TEXT, "A second, longer sentence about a bank and a river.", "Short."] * 3
    one = [ablated.hidden_states(t) for t in texts]
    many = ablated.hidden_states_batch(texts, max_batch_size=1)  # 9 batches: parallel workers
    for a, b in zip(one, many, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-5)
    assert not np.allclose(one[0], tiny.hidden_states(TEXT), atol=1e-4)


def test_ablating_an_ablated_model_switches_both_off(tiny):
    twice = ablate_heads(ablate_heads(tiny, {1: [1]}), {3: [2]})
    assert twice.heads == {1: (1,), 3: (2,)}
    np.testing.assert_array_equal(
        twice.hidden_states(TEXT), ablate_heads(tiny, {1: [1], 3: [2]}).hidden_states(TEXT)
    )


@pytest.mark.parametrize(
    "heads, message",
    [
        ({0: [1]}, "layers are 1 to 4"),
        ({5: [1]}, "layers are 1 to 4"),
        ({1: [3]}, "heads are 1 to 2"),
        ({1: [0]}, "heads are 1 to 2"),
        ({"1": [1]}, "layers are 1 to 4"),
        ([1, 2], "layer: \\[head"),
    ],
)
def test_bad_heads_name_the_valid_range(tiny, heads, message):
    with pytest.raises(ValueError, match=message):
        ablate_heads(tiny, heads)


# -- what switching heads off changes (explorer.attention._ablation) ----------------------------

SECOND = "Where did the robber go?"


@pytest.mark.parametrize("which", ["tiny", "distilbert"])
def test_ranking_rows_are_each_head_off_alone(request, which):
    from explorer.attention._ablation import rank_heads, sentence_cosine, spread_heads

    model = request.getfixturevalue(which)
    heads = spread_heads(model, 3)
    assert len(heads) == 3 and heads[0] == (1, 1) and heads[-1][0] == model.num_layers
    table = rank_heads(model, "cosine", TEXT, SECOND, heads=heads)
    assert table.attrs["full"] == pytest.approx(sentence_cosine(model, TEXT, SECOND))
    for layer, head, value, change in table.itertuples(index=False):
        alone = sentence_cosine(ablate_heads(model, {layer: [head]}), TEXT, SECOND)
        assert value == pytest.approx(alone, abs=1e-6)
        assert change == pytest.approx(alone - table.attrs["full"], abs=1e-6)
    sizes = table["change"].abs().to_numpy()
    assert (np.diff(sizes) <= 0).all()
    with pytest.raises(ValueError, match="Unknown measure"):
        rank_heads(model, "entropy", TEXT, SECOND)
    with pytest.raises(ValueError, match="needs a sentence"):
        rank_heads(model, "guess", TEXT, SECOND)


def test_the_lens_guess_moves_with_heads_off(masked_lm_path, tiny):
    from explorer.attention._ablation import lens_guess, measure
    from explorer.data.examples import MASKED
    from explorer.figures.ablation import ablation_notice, comparison_table

    model = explorer.load_model(masked_lm_path)
    full = measure(model, {}, TEXT, SECOND, MASKED)
    word, probability, same = full.guess
    assert probability == same
    off = measure(model, {1: [1, 2], 2: [1, 2], 3: [1, 2]}, TEXT, SECOND, MASKED, word)
    assert off.guess[2] == pytest.approx(
        lens_guess(ablate_heads(model, off.heads), MASKED, word)[2]
    )
    notice = ablation_notice(full, off, 6)
    assert "With 6 of 6 heads off" in notice and "Michel, Levy and Neubig (2019)" in notice
    changed = off.guess[0] != word
    assert (f"changes from {word!r} to {off.guess[0]!r}" in notice) == changed
    assert (f"still guesses {word!r}" in notice) == (not changed)
    assert f"{off.gap - full.gap:+.3f}" in notice
    table = comparison_table(full, off)
    assert len(table) == 3 and np.allclose(table["change"], table["heads off"] - table["all heads"])
    with pytest.raises(ValueError, match="no masked-language-model head"):
        lens_guess(tiny, MASKED)


@pytest.mark.parametrize("which", ["tiny", "distilbert"])
def test_notices_are_true_for_their_numbers(request, which):
    from explorer.attention._ablation import measure, rank_heads, spread_heads
    from explorer.figures.ablation import ablation_notice, ranking_notice

    model = request.getfixturevalue(which)
    full = measure(model, {}, TEXT, SECOND, None)
    assert "Choose heads" in ablation_notice(full, full, 8)
    off = measure(model, {1: [1]}, TEXT, SECOND, None)
    notice = ablation_notice(full, off, 8)
    small = max(abs(off.gap - full.gap), abs(off.cosine - full.cosine)) < 0.01
    assert ("Barely a change" in notice) == small
    table = rank_heads(model, "gap", TEXT, SECOND, heads=spread_heads(model, 4))
    sentence = ranking_notice(table, "sense gap", 4 * model.num_layers)
    top = table.iloc[0]
    assert f"layer {int(top['layer'])} head {int(top['head'])}" in sentence
    tenth = int((table["change"].abs() < 0.1 * table["change"].abs().max()).sum())
    assert f"; {tenth} of {len(table)} heads" in sentence


def test_snippet_prints_the_page_numbers(tiny_bert_path):
    from explorer.attention._ablation import measure
    from explorer.codegen.ablation import ablation_snippet
    from tests.snippets import run_snippet

    model = explorer.load_model(tiny_bert_path)
    heads = {2: (1,), 4: (1, 2)}
    full = measure(model, {}, TEXT, SECOND, None)
    off = measure(model, heads, TEXT, SECOND, None)
    _, printed = run_snippet(ablation_snippet(ModelRef(tiny_bert_path), heads, TEXT, SECOND))
    lines = printed.strip().splitlines()
    for line, before, after in zip(
        lines, (full.gap, full.cosine), (off.gap, off.cosine), strict=True
    ):
        assert f"all heads {before:.4f}, heads off {after:.4f}" in line
