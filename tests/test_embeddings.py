"""embed_corpus: one pass keeps every pooling and layer strategy."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from tests.conftest import TUTORIAL

TEXTS = [TUTORIAL, "Short.", "Another sentence about a bat and a ball.", "word " * 700]


def test_corpus_shapes_order_and_truncation(tiny):
    calls = []
    corpus = explorer.embed_corpus(tiny, TEXTS, progress=lambda d, t: calls.append((d, t)))
    assert len(corpus) == 4
    assert corpus.pooled["mean"].shape == (5, 4, 32)
    assert calls[-1] == (4, 4)
    assert corpus.truncated.tolist() == [False, False, False, True]
    assert corpus.num_tokens[3] == tiny.max_length


@pytest.mark.parametrize("pooling", explorer.POOLINGS)
@pytest.mark.parametrize("layers", [*explorer.LAYER_STRATEGIES, 1, -2])
def test_corpus_matches_sentence_embeddings(tiny, pooling, layers):
    corpus = explorer.embed_corpus(tiny, TEXTS[:3], max_batch_size=2)
    direct = explorer.sentence_embeddings(tiny, TEXTS[:3], pooling=pooling, layers=layers)
    np.testing.assert_allclose(corpus.sentence(pooling, layers), direct, atol=1e-5)


def test_per_layer(tiny):
    corpus = explorer.embed_corpus(tiny, TEXTS[:2])
    assert corpus.per_layer("mean_max").shape == (5, 2, 64)
    with pytest.raises(ValueError, match="Unknown pooling"):
        corpus.per_layer("sum")


def test_bundled_embeds_a_thousand_sentences(bundled):
    texts = [f"{TUTORIAL} ({i})" for i in range(1000)]
    vectors = explorer.sentence_embeddings(bundled, texts, normalize=True)
    assert vectors.shape == (1000, 384)
    assert np.isfinite(vectors).all()
