"""Progress bars for long work, as ``(done, total)`` callbacks the library accepts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

Report = Callable[[int, int], None]


@contextmanager
def progress_bar(text: str) -> Iterator[Report]:
    """An ``st.progress`` bar for the duration of the block, yielding a ``(done, total)``
    callback that moves it; the bar is removed at the end, also on error.

    Inside an ``st.cache_data`` function, make the bar there (not in the caller): Streamlit
    replays the elements a cached function touched on a cache hit, and a bar made by the
    caller and moved from inside fails with ``CacheReplayClosureError``."""
    bar = st.progress(0.0, text=text)

    def report(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{text} {done:,} of {total:,}")

    try:
        yield report
    finally:
        bar.empty()
