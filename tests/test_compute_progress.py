"""Progress bars move at most once a second (explorer.ui.progress.throttled)."""

from __future__ import annotations

from explorer.ui.progress import throttled


def test_throttled_passes_the_first_call_then_one_a_period_and_always_the_last():
    calls, now = [], [0.0]
    move = throttled(lambda done, total: calls.append(done), every=1.0, clock=lambda: now[0])
    for done in range(1, 11):  # ten batches, 0.3 s apart
        move(done, 10)
        now[0] += 0.3
    # t = 0.0 (first), 1.2, 2.4 pass; t = 2.7 is the last batch: always shown
    assert calls == [1, 5, 9, 10]


def test_throttled_with_no_period_passes_every_call():
    calls = []
    move = throttled(lambda done, total: calls.append((done, total)), every=0.0)
    for done in range(1, 4):
        move(done, 3)
    assert calls == [(1, 3), (2, 3), (3, 3)]
