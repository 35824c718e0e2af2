"""Layer choices (``layers``) on a known stack."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.choice import VectorChoice
from explorer.layers import combine_layers, layer_indices, layers_label

L, T, H = 12, 5, 8


@pytest.fixture
def stack():
    # layer i is filled with the value i, so sums and selections are easy to read off
    return np.stack([np.full((T, H), float(i), dtype=np.float32) for i in range(L + 1)])


@pytest.mark.parametrize(
    ("layers", "value"),
    [
        ("embeddings", 0.0),
        ("last", 12.0),
        ("second_to_last", 11.0),
        ("sum_last4", 12 + 11 + 10 + 9),
        ("mean_last4", (12 + 11 + 10 + 9) / 4),
        ("sum_all", sum(range(1, 13))),
        (0, 0.0),
        (5, 5.0),
        (-1, 12.0),
        (-13, 0.0),
    ],
)
def test_combined_values(stack, layers, value):
    out = combine_layers(stack, layers)
    assert out.shape == (T, H)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, value)


def test_concat_last4_order_and_width(stack):
    out = combine_layers(stack, "concat_last4")
    assert out.shape == (T, 4 * H)
    np.testing.assert_allclose(out[0, ::H], [12, 11, 10, 9])
    assert VectorChoice("mean", "concat_last4").dim(768) == 3072


def test_sum_all_excludes_embedding_output():
    assert layer_indices("sum_all", 6) == [1, 2, 3, 4, 5, 6]


def test_every_named_strategy_is_listed():
    assert set(explorer.LAYER_CHOICES) == {
        "embeddings",
        "last",
        "second_to_last",
        "sum_last4",
        "concat_last4",
        "mean_last4",
        "sum_all",
    }
    for name in explorer.LAYER_CHOICES:
        assert layers_label(name) != name


@pytest.mark.parametrize("bad", ["first", "LAST", 13, -14, 2.5, True, None])
def test_invalid_strategies_name_the_choices(stack, bad):
    with pytest.raises(ValueError, match="last|out of range"):
        combine_layers(stack, bad)


def test_last4_needs_four_layers():
    with pytest.raises(ValueError, match="at least 4"):
        layer_indices("sum_last4", 3)


def test_layer_choices_drop_what_a_small_model_cannot_do():
    from explorer import layers

    assert layers.layer_choices(3) == ["last", "second_to_last", "sum_all", "embeddings"]
    assert layers.layer_choices(12) == list(layers.LAYER_CHOICES)


def test_every_named_layer_choice_has_a_long_and_a_short_label():
    from explorer import layers

    assert set(layers.LABELS) == set(layers.SHORT_LABELS) == set(layers.LAYER_CHOICES)
    assert layers.layers_label("second_to_last", short=True) == "2nd-to-last"
    assert layers.layers_label(0) == "Embedding output (layer 0)"
    assert layers.layers_label(-2, short=True) == "layer -2"
