"""The snippets' torch expressions: one for every library choice, and the library's numbers.

These run the expressions on small random tensors (no model), so a new layer choice, pooling
or subword mode in the library fails here until :mod:`explorer.expressions` has it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from explorer import expressions
from explorer.choice import VectorChoice
from explorer.layers import LAYER_CHOICES, combine_layers
from explorer.pooling import BASE_POOLINGS, POOLINGS, pool_hidden
from explorer.subwords import SUBWORD_MODES, aggregate_subwords

L = 5  # encoder layers of the random stacks


def _eval(expression: str, **names) -> np.ndarray:
    return eval(expression, {"torch": torch, "L": L}, names).numpy()  # noqa: S307


def _stack(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def test_every_library_choice_has_an_expression():
    assert set(expressions.LAYER_EXPRESSIONS) == set(LAYER_CHOICES)
    assert set(expressions.POOLING_EXPRESSIONS) == set(BASE_POOLINGS)
    assert set(expressions.POOLED_NAMES) == set(BASE_POOLINGS)
    assert set(expressions.SUBWORD_EXPRESSIONS) == set(SUBWORD_MODES)


@pytest.mark.parametrize("layers", [*LAYER_CHOICES, 0, 3, -2])
def test_layers_expressions_equal_combine_layers(layers):
    stack = _stack(L + 1, 3, 8)
    combined = _eval(expressions.layers_expression(layers, "s"), s=torch.from_numpy(stack))
    np.testing.assert_allclose(combined, combine_layers(stack, layers), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("bad", ["middle", True, 2.5, None])
def test_unknown_layers_are_refused(bad):
    with pytest.raises(ValueError, match="Unknown layer choice"):
        expressions.layers_expression(bad)


def _hidden_and_mask() -> tuple[torch.Tensor, torch.Tensor]:
    hidden = torch.from_numpy(_stack(L + 1, 2, 4, 8))  # (layers + 1, batch, tokens, hidden)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    return hidden, mask


@pytest.mark.parametrize("pooling", POOLINGS)
@pytest.mark.parametrize("layers", ["last", "concat_last4", "sum_all"])
def test_pooled_lines_equal_the_library(pooling, layers):
    hidden, mask = _hidden_and_mask()
    names = {"hidden": hidden, "mask": mask[None, :, :, None], "torch": torch, "L": L}
    exec(expressions.pooled_lines([pooling], indent=""), names)  # noqa: S102
    vectors = _eval(expressions.pooled_layers_expression(pooling, layers), **names)
    pooled = {name: value.numpy() for name, value in pool_hidden(hidden, mask).items()}
    expected = VectorChoice(pooling, layers).combine(pooled)
    np.testing.assert_allclose(vectors, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pooling", POOLINGS)
def test_one_layer_pooling_expressions_equal_the_library(pooling):
    hidden, mask = _hidden_and_mask()
    source = expressions.pooling_expression(pooling, "h", "m", token_axis=1)
    vectors = _eval(source, h=hidden[2], m=mask[:, :, None])
    pooled = {name: value.numpy() for name, value in pool_hidden(hidden, mask).items()}
    np.testing.assert_allclose(
        vectors, VectorChoice(pooling, 2).combine(pooled), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("subwords", SUBWORD_MODES)
def test_subword_expressions_equal_the_library(subwords):
    span = _stack(L + 1, 3, 8)  # (layers + 1, subwords, hidden)
    every_layer = _eval(
        expressions.subwords_expression(subwords, "x", token_axis=1), x=torch.from_numpy(span)
    )
    one_layer = _eval(expressions.subwords_expression(subwords, "x"), x=torch.from_numpy(span[2]))
    np.testing.assert_allclose(one_layer, aggregate_subwords(span[2], subwords), rtol=1e-6)
    np.testing.assert_allclose(every_layer[2], one_layer, rtol=1e-6)
    with pytest.raises(ValueError, match="subword mode"):
        expressions.subwords_expression("median")
