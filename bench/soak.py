"""Soak test: the largest input each page accepts, from several browser sessions at once.

``python -m bench.soak [--sessions 8] [--rounds 1] [--pages tokens,projections] [--solo]
[--model FOLDER | --models A,B,C] [--query KEY=VALUE]`` (the heavy-and-light case is
:mod:`bench.fairness`)
starts ``streamlit run app.py`` (:func:`harness.server.streamlit_server`), opens one Chromium tab
per session and walks every session through the same steps together: each step is started in
every tab before any is waited for, so the server runs them all at once. A step is one request
a visitor can make (:mod:`bench.soak_steps`): a page link with its bound parameters, a text
typed and applied, a radio or selectbox choice, a CSV uploaded. The inputs are the largest each
page accepts, different in every session and round, so no session profits from another's
cache and the caches fill up to their byte budgets. ``--model FOLDER`` offers that folder to
the server (``EXPLORER_MODELS``) and every page link picks it (``?model=``); the lens's steps
run when it has a masked-LM head (``python -m bench.model_folders`` writes BERT-base-sized and
BERT-large-sized ones). ``--models`` offers several folders and gives them to the sessions in
turn (session 1 the first, session 2 the second...): visitors picking different models of one
server. ``--query`` adds a bound parameter to every page link (``layers.cka_random=true``: the
Layers page's CKA beside random weights).

For every request it records the seconds from the action to the end of the script run it
started (the server's ``script_finished`` message, then an idle app), whether the page showed
an exception box or an ``st.error``, and whether a cap note ("Kept the first ...") appeared.
A thread samples the server's resident memory (with its children) every second. The table
printed at the end: page, mode, input, median and max seconds over sessions and rounds, errors;
then the RSS at the start, after each page and round, and its peak, and the load average.
``--solo`` first runs one session alone through the same steps (the 30 s figure is about one
request; the soak shows the plateau and that every session gets its answer).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from bench.soak_steps import PAGE_NAMES, Session, Step, steps_for
from harness.browser import browser_unavailable, chromium, open_tab
from harness.server import artifacts_dir, log_tail, server_memory, streamlit_server
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
RSS_LIMIT = 2 * 1024**3
"""The peak a shared demo is given (issue 24: 2 GB with BERT-base, 3 GB with BERT-large)."""
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


def _finish(sessions: list[Session], timeout_s: float) -> dict[int, float | None]:
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
    for index, seconds in _finish(live, timeout_s).items():
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


def model_query(folder: str | None) -> tuple[dict[str, str], dict[str, str]]:
    """The query every page link carries to pick ``folder``'s model (``{"model": label}``;
    empty for the bundled model) and the server's extra environment (``EXPLORER_MODELS``)."""
    from bench.classroom import model_query as query_string

    query, env = query_string(folder)
    return dict(urllib.parse.parse_qsl(query)), env


def models_query(folders: list[str], extra: dict[str, str]) -> tuple[list[dict[str, str]], dict]:
    """One query per folder of ``folders`` (``{"model": its label, **extra}``) and the server's
    extra environment offering them all (``EXPLORER_MODELS``)."""
    from explorer.server import settings

    environ = {"EXPLORER_MODELS": ",".join(folders)}
    config = settings.from_environment(environ)
    labels = [config.label_of(str(Path(f).expanduser())) for f in folders]
    return [{"model": label, **extra} for label in labels], environ


def has_head(folder: str | None) -> bool:
    """Whether the model in ``folder`` was saved with a masked-LM head (the bundled: no)."""
    if folder is None:
        return False
    from transformers import AutoConfig

    from explorer.model.loading import has_masked_lm_head

    return has_masked_lm_head(AutoConfig.from_pretrained(folder, local_files_only=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--pages",
        default="",
        help=f"comma-separated subset, in this order, of {','.join(PAGE_NAMES)}",
    )
    parser.add_argument("--solo", action="store_true", help="first one session alone")
    parser.add_argument(
        "--model", default=None, help="a model folder to soak (BERT-base-sized...), not the bundled"
    )
    parser.add_argument(
        "--models", default="", help="comma-separated model folders, given to the sessions in turn"
    )
    parser.add_argument(
        "--query", action="append", default=[], help="KEY=VALUE added to every page link"
    )
    parser.add_argument(
        "--rss-limit-gb", type=float, default=RSS_LIMIT / 2**30, help="the peak's budget"
    )
    parser.add_argument("--timeout", type=float, default=STEP_TIMEOUT_S, help="seconds per step")
    args = parser.parse_args(argv)
    reason = browser_unavailable()
    if reason:
        print(f"cannot run: {reason}")
        return 2
    extra = dict(pair.split("=", 1) for pair in args.query)
    folders = [f.strip() for f in args.models.split(",") if f.strip()]
    if folders:
        query, env = models_query(folders, extra)
    else:
        query, env = model_query(args.model)
        query.update(extra)
    head = all(has_head(f) for f in folders) if folders else has_head(args.model)
    steps = steps_for([p.strip() for p in args.pages.split(",") if p.strip()], head)
    if not head:
        print("the model has no masked-LM head: the lens's steps are left out")
    log = artifacts_dir() / "soak-server.log"
    load_start = os.getloadavg()
    t0 = time.monotonic()
    results: dict[str, list[Record]] = {}
    memory: list[tuple[str, int, int]] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        chromium() as browser,
        streamlit_server(log, env=env) as url,
    ):
        sampler = MemorySampler(url)
        sampler.start()
        try:
            phases = ([("solo", 1, 1)] if args.solo else []) + [
                (f"soak x{args.sessions}", args.sessions, args.rounds)
            ]
            for label, n, rounds in phases:
                with contextlib.ExitStack() as stack:
                    sessions = open_sessions(stack, browser, url, n, Path(folder), query)
                    records, mem = walk(sessions, url, steps, rounds, sampler, label, args.timeout)
                    results[label], memory = records, memory + mem
        finally:
            sampler.done.set()
            sampler.join()
            hwm = server_memory(url)["hwm"]
    print(
        f"\nload average at start {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}; "
        f"at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"wall {time.monotonic() - t0:.0f} s"
    )
    for label, records in results.items():
        print(f"\n== {label}: seconds from action to the run's end ==\n{HEADER}")
        for record in records:
            print(fmt_row(record, with_errors=False))
    print("\n== server RSS (with children) ==")
    for where, rss, peak in memory:
        print(f"{where:50} {rss / MB:8,.0f} MB   peak so far {peak / MB:8,.0f} MB")
    peak, limit = sampler.peak, args.rss_limit_gb * 2**30
    print(
        f"peak RSS (1 s samples) {peak / MB:,.0f} MB; kernel high-water mark {hwm / MB:,.0f} MB; "
        f"limit {limit / MB:,.0f} MB: {'within' if peak <= limit else 'EXCEEDED'}"
    )
    slow = [
        f"{r.step.page} / {r.step.mode} / {r.step.size}: max {max(r.seconds, default=0):.1f} s"
        + (f", {r.timeouts} timed out" if r.timeouts else "")
        for records in results.values()
        for r in records
        if (r.seconds and max(r.seconds) > LIMIT_S) or r.timeouts
    ]
    print("over 30 s:", "; ".join(slow) if slow else "none")
    summary = {
        "model": args.models or args.model or "bundled",
        "load_start": load_start,
        "peak_rss_mb": round(peak / MB),
        "hwm_mb": round(hwm / MB),
        "rss_timeline": [(round(t), round(b / MB)) for t, b in sampler.samples[:: 10]],
        "steps": {
            label: [
                {"page": r.step.page, "mode": r.step.mode, "input": r.step.size,
                 "seconds": [round(s, 2) for s in r.seconds], "timeouts": r.timeouts,
                 "errors": r.errors[:5], "capped": r.capped}
                for r in records
            ]
            for label, records in results.items()
        },
    }  # fmt: skip
    out = artifacts_dir() / "soak.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"written {out}; server log {log}")
    if any(r.errors for records in results.values() for r in records):
        print("--- server log tail ---\n" + log_tail(log, 30))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
