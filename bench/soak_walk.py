"""The soak's machinery (:mod:`bench.soak`, :mod:`bench.fairness`): sessions opened in tabs,
each step started in every tab before any is waited for, the seconds from the action to the end
of the run it started, the server's resident memory sampled meanwhile, and the table rows."""

from __future__ import annotations

import contextlib
import random
import statistics
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from bench.soak_steps import Session, Step
from harness.browser import open_tab
from harness.server import server_memory
from harness.visits import (
    APP_IS_IDLE,
    MAIN,
    SIDEBAR_LINK,
    RunCounter,
    page_problems,
    wait_until_idle,
)

LIMIT_S = 30.0
"""What the issue asks of every request (issue 14, part 1, item 3)."""
STEP_TIMEOUT_S = 600.0
"""Longest wait for one request before it is recorded as timed out."""
SAMPLE_EVERY_S = 1.0
MB = 2**20

# -- measuring -------------------------------------------------------------------------------------


class MemorySampler(threading.Thread):
    """The server's resident memory every :data:`SAMPLE_EVERY_S`: ``(seconds, bytes)``."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.t0 = url, time.monotonic()
        self.samples: list[tuple[float, int]] = []
        self.done = threading.Event()
        self.sample()

    def sample(self) -> int:
        rss = server_memory(self.url)["rss"]
        self.samples.append((time.monotonic() - self.t0, rss))
        return rss

    def run(self) -> None:
        while not self.done.wait(SAMPLE_EVERY_S):
            with contextlib.suppress(KeyError, OSError):
                self.sample()

    @property
    def peak(self) -> int:
        return max(rss for _, rss in self.samples)


@dataclass
class Record:
    step: Step
    seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    timeouts: int = 0
    capped: int = 0


CAP_WORDS = (
    "Kept the first",
    "occurrences are drawn",
    "compares the first",
    "Showing ",
    "sampled at random",
    "Drawn in 2-D",
    "Only the first",
    "the lens predicts the first",
    "Layers in motion shows",
    "Compared ",
    "Measured on ",
)


def finish(sessions: list[Session], timeout_s: float) -> dict[int, float | None]:
    """Poll every session until its run finished and its app is idle (seconds, or None after
    ``timeout_s``). Polling all tabs in turn times each one to within a fraction of a second."""
    ended: dict[int, float | None] = {}
    idle_since: dict[int, float] = {}
    while len(ended) < len(sessions):
        for s in sessions:
            if s.index in ended:
                continue
            now = time.monotonic()
            if now - s.started > timeout_s:
                ended[s.index] = None
                continue
            try:
                idle = s.counter.finished > s.before and s.page.evaluate(APP_IS_IDLE)
            except Exception:  # noqa: BLE001 - a page mid-navigation cannot evaluate
                idle = False
            if not idle:
                idle_since.pop(s.index, None)
            elif s.index not in idle_since:
                idle_since[s.index] = now
            elif now - idle_since[s.index] >= 0.3:  # idle twice, 300 ms apart
                ended[s.index] = idle_since[s.index] - s.started
        sessions[0].page.wait_for_timeout(100)  # lets Playwright deliver websocket frames
    return ended


def run_step(
    sessions: list[Session], step: Step, url: str, rounds: int, record: Record, timeout_s: float
) -> None:
    opening = step.size == "open"  # a page link starts afresh: failed sessions rejoin
    live = [s for s in sessions if opening or not s.failed]
    for s in live:
        s.failed = False
        rng = random.Random(f"{s.index}-{rounds}-{step.mode}-{step.size}")
        s.before = s.counter.finished
        s.started = time.monotonic()
        try:
            step.start(s, url, rng)
        except Exception as error:  # noqa: BLE001 - recorded, the soak goes on
            record.errors.append(f"session {s.index}: could not start: {str(error)[:200]}")
            s.failed = True
    live = [s for s in live if not s.failed]
    if not live:
        return
    for s in live:
        s.page.set_default_timeout(timeout_s * 1000)
    for index, seconds in finish(live, timeout_s).items():
        session = next(s for s in live if s.index == index)
        if seconds is None:
            record.timeouts += 1
            session.failed = True  # its page is still busy: leave it out of later steps
            continue
        record.seconds.append(seconds)
        problems = page_problems(session.page)
        record.errors += [f"session {index}: {p}" for p in problems]
        alerts = " ".join(
            session.page.locator(MAIN).locator('[data-testid="stAlert"]').all_inner_texts()
        )
        record.capped += any(w in alerts for w in CAP_WORDS)


def fmt_row(record: Record, with_errors: bool = True) -> str:
    step, secs = record.step, record.seconds
    median = f"{statistics.median(secs):6.1f}" if secs else "     -"
    worst = f"{max(secs):6.1f}" if secs else "     -"
    flag = " >30s" if (secs and max(secs) > LIMIT_S) or record.timeouts else ""
    timeouts = f" +{record.timeouts} timed out" if record.timeouts else ""
    row = (
        f"{step.page:16} {step.mode:22} {step.size:42} {median} {worst} {len(secs):3}"
        f" {len(record.errors):3} {record.capped:3}{flag}{timeouts}"
    )
    if with_errors and record.errors:
        row += "".join(f"\n    {e[:300]}" for e in record.errors[:3])
    return row


HEADER = (
    f"{'page':16} {'mode':22} {'input':42} {'median':>6} {'max':>6} {'n':>3} {'err':>3} {'cap':>3}"
)


def walk(
    sessions: list[Session],
    url: str,
    steps: tuple[Step, ...],
    rounds: int,
    sampler: MemorySampler,
    label: str,
    timeout_s: float = STEP_TIMEOUT_S,
) -> tuple[list[Record], list[tuple[str, int, int]]]:
    """Every session through ``steps``, ``rounds`` times; the records and the RSS after each
    page: ``(where, rss now, peak so far)``."""
    records = {(i, r): Record(step) for r in range(rounds) for i, step in enumerate(steps)}
    memory = [(f"{label}: start", sampler.samples[-1][1], sampler.peak)]
    print(f"\n== {label}: {len(sessions)} session(s), {rounds} round(s) ==\n{HEADER}", flush=True)
    for r in range(rounds):
        for i, step in enumerate(steps):
            record = records[(i, r)]
            run_step(sessions, step, url, r, record, timeout_s)
            print(f"{fmt_row(record)}   rss {sampler.samples[-1][1] / MB:,.0f} MB", flush=True)
            last = i + 1 == len(steps) or steps[i + 1].page != step.page
            if last:
                memory.append(
                    (f"{label}: round {r + 1}, after {step.page}", sampler.sample(), sampler.peak)
                )
    merged = []
    for i, step in enumerate(steps):
        total = Record(step)
        for r in range(rounds):
            one = records[(i, r)]
            total.seconds += one.seconds
            total.errors += one.errors
            total.timeouts += one.timeouts
            total.capped += one.capped
        merged.append(total)
    return merged, memory


def open_sessions(
    stack: contextlib.ExitStack,
    browser,
    url: str,
    n: int,
    folder: Path,
    query: dict[str, str] | list[dict[str, str]] | None = None,
):
    """``n`` tabs on the home page (with ``query``, e.g. the model; a list: one per session in
    turn), each a :class:`Session`."""
    queries = query if isinstance(query, list) else [query or {}]
    sessions = []
    for i in range(n):
        tab = stack.enter_context(open_tab(browser))
        mine = dict(queries[i % len(queries)])
        sessions.append(Session(i, tab, RunCounter(tab.page), folder, mine))
    for s in sessions:  # the server routes a deep link only after a first visit
        s.page.goto(f"{url}/" + (f"?{urllib.parse.urlencode(s.query)}" if s.query else ""))
    for s in sessions:
        s.page.locator(SIDEBAR_LINK).first.wait_for(timeout=180_000)
        wait_until_idle(s.page, 180)
    return sessions
