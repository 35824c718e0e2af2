"""The byte-bounded memo: eviction by bytes and entries, one computation per key."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from explorer.server.memo import Cancelled, Memo, Pool, checkpoint, nbytes

KEYS = 1024
"""Room for the keys of a test's results (a memo counts each key's bytes with its result)."""


def _array(megabytes: float) -> np.ndarray:
    return np.zeros(int(megabytes * 1024 * 1024 / 4), dtype=np.float32)


def test_nbytes_counts_arrays_inside_containers_and_dataclasses():
    from explorer.words import Occurrence

    value = ([Occurrence(0, 0, 4, 1, 2, "bank")], _array(1), {"a": _array(0.5)})
    assert 1.5 * 2**20 <= nbytes(value) < 1.6 * 2**20


def test_least_recently_used_results_leave_when_the_bytes_run_out():
    memo = Memo(max_bytes=3 * 2**20 + KEYS, max_entries=10)
    for key in "abc":
        memo.get(key, lambda: _array(1))
    memo.get("a", lambda: pytest.fail("a is cached"))  # a becomes the most recent
    memo.get("d", lambda: _array(1))
    assert "b" not in memo and {"a", "c", "d"} == {k for k in "abcd" if k in memo}
    assert memo.bytes <= memo.max_bytes


def test_a_key_counts_with_its_result():
    """A key can hold a request's every text: it counts, so a memo of big keys stays bounded."""
    memo = Memo(max_bytes=2 * 2**20, max_entries=10)
    texts = tuple("x" * 2**20 for _ in range(3))  # 3 MB of texts as the key of a tiny result
    assert memo.get(texts, lambda: 1) == 1
    assert texts not in memo and memo.bytes == 0  # over the budget: returned, not kept
    memo.get(texts[:1], lambda: 2)
    assert texts[:1] in memo and 2**20 < memo.bytes <= memo.max_bytes


def test_entries_are_bounded_too_and_an_oversized_result_is_returned_not_kept():
    memo = Memo(max_bytes=2**30, max_entries=2)
    for key in "abc":
        memo.get(key, lambda: 1)
    assert len(memo) == 2 and "a" not in memo
    small = Memo(max_bytes=2**20)
    assert small.get("big", lambda: _array(2)).shape == (2**19,)
    assert "big" not in small and small.bytes == 0


def test_concurrent_calls_with_one_key_compute_once():
    memo, calls = Memo(max_bytes=2**20), []

    def slow():
        calls.append(1)
        time.sleep(0.2)
        return 42

    results = []
    threads = [
        threading.Thread(target=lambda: results.append(memo.get("k", slow))) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [42] * 4 and len(calls) == 1


def test_an_error_is_raised_and_not_stored():
    memo = Memo(max_bytes=2**20)
    with pytest.raises(ValueError, match="bad"):
        memo.get("k", lambda: (_ for _ in ()).throw(ValueError("bad")))
    assert "k" not in memo
    assert memo.get("k", lambda: 7) == 7


def test_bad_budgets_are_refused():
    with pytest.raises(ValueError):
        Memo(max_bytes=0)


def test_memos_of_a_pool_share_its_budget_and_drop_the_oldest_result_of_any():

    pool = Pool(max_bytes=3 * 2**20 + KEYS)
    first, second = Memo(2 * 2**20 + KEYS, pool=pool), Memo(2 * 2**20 + KEYS, pool=pool)
    first.get("a", lambda: _array(1))
    second.get("b", lambda: _array(1))
    first.get("c", lambda: _array(1))
    second.get("b", lambda: pytest.fail("b is cached"))  # b becomes the most recent
    second.get("d", lambda: _array(1))  # 4 MB: the oldest of either memo (a) leaves
    assert "a" not in first and "c" in first and {"b", "d"} <= {k for k in "bd" if k in second}
    assert 3 * 2**20 < pool.bytes <= pool.max_bytes
    assert first.get("big", lambda: _array(2.5)).size  # over the memo's own budget: not kept
    assert "big" not in first and pool.bytes <= pool.max_bytes
    with pytest.raises(ValueError, match="max_bytes"):
        Pool(0)


def test_the_apps_caches_share_one_pool():
    from explorer.ui import attention_heads, compute

    memos = [*compute.BUDGETS.values(), attention_heads.MEMO]
    assert all(memo.pool is compute.POOL for memo in memos)
    assert compute.POOL.memos == memos
    assert compute.POOL.max_bytes < sum(memo.max_bytes for memo in memos)


def test_a_pool_computes_at_most_max_running_results_at_once_and_hits_never_wait():

    pool = Pool(max_bytes=2**30, max_running=1)
    first, second = Memo(2**30, pool=pool), Memo(2**30, pool=pool)
    second.get("ready", lambda: 1)
    running, most, lock = [0], [0], threading.Lock()
    started = threading.Event()

    def slow(value):
        def compute():
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            started.set()
            time.sleep(0.3)
            with lock:
                running[0] -= 1
            return value

        return compute

    def nested():  # a computation that needs another result: same thread, no second turn
        return second.get("inner", slow(2)) + 1

    threads = [
        threading.Thread(target=lambda: first.get("a", slow(1))),
        threading.Thread(target=lambda: first.get("b", nested)),
    ]
    for thread in threads:
        thread.start()
    started.wait(5)
    begun = time.perf_counter()
    assert second.get("ready", lambda: pytest.fail("cached")) == 1  # a hit does not wait
    assert time.perf_counter() - begun < 0.1
    for thread in threads:
        thread.join(10)
    assert most[0] == 1 and first.get("b", pytest.fail) == 3 and first.get("a", pytest.fail) == 1
    with pytest.raises(ValueError, match="max_running"):
        Pool(1, max_running=0)


class Holder:
    """A computation in its own thread that holds its turn until ``release`` is set: ``started``
    once it runs, ``outcome`` its result or exception once it ends."""

    def __init__(self, memo: Memo, key: str, heavy: bool, owner=None, check=None) -> None:
        self.started, self.release, self.ended = threading.Event(), threading.Event(), None
        self.outcome: object = None

        def compute():
            self.started.set()
            while not self.release.wait(0.01):
                checkpoint()  # as a progress callback does
            return key

        def run():
            try:
                self.outcome = memo.get(key, compute, heavy=heavy, owner=owner, check=check)
            except BaseException as error:  # noqa: BLE001 - the test reads it
                self.outcome = error
            self.ended = time.perf_counter()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def finish(self) -> object:
        self.release.set()
        self.thread.join(5)
        assert not self.thread.is_alive()
        return self.outcome


def _lanes() -> tuple[Pool, Memo]:
    pool = Pool(max_bytes=2**30, max_running=2, max_heavy=1)
    return pool, Memo(2**30, pool=pool)


def _until(condition, timeout: float = 5.0) -> None:
    end = time.perf_counter() + timeout
    while not condition():
        assert time.perf_counter() < end, "timed out"
        time.sleep(0.01)


def test_a_light_computation_never_waits_behind_heavy_ones_and_heavy_ones_queue():
    pool, memo = _lanes()
    first = Holder(memo, "heavy 1", heavy=True)
    assert first.started.wait(5)
    second = Holder(memo, "heavy 2", heavy=True)
    _until(lambda: pool.waiting == (1, 1))
    begun = time.perf_counter()
    assert memo.get("light", lambda: "light") == "light"  # the reserved turn
    assert time.perf_counter() - begun < 0.5
    light = Holder(memo, "light 2", heavy=False)  # light ones may run beside a heavy one
    assert light.started.wait(5) and light.finish() == "light 2"
    assert not second.started.is_set() and pool.running == (1, 1)
    assert first.finish() == "heavy 1"
    assert second.started.wait(5) and second.finish() == "heavy 2"
    assert pool.running == (0, 0) and pool.waiting == (0, 0)


def _session_check():
    """``(gone, check)``: ``check()`` raises once the ``gone`` event is set, as a Streamlit
    session's check does once its visitor has left."""
    gone = threading.Event()

    def check():
        if gone.is_set():
            raise RuntimeError("the session has gone")

    return gone, check


def test_a_waiter_whose_check_fails_leaves_the_queue():
    pool, memo = _lanes()
    first = Holder(memo, "heavy 1", heavy=True)
    assert first.started.wait(5)
    gone, check = _session_check()
    waiter = Holder(memo, "heavy 2", heavy=True, check=check)
    third = Holder(memo, "heavy 3", heavy=True)
    _until(lambda: pool.waiting == (2, 2))
    gone.set()
    waiter.thread.join(5)
    assert isinstance(waiter.outcome, RuntimeError) and not waiter.started.is_set()
    assert pool.waiting == (1, 1) and "heavy 2" not in memo
    first.finish()
    assert third.started.wait(5) and third.finish() == "heavy 3"


def test_a_computation_aborted_by_its_check_keeps_nothing_and_frees_its_turn():
    pool, memo = _lanes()
    gone, check = _session_check()
    doomed = Holder(memo, "heavy", heavy=True, check=check)
    assert doomed.started.wait(5)
    gone.set()
    doomed.thread.join(5)
    assert isinstance(doomed.outcome, RuntimeError)
    assert "heavy" not in memo and pool.running == (0, 0)
    assert memo.get("heavy", lambda: "again", heavy=True) == "again"  # the turn is free


def test_a_sessions_newer_heavy_request_cancels_its_older_one():
    pool, memo = _lanes()
    older = Holder(memo, "old map", heavy=True, owner="session 1")
    assert older.started.wait(5)
    other = Holder(memo, "other session", heavy=True, owner="session 2")
    queued = Holder(memo, "queued map", heavy=True, owner="session 1")
    _until(lambda: pool.waiting == (2, 2))
    newer = Holder(memo, "new map", heavy=True, owner="session 1")
    for cancelled in (older, queued):
        cancelled.thread.join(5)
        assert isinstance(cancelled.outcome, Cancelled)
    assert "old map" not in memo and not queued.started.is_set()
    assert other.started.wait(5) and not newer.started.is_set()  # the newer one queues
    assert other.finish() == "other session"
    assert newer.started.wait(5) and newer.finish() == "new map"
    assert pool.running == (0, 0) and pool.waiting == (0, 0)


def test_a_thread_waiting_for_another_threads_result_can_give_up():
    pool = Pool(max_bytes=2**30, max_running=2)
    memo = Memo(2**30, pool=pool)
    first = Holder(memo, "shared", heavy=False)
    assert first.started.wait(5)
    gone, check = _session_check()
    second = Holder(memo, "shared", heavy=False, check=check)
    _until(lambda: pool.running == (2, 0))  # the second waits for the first's result
    gone.set()
    second.thread.join(5)
    assert isinstance(second.outcome, RuntimeError)
    assert first.finish() == "shared" and pool.running == (0, 0)


@pytest.mark.parametrize(("running", "heavy"), [(2, 2), (2, 0), (None, 0)])
def test_bad_lanes_are_refused(running, heavy):
    with pytest.raises(ValueError, match="max_heavy"):
        Pool(1, max_running=running, max_heavy=heavy)


def test_the_results_pool_shrinks_at_once_when_a_model_loads(monkeypatch):
    # Issue 32: the server's 2 GB holds weights and results together; the pool only learned of
    # a new model's weights at its next stored result, and kept its old results meanwhile.
    from explorer.model.cache import ModelCache
    from explorer.server import limits
    from explorer.ui import compute

    mb = 2**20

    class Fake:
        weight_bytes = 418 * mb  # a BERT-base-sized model

    def result(megabytes: int) -> np.ndarray:
        return np.broadcast_to(np.float32(0), (megabytes * mb // 4,))  # counted, not allocated

    pool = Pool(max_bytes=limits.RESULTS_BYTES)
    memo = Memo(limits.RESULTS_BYTES, pool=pool)
    models = ModelCache(max_bytes=2**30)
    monkeypatch.setattr(compute, "POOL", pool)
    monkeypatch.setattr(compute, "MODELS", models)
    models.after_load = compute.fit_pool
    for key in range(4):
        memo.get(key, lambda: result(100))
    assert pool.bytes > 400 * mb
    held = models.get("base", Fake)
    budget = limits.results_budget(models.bytes)
    assert budget == limits.MIN_RESULTS_BYTES and pool.max_bytes == budget
    assert pool.bytes <= budget and len(memo) == 1  # before any new result is stored
    assert held.weight_bytes == 418 * mb
