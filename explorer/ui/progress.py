"""Progress bars for long work, as ``(done, total)`` callbacks the library accepts. Each call is
also a checkpoint (:func:`explorer.server.memo.checkpoint`): work whose session has gone, reran or
asked for something newer stops there, keeps nothing and frees its turn."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

from explorer.server.memo import checkpoint

Report = Callable[[int, int], None]

PROGRESS_EVERY_S = 1.0
"""Least seconds between two moves of a bar: each move makes the browser render the page
again, and a bar moved after every batch took 6-10 s of CPU from the two cores embedding a
corpus (``bench.soak``, Similarity)."""


def throttled(
    report: Report, every: float = PROGRESS_EVERY_S, clock: Callable[[], float] = time.monotonic
) -> Report:
    """``report(done, total)`` passed on at most once every ``every`` seconds of ``clock``
    (the first call always), and always when ``done`` reaches ``total``."""
    last = -float("inf")

    def move(done: int, total: int) -> None:
        nonlocal last
        now = clock()
        if done >= total or now - last >= every:
            last = now
            report(done, total)

    return move


@contextmanager
def progress_bar(text: str) -> Iterator[Report]:
    """An ``st.progress`` bar for the duration of the block, yielding a ``(done, total)``
    callback that moves it (at most once a second, :func:`throttled`) and first runs
    :func:`explorer.server.memo.checkpoint` (every call); the bar is removed at the end, also on
    error.

    Inside an ``st.cache_data`` function, make the bar there (not in the caller): Streamlit
    replays the elements a cached function touched on a cache hit, and a bar made by the
    caller and moved from inside fails with ``CacheReplayClosureError``."""
    bar = st.progress(0.0, text=text)

    def report(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{text} {done:,} of {total:,}")

    move = throttled(report)

    def step(done: int, total: int) -> None:
        checkpoint()
        move(done, total)

    try:
        yield step
    finally:
        bar.empty()
