"""explorer.model.cache: models kept by the bytes of their weights, baselines first out."""

from __future__ import annotations

import threading
import time

import pytest

import explorer
from explorer.model.cache import ModelCache
from explorer.model.loading import random_weights


@pytest.fixture(scope="module")
def models(tiny_bert_path, distilbert_path, masked_lm_path):
    return {
        "tiny": explorer.load_model(tiny_bert_path),
        "distil": explorer.load_model(distilbert_path),
        "mlm": explorer.load_model(masked_lm_path),
    }


def test_weight_bytes_count_every_tensor_once(models):
    tiny = models["tiny"]
    expected = sum(p.numel() * 4 for p in tiny.encoder.parameters()) + sum(
        b.numel() * b.element_size() for b in tiny.encoder.buffers()
    )
    assert tiny.weight_bytes == expected


def test_the_cache_evicts_by_bytes_least_recently_used_first(models):
    sizes = {name: model.weight_bytes for name, model in models.items()}
    cache = ModelCache(max_bytes=sizes["tiny"] + sizes["distil"])
    cache.get("tiny", lambda: models["tiny"])
    cache.get("distil", lambda: models["distil"])
    assert cache.keys() == ["tiny", "distil"] and cache.bytes <= cache.max_bytes
    cache.get("tiny", pytest.fail)  # a hit: no load, and "tiny" is now the most recent
    cache.get("mlm", lambda: models["mlm"])  # over the budget: "distil" (oldest) leaves
    assert "distil" not in cache and "tiny" in cache and "mlm" in cache
    assert cache.bytes <= cache.max_bytes or len(cache) == 1


def test_random_baselines_leave_first(models):
    tiny = models["tiny"]
    baseline = random_weights(tiny)
    cache = ModelCache(max_bytes=tiny.weight_bytes + models["distil"].weight_bytes)
    cache.get("random", lambda: baseline, disposable=True)
    cache.get("tiny", lambda: tiny)
    cache.get("distil", lambda: models["distil"])
    assert "random" not in cache and cache.keys() == ["tiny", "distil"]


def test_a_model_over_the_budget_is_kept_alone(models):
    cache = ModelCache(max_bytes=1)
    assert cache.get("tiny", lambda: models["tiny"]) is models["tiny"]
    assert cache.keys() == ["tiny"]
    cache.get("distil", lambda: models["distil"])
    assert cache.keys() == ["distil"]


def test_an_evicted_model_loads_again_and_concurrent_requests_load_once(models):
    loads = []

    def load():
        loads.append(1)
        time.sleep(0.2)
        return models["tiny"]

    cache = ModelCache(max_bytes=10**9)
    threads = [threading.Thread(target=cache.get, args=("tiny", load)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1
    cache.drop("tiny")
    cache.get("tiny", load)
    assert len(loads) == 2


def test_a_failed_load_keeps_nothing():
    cache = ModelCache(max_bytes=10)

    def fail():
        raise ValueError("no such model")

    with pytest.raises(ValueError, match="no such model"):
        cache.get("x", fail)
    assert len(cache) == 0
    with pytest.raises(ValueError):
        cache.get("x", fail)  # not stuck waiting for the first attempt


def test_a_baseline_is_refused_when_it_and_its_model_do_not_fit_together():
    # Issue 24: BERT-large's baseline is a second 1.3 GB copy; in a 1 GiB cache the two would
    # push each other out on every comparison. BERT-base's two 0.42 GB copies fit.
    from explorer.server.settings import DEFAULT_MODEL_MEMORY
    from explorer.ui.model import baseline_refusal

    base, large = 418 * 2**20, 1_279 * 2**20  # Model.weight_bytes of the bench folders
    assert baseline_refusal(base, DEFAULT_MODEL_MEMORY) is None
    refusal = baseline_refusal(large, DEFAULT_MODEL_MEMORY)
    assert "second copy of this model (1,279 MB of weights)" in refusal
    assert "(1,024 MB)" in refusal and "The rest of the page works" in refusal
    assert baseline_refusal(large, 3 * large) is None


def test_a_baseline_nobody_asked_for_leaves_at_the_next_request(models, monkeypatch):
    # Issue 24: eight BERT-base-sized sessions kept the 418 MB baseline after one comparison.
    from explorer.model import cache as module

    now = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    cache = ModelCache(max_bytes=10 * models["tiny"].weight_bytes, idle_seconds=120)
    cache.get("tiny", lambda: models["tiny"])
    cache.get("random", lambda: random_weights(models["tiny"]), disposable=True)
    now[0] += 100
    cache.get("tiny", pytest.fail)
    assert "random" in cache  # used 100 s ago: kept
    cache.get("random", pytest.fail, disposable=True)  # asked for again: its clock restarts
    now[0] += 119
    cache.get("tiny", pytest.fail)
    assert "random" in cache
    now[0] += 2  # 121 s since the last request for it
    cache.get("tiny", pytest.fail)
    assert cache.keys() == ["tiny"]  # gone; the trained model, older still, stays
    now[0] += 1000
    assert cache.get("tiny", pytest.fail) is models["tiny"]
    with pytest.raises(ValueError, match="idle_seconds"):
        ModelCache(max_bytes=1, idle_seconds=0)
