"""Pooling invariants: masks, cls position, padding invariance, dimensions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import explorer
from explorer.pooling import pool_hidden
from tests.conftest import TUTORIAL

TEXTS = [TUTORIAL, "Short.", "A sentence of middling length about a river bank.", "Hi"]


def test_pool_hidden_ignores_padding():
    hidden = torch.randn(3, 2, 5, 4)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)
    padded = hidden.clone()
    padded[:, 0, 3:] = 1e6  # huge values in the padding must not leak into mean or max
    pooled = pool_hidden(padded, mask)
    torch.testing.assert_close(pooled["mean"][:, 0], hidden[:, 0, :3].mean(dim=1))
    torch.testing.assert_close(pooled["max"][:, 0], hidden[:, 0, :3].amax(dim=1))
    torch.testing.assert_close(pooled["cls"], padded[:, :, 0])


@pytest.mark.parametrize("pooling", explorer.POOLINGS)
def test_batch_equals_single_for_every_pooling(tiny, pooling):
    batched = explorer.sentence_embeddings(tiny, TEXTS, pooling=pooling, batch_size=4)
    single = np.concatenate(
        [explorer.sentence_embeddings(tiny, [t], pooling=pooling) for t in TEXTS]
    )
    np.testing.assert_allclose(batched, single, atol=1e-5)


@pytest.mark.parametrize("pooling", explorer.POOLINGS)
def test_bundled_batch_equals_single(bundled, pooling):
    batched = explorer.sentence_embeddings(bundled, TEXTS, pooling=pooling, layers="sum_last4")
    for i, text in enumerate(TEXTS):
        alone = explorer.sentence_embeddings(bundled, [text], pooling=pooling, layers="sum_last4")
        np.testing.assert_allclose(batched[i], alone[0], atol=1e-5)


def test_cls_is_position_zero(tiny):
    vectors = explorer.sentence_embeddings(tiny, [TUTORIAL], pooling="cls", layers="last")
    np.testing.assert_allclose(vectors[0], tiny.hidden_states(TUTORIAL)[-1, 0], atol=1e-6)


def test_mean_and_max_match_token_vectors(tiny):
    tokens = explorer.token_vectors(tiny, TUTORIAL, "second_to_last")
    mean = explorer.sentence_embeddings(tiny, [TUTORIAL], "mean", "second_to_last")
    maxed = explorer.sentence_embeddings(tiny, [TUTORIAL], "max", "second_to_last")
    np.testing.assert_allclose(mean[0], tokens.mean(axis=0), atol=1e-5)
    np.testing.assert_allclose(maxed[0], tokens.max(axis=0), atol=1e-6)


def test_exclude_special_changes_mean_not_cls(tiny):
    kept = explorer.sentence_embeddings(tiny, [TUTORIAL], "mean")
    dropped = explorer.sentence_embeddings(tiny, [TUTORIAL], "mean", exclude_special=True)
    assert not np.allclose(kept, dropped)
    tokens = explorer.token_vectors(tiny, TUTORIAL, "last")
    np.testing.assert_allclose(dropped[0], tokens[1:-1].mean(axis=0), atol=1e-5)
    cls = explorer.sentence_embeddings(tiny, [TUTORIAL], "cls", exclude_special=True)
    np.testing.assert_allclose(cls, explorer.sentence_embeddings(tiny, [TUTORIAL], "cls"))


@pytest.mark.parametrize(
    ("pooling", "layers", "width"),
    [
        ("mean", "last", 32),
        ("mean_max", "last", 64),
        ("cls", "concat_last4", 128),
        ("mean_max", "concat_last4", 256),
        ("max", 2, 32),
    ],
)
def test_dimensions(tiny, pooling, layers, width):
    out = explorer.sentence_embeddings(tiny, TEXTS, pooling=pooling, layers=layers)
    assert out.shape == (len(TEXTS), width)
    assert out.dtype == np.float32


def test_normalize_gives_unit_rows(tiny):
    out = explorer.sentence_embeddings(tiny, TEXTS, normalize=True)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"texts": []}, "No texts"),
        ({"texts": "a single string"}, "list of texts"),
        ({"texts": ["ok", ""]}, "Text 2 is empty"),
        ({"texts": ["ok"], "pooling": "median"}, "Unknown pooling"),
        ({"texts": ["ok"], "layers": "middle"}, "Unknown layer choice"),
        ({"texts": ["ok"], "layers": 9}, "out of range"),
    ],
)
def test_errors(tiny, kwargs, message):
    with pytest.raises(ValueError, match=message):
        explorer.sentence_embeddings(tiny, **kwargs)


def test_every_pooling_has_a_label_and_is_made_of_base_poolings():
    from explorer import pooling

    assert set(pooling.POOLING_LABELS) == set(pooling.POOLINGS)
    for name in pooling.POOLINGS:
        assert set(pooling.pooling_parts(name)) <= set(pooling.BASE_POOLINGS)
    assert pooling.pooling_parts("mean_max") == ("mean", "max")
    with pytest.raises(ValueError, match="Unknown pooling"):
        pooling.pooling_parts("median")
