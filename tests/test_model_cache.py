"""explorer.model.cache: every model alive (trained and random-weights twins) bounded by the
bytes of its weights; idle ones leave first, baselines before trained models; a model that
does not fit beside the models in use is refused, saying what would fit."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

import explorer
from explorer.model.cache import ModelCache, NoRoom

MB = 2**20
BASE = 418 * MB  # Model.weight_bytes of the BERT-base-sized bench folder


class Fake:
    """A model as the cache sees it: its weights' bytes."""

    def __init__(self, name: str, weight_bytes: int = BASE) -> None:
        self.name, self.weight_bytes = name, weight_bytes


def loader(name: str, size: int = BASE, loads: list | None = None):
    """A load function making a new :class:`Fake` (held by nobody but the cache)."""

    def load() -> Fake:
        if loads is not None:
            loads.append(name)
        return Fake(name, size)

    return load


def test_weight_bytes_count_every_tensor_once(tiny_bert_path):
    tiny = explorer.load_model(tiny_bert_path)
    expected = sum(p.numel() * 4 for p in tiny.encoder.parameters()) + sum(
        b.numel() * b.element_size() for b in tiny.encoder.buffers()
    )
    assert tiny.weight_bytes == expected


def test_idle_models_leave_by_bytes_least_recently_used_first():
    cache = ModelCache(max_bytes=2 * BASE)
    cache.get("a", loader("a"))
    cache.get("b", loader("b"))
    assert cache.keys() == ["a", "b"] and cache.bytes == 2 * BASE
    cache.get("a", pytest.fail)  # a hit: no load, and "a" is now the most recent
    cache.get("c", loader("c"))  # over the budget: "b" (idle, oldest) leaves
    assert cache.keys() == ["a", "c"] and cache.bytes <= cache.max_bytes


def test_random_baselines_leave_first():
    cache = ModelCache(max_bytes=2 * BASE)
    cache.get("random:a", loader("random:a"), disposable=True)
    cache.get("a", loader("a"))
    cache.get("b", loader("b"))
    assert cache.keys() == ["a", "b"]


def test_a_model_in_use_stays_counted_and_is_never_loaded_twice():
    # Issue 32: three sessions on three BERT-base-sized models with their twins took a server
    # past 2 GB: the cache let go of models that page runs still held (so their memory stayed)
    # and loaded a second copy when one was asked for again.
    loads: list[str] = []
    cache = ModelCache(max_bytes=2 * BASE)
    held = cache.get("a", loader("a", loads=loads))  # a page run holds it
    cache.get("b", loader("b", loads=loads))
    cache.get("c", loader("c", loads=loads))  # "b" is idle: it leaves, "a" is in use: stays
    assert cache.keys() == ["a", "c"] and cache.bytes == 2 * BASE
    assert cache.get("a", pytest.fail) is held
    cache.drop("a")  # let go while the run holds it: still in memory, still counted
    assert "a" in cache and cache.bytes == 2 * BASE
    assert cache.get("a", pytest.fail) is held  # the same copy, not a second one
    assert loads == ["a", "b", "c"]


def test_a_request_that_cannot_fit_beside_the_models_in_use_is_refused():
    loads: list[str] = []
    cache = ModelCache(max_bytes=2 * BASE + 100 * MB)
    held = [cache.get("a", loader("a")), cache.get("b", loader("b"))]
    # Size known before loading (a random-weights twin): refused without loading.
    with pytest.raises(NoRoom) as refused:
        cache.get("random:a", loader("random:a", loads=loads), disposable=True, size=BASE)
    assert loads == [] and refused.value.needed == BASE
    assert refused.value.free == 100 * MB and refused.value.busy == {"a": BASE, "b": BASE}
    # Size known only once loaded: the copy is let go, nothing is kept, the budget holds.
    copies: list[weakref.ref] = []

    def load_c() -> Fake:
        model = Fake("c")
        copies.append(weakref.ref(model))
        return model

    with pytest.raises(NoRoom, match="418 MB does not fit"):
        cache.get("c", load_c)
    gc.collect()
    assert copies[0]() is None and cache.keys() == ["a", "b"] and cache.bytes <= cache.max_bytes
    # What would fit: a model up to the free bytes, or a model in use (no load at all).
    assert cache.get("small", loader("small", 90 * MB)).weight_bytes == 90 * MB
    assert cache.get("a", pytest.fail) is held[0]
    held.pop()  # the run that held "b" ends: now "c" fits in its place
    cache.get("c", loader("c"))
    assert "b" not in cache and cache.bytes <= cache.max_bytes


def test_a_model_over_the_budget_is_loaded_only_alone():
    cache = ModelCache(max_bytes=BASE)
    large = cache.get("large", loader("large", 3 * BASE))
    assert cache.keys() == ["large"]
    with pytest.raises(NoRoom):
        cache.get("base", loader("base"))  # "large" is in use: no room
    del large
    assert cache.get("base", loader("base")).weight_bytes == BASE
    assert cache.keys() == ["base"]


def test_an_idle_baseline_leaves_at_the_next_request_with_a_fake_clock():
    # Issue 24: eight BERT-base-sized sessions kept the 418 MB baseline after one comparison.
    now = [1000.0]
    cache = ModelCache(max_bytes=10 * BASE, idle_seconds=120, clock=lambda: now[0])
    cache.get("a", loader("a"))
    cache.get("random:a", loader("random:a"), disposable=True)
    now[0] += 100
    cache.get("a", pytest.fail)
    assert "random:a" in cache  # used 100 s ago: kept
    cache.get("random:a", pytest.fail, disposable=True)  # asked for again: its clock restarts
    now[0] += 119
    cache.get("a", pytest.fail)
    assert "random:a" in cache
    now[0] += 2  # 121 s since the last request for it
    cache.get("a", pytest.fail)
    assert cache.keys() == ["a"] and cache.bytes == BASE  # gone; the trained model stays
    with pytest.raises(ValueError, match="idle_seconds"):
        ModelCache(max_bytes=1, idle_seconds=0)


def test_an_idle_baseline_still_held_is_counted_and_given_back():
    now = [0.0]
    cache = ModelCache(max_bytes=10 * BASE, idle_seconds=120, clock=lambda: now[0])
    twin = cache.get("random:a", loader("random:a"), disposable=True)  # a long comparison
    now[0] += 500
    cache.get("a", loader("a"))
    assert cache.bytes == 2 * BASE  # let go, but still in memory while the run holds it
    assert cache.get("random:a", pytest.fail, disposable=True) is twin


def test_concurrent_requests_load_once_and_a_loaded_model_calls_the_hook():
    loads: list[str] = []
    hooks: list[int] = []

    def load() -> Fake:
        loads.append("a")
        time.sleep(0.2)
        return Fake("a")

    cache = ModelCache(max_bytes=10 * BASE)
    cache.after_load = lambda: hooks.append(cache.bytes)
    threads = [threading.Thread(target=cache.get, args=("a", load)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == ["a"] and hooks == [BASE]
    cache.drop("a")
    cache.get("a", load)
    assert loads == ["a", "a"]


def test_a_failed_load_keeps_nothing():
    cache = ModelCache(max_bytes=10)

    def fail():
        raise ValueError("no such model")

    with pytest.raises(ValueError, match="no such model"):
        cache.get("x", fail)
    assert len(cache) == 0 and cache.bytes == 0
    with pytest.raises(ValueError):
        cache.get("x", fail)  # not stuck waiting for the first attempt


def test_the_refusal_says_what_would_fit(monkeypatch):
    from explorer.model.ref import ModelRef
    from explorer.ui.model_in_use import room_refusal

    monkeypatch.setenv("EXPLORER_MODELS", "/srv/models/base-a,/srv/models/base-b")
    a, b = ModelRef("/srv/models/base-a"), ModelRef("/srv/models/base-b")
    busy = {(a, None): BASE, (b, None): 100 * MB}
    error = NoRoom(BASE, 88 * MB, busy)
    message = room_refusal((b.random_twin(), None), error, 1024 * MB)
    assert message.startswith("base-b (local) with random weights needs 418 MB of weights")
    assert "at most 1,024 MB" in message
    assert "using base-a (local) (418 MB), base-b (local) (100 MB) right now" in message
    assert "What fits now: base-a (local) or base-b (local) (loaded already)" in message
    assert "a model of up to 88 MB" in message and "/srv" not in message
    twin = NoRoom(BASE, 0, {(a.random_twin(), None): BASE})
    assert "What fits now: a model of up to 0 MB" in room_refusal((ModelRef("x"), None), twin, BASE)


def test_a_baseline_is_refused_when_it_and_its_model_do_not_fit_together():
    # Issue 24: BERT-large's baseline is a second 1.3 GB copy; in a 1 GiB cache the two would
    # push each other out on every comparison. BERT-base's two 0.42 GB copies fit.
    from explorer.model.loading import twin_refusal as baseline_refusal
    from explorer.server.settings import DEFAULT_MODEL_MEMORY

    large = 1_279 * 2**20
    assert baseline_refusal(BASE, DEFAULT_MODEL_MEMORY) is None
    refusal = baseline_refusal(large, DEFAULT_MODEL_MEMORY)
    assert "second copy of this model (1,279 MB of weights)" in refusal
    assert "(1,024 MB)" in refusal and "The rest of the page works" in refusal
    assert baseline_refusal(large, 3 * large) is None


def test_a_models_bytes_are_known_before_it_loads(tiny_bert_path, tmp_path):
    from explorer.model.loading import expected_weight_bytes

    loaded = explorer.load_model(tiny_bert_path).weight_bytes
    expected = expected_weight_bytes(tiny_bert_path)
    assert abs(expected - loaded) <= 0.01 * loaded + 2**16  # the files' headers besides
    bundled = expected_weight_bytes(None)
    assert abs(bundled - explorer.load_model().weight_bytes) <= 0.01 * bundled
    assert expected_weight_bytes(str(tmp_path)) is None  # no config, no weights
    assert expected_weight_bytes("no-such/model-anywhere") is None  # the hub is not asked
