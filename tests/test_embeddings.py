"""embed_corpus: one pass keeps every pooling and layer strategy."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import explorer
from explorer.model.forward import PARALLEL_MIN_BATCHES, default_workers, forward_batches
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
@pytest.mark.parametrize("layers", [*explorer.LAYER_CHOICES, 1, -2])
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


# -- parallel workers --------------------------------------------------------------------------

MANY = [f"{'Sentence ' * (1 + i % 9)}number {i} about {w}." for i, w in enumerate("abcdefgh" * 6)]


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_parallel_workers_give_the_sequential_vectors(bundled, precision):
    threads = torch.get_num_threads()
    kwargs = {"max_batch_size": 4, "precision": precision}  # 12 batches
    one = explorer.embed_corpus(bundled, MANY, workers=1, **kwargs)
    two = explorer.embed_corpus(bundled, MANY, workers=2, **kwargs)
    three = explorer.embed_corpus(bundled, MANY, workers=3, **kwargs)
    assert torch.get_num_threads() == threads  # restored
    for name in ("cls", "mean", "max"):
        for other in (two, three):
            if precision == "float32":
                np.testing.assert_allclose(other.pooled[name], one.pooled[name], atol=1e-5)
            else:  # bfloat16 sums in another order on one thread: compare directions
                a, b = other.pooled[name], one.pooled[name]
                cos = (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)
                assert 1 - cos.min() < 1e-3


def test_parallel_progress_runs_in_the_calling_thread_and_counts_every_text(bundled):
    calls = []

    def progress(done, total):
        calls.append((done, total, threading.current_thread()))

    explorer.embed_corpus(bundled, MANY, progress, max_batch_size=4, workers=2)
    assert [c[1] for c in calls] == [48] * 12
    assert [c[0] for c in calls] == sorted(c[0] for c in calls) and calls[-1][0] == 48
    assert {c[2] for c in calls} == {threading.current_thread()}


def test_an_error_in_a_worker_or_in_progress_stops_the_run_and_restores_threads(bundled):
    threads = torch.get_num_threads()
    batches = list(bundled.batches(bundled.encode_batch(MANY), 4))
    seen = []

    def handle(batch, states):
        seen.append(batch)
        if len(seen) == 3:
            raise RuntimeError("pooling failed")

    with pytest.raises(RuntimeError, match="pooling failed"):
        forward_batches(bundled, batches, handle, workers=2)
    assert len(seen) < len(batches)  # the workers stopped early
    assert torch.get_num_threads() == threads

    def stop(done, total):
        raise KeyboardInterrupt  # what a Streamlit rerun does to a running script, roughly

    with pytest.raises(KeyboardInterrupt):
        forward_batches(bundled, batches, lambda b, s: None, progress=stop, workers=2)
    assert torch.get_num_threads() == threads
    assert not [t for t in threading.enumerate() if t.name.startswith("embed-worker")]


def test_workers_must_be_positive_and_small_corpora_run_sequentially(bundled):
    batches = list(bundled.batches(bundled.encode_batch(MANY[:2])))
    with pytest.raises(ValueError, match="workers must be at least 1"):
        forward_batches(bundled, batches, lambda b, s: None, workers=0)
    assert default_workers(PARALLEL_MIN_BATCHES - 1) == 1
    expected = 2 if torch.get_num_threads() >= 2 else 1
    assert default_workers(PARALLEL_MIN_BATCHES) == expected
