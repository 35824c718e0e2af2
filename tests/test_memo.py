"""The byte-bounded memo: eviction by bytes and entries, one computation per key."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from explorer.memo import Memo, nbytes

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
    from explorer.memo import Pool

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
    from explorer.ui import attention, compute

    memos = [*compute.BUDGETS.values(), attention.MEMO]
    assert all(memo.pool is compute.POOL for memo in memos)
    assert compute.POOL.memos == memos
    assert compute.POOL.max_bytes < sum(memo.max_bytes for memo in memos)


def test_a_pool_computes_at_most_max_running_results_at_once_and_hits_never_wait():
    from explorer.memo import Pool

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
