"""Soak test: the largest input each page accepts, from several browser sessions at once.

``python -m bench.soak [--sessions 8] [--rounds 1] [--pages tokens,projections] [--solo]``
(the heavy-and-light case is :mod:`bench.fairness`)
starts ``streamlit run app.py`` (:func:`harness.server.streamlit_server`), opens one Chromium tab
per session and walks every session through the same steps together: each step is started in
every tab before any is waited for, so the server runs them all at once. A step is one request
a visitor can make: a page link with its bound parameters, a text typed and applied, a radio or
selectbox choice, a CSV uploaded. The inputs are the largest each page accepts (see
:data:`STEPS`), different in every session and round, so no session profits from another's
cache and the caches fill up to their byte budgets.

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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from explorer.data import uploads
from explorer.probing import datasets
from harness.browser import Tab, browser_unavailable, chromium, open_tab
from harness.server import artifacts_dir, log_tail, server_memory, streamlit_server
from harness.visits import (
    APP_IS_IDLE,
    MAIN,
    SIDEBAR_LINK,
    RunCounter,
    page_problems,
    wait_until_idle,
)
from harness.widgets import widget

LIMIT_S = 30.0
"""What the issue asks of every request (issue 14, part 1, item 3)."""
RSS_LIMIT = 2 * 1024**3
STEP_TIMEOUT_S = 600.0
"""Longest wait for one request before it is recorded as timed out."""
SAMPLE_EVERY_S = 1.0
MB = 2**20

VOCABULARY = (
    "the of and to in is was for on that with as by at from his her it an were are which this "
    "be or has had not but their they one all there been new more when who would can will "
    "time people year city river money bank vault water music history school market garden "
    "village winter summer morning evening island mountain church station library kitchen "
    "window letter doctor teacher student company country family council children friend "
    "government university language science picture question reason surface weather journey "
    "quickly slowly carefully suddenly quietly always never often rarely perhaps together "
    "opened closed walked carried painted wrote built found lost watched heard remembered "
    "unbelievable extraordinary photosynthesis misunderstanding internationalisation "
).split()
"""Words for the generated texts (some split into several word pieces)."""


# -- the inputs ----------------------------------------------------------------------------------


def words(rng: random.Random, n: int) -> list[str]:
    """``n`` random words of :data:`VOCABULARY`."""
    return rng.choices(VOCABULARY, k=n)


def prose(rng: random.Random, chars: int) -> str:
    """Random words, about ``chars`` characters (a long text: 512 tokens after truncation)."""
    text = " ".join(words(rng, chars // 5 + 10))
    return text[:chars].rsplit(" ", 1)[0] + "."


def lines(rng: random.Random, count: int, per_line: int, word: str | None = None) -> str:
    """``count`` lines of ``per_line`` random words; ``word`` every fourth word when given."""
    out = []
    for k in range(count):
        row = words(rng, per_line)
        if word:
            row[::4] = [word] * len(row[::4])
        out.append(f"Line {k} " + " ".join(row) + ".")
    return "\n".join(out)


def context_text(rng: random.Random) -> str:
    """100 lines (the page's most) of 512 tokens, every other word "bank": the token cap
    (10,000) keeps about 19 lines and about 4,800 occurrences."""
    return "\n".join(
        " ".join(w for pair in zip(["bank"] * 255, words(rng, 255), strict=True) for w in pair)
        for _ in range(100)
    )


def csv_file(rng: random.Random, folder: Path, name: str, with_word: bool) -> Path:
    """A CSV of 5,000 rows (the row limit) just under 5 MB (the byte limit,
    ``uploads.MAX_BYTES``): ``text,label`` with four labels, or ``text,word,label`` with two
    words of two senses each."""
    senses = {"bank": ("money", "river"), "bat": ("animal", "sport")}
    rows = ["text,word,label" if with_word else "text,label"]
    chars = uploads.MAX_BYTES // datasets.MAX_ROWS - 40  # room for quotes, labels, newline
    for k in range(datasets.MAX_ROWS):
        if with_word:
            word = ("bank", "bat")[k % 2]
            label = senses[word][k // 2 % 2]
            text = f"{label} {word} " + prose(rng, chars - 12)
            rows.append(f'"{text}",{word},{label}')
        else:
            label = ("sport", "food", "money", "music")[k % 4]
            rows.append(f'"{label} {prose(rng, chars)}",{label}')
    path = folder / name
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


# -- the steps -------------------------------------------------------------------------------------


@dataclass
class Session:
    index: int
    tab: Tab
    counter: RunCounter
    folder: Path
    started: float = 0.0
    before: int = 0
    failed: bool = False

    @property
    def page(self):
        return self.tab.page


Start = Callable[[Session, str, random.Random], None]
"""Starts one request in a session's tab (base URL, a random generator for its input)."""


@dataclass(frozen=True)
class Step:
    page: str
    mode: str
    size: str
    start: Start


def goto(path: str, **params: str) -> Start:
    def start(session: Session, url: str, rng: random.Random) -> None:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        session.page.goto(f"{url}/{path}{query}")

    return start


SET_VALUE = """(element, value) => {
    const proto = Object.getPrototypeOf(element);
    Object.getOwnPropertyDescriptor(proto, "value").set.call(element, value);
    element.dispatchEvent(new Event("input", {bubbles: true}));
}"""


def type_into(key: str, make: Callable[[random.Random], str]) -> Start:
    """Fill the text area or input ``key`` (no keystrokes, no clipboard) and apply it."""

    def start(session: Session, url: str, rng: random.Random) -> None:
        box = widget(session.page, key).locator("textarea, input").first
        box.wait_for(timeout=60_000)
        # fill() types a megabyte into React's text area for minutes: set it as a paste does.
        box.evaluate(SET_VALUE, make(rng))
        box.focus()
        is_area = box.evaluate("element => element.tagName === 'TEXTAREA'")
        box.press("Control+Enter" if is_area else "Enter")

    return start


def radio(key: str, label: str) -> Start:
    def start(session: Session, url: str, rng: random.Random) -> None:
        widget(session.page, key).get_by_text(label, exact=True).click()

    return start


def select(key: str, label: str) -> Start:
    def start(session: Session, url: str, rng: random.Random) -> None:
        widget(session.page, key).click()
        session.page.get_by_role("option", name=label, exact=True).click()

    return start


def upload(with_word: bool) -> Start:
    def start(session: Session, url: str, rng: random.Random) -> None:
        name = f"probe-{'word' if with_word else 'sentence'}-{rng.randrange(10**9)}.csv"
        path = csv_file(rng, session.folder, name, with_word)
        widget(session.page, "probe.upload").locator('input[type="file"]').set_input_files(
            str(path)
        )

    return start


CHARS = 100_000
WORDS_MODE = "Words: one point per occurrence of a word"
STEPS = (
    Step("Tokens", "pair on", "open", goto("tokens", **{"tokens.pair_on": "true"})),
    Step("Tokens", "text", "100,000 chars", type_into("tokens.text", lambda r: prose(r, CHARS))),
    Step("Tokens", "pair", "+100,000 chars", type_into("tokens.pair", lambda r: prose(r, CHARS))),
    Step("Layers", "-", "open", goto("layers")),
    Step("Layers", "text", "100,000 chars", type_into("layers.text", lambda r: prose(r, CHARS))),
    Step("Attention", "pair on", "open", goto("attention", **{"attention.pair_on": "true"})),
    Step(
        "Attention", "text", "100,000 chars", type_into("attention.text", lambda r: prose(r, CHARS))
    ),
    Step(
        "Attention",
        "pair",
        "+100,000 chars",
        type_into("attention.pair", lambda r: prose(r, CHARS)),
    ),
    Step("Word in context", "mean-centred", "open", goto("context", **{"context.center": "true"})),
    Step(
        "Word in context",
        "mean-centred",
        "100 lines x 512 tokens, 'bank' every 2nd word",
        type_into("context.text", context_text),
    ),
    Step(
        "Projections",
        "sentences, PCA",
        "open",
        goto("projections", **{"projections.source": "Paste lines"}),
    ),
    Step(
        "Projections",
        "sentences, PCA",
        "5,000 lines x 40 words",
        type_into("projections.lines", lambda r: lines(r, 5000, 40)),
    ),
    Step("Projections", "sentences, t-SNE", "same", radio("projections.method", "t-SNE")),
    Step(
        "Projections",
        "t-SNE + every pooling",
        "same",
        select("projections.compare", "Every pooling"),
    ),
    Step("Projections", "UMAP + every pooling", "same", radio("projections.method", "UMAP")),
    Step(
        "Projections",
        "UMAP + random weights",
        "same",
        select("projections.compare", "Random weights"),
    ),
    Step(
        "Projections",
        "words, t-SNE",
        "open",
        goto(
            "projections",
            **{
                "projections.level": WORDS_MODE,
                "projections.source": "Paste lines",
                "projections.method": "t-SNE",
            },
        ),
    ),
    Step(
        "Projections",
        "words, t-SNE",
        "5,000 lines x 40 words, 'bank' every 4th",
        type_into("projections.lines", lambda r: lines(r, 5000, 40, "bank")),
    ),
    Step("Projections", "words, t-SNE 3-D", "same", radio("projections.dims", "3-D")),
    Step("Projections", "words, UMAP 3-D", "same", radio("projections.method", "UMAP")),
    Step("Which layer?", "sentences", "open", goto("probe", **{"probe.source": "Upload a CSV"})),
    Step("Which layer?", "sentences", "CSV 5,000 rows, 4.9 MB (text,label)", upload(False)),
    Step("Which layer?", "words", "open", goto("probe", **{"probe.source": "Upload a CSV"})),
    Step("Which layer?", "words", "CSV 5,000 rows, 4.8 MB (text,word,label)", upload(True)),
    Step(
        "Similarity",
        "paste corpus",
        "open",
        goto("similarity", **{"similarity.corpus.source": "Paste lines"}),
    ),
    Step(
        "Similarity",
        "sentences",
        "60 lines x 512 tokens",
        type_into("similarity.text", lambda r: "\n".join(prose(r, 2600) for _ in range(60))),
    ),
    Step(
        "Similarity",
        "search corpus",
        "5,000 lines x 40 words",
        type_into("similarity.corpus.lines", lambda r: lines(r, 5000, 40)),
    ),
)
"""Every request, in order. ``open`` is a page link with the bound parameters (a new
Streamlit session); the inputs are typed into that page afterwards."""
PAGE_NAMES = {
    "tokens": "Tokens",
    "layers": "Layers",
    "attention": "Attention",
    "context": "Word in context",
    "projections": "Projections",
    "probe": "Which layer?",
    "similarity": "Similarity",
}


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


def open_sessions(stack: contextlib.ExitStack, browser, url: str, n: int, folder: Path):
    sessions = []
    for i in range(n):
        tab = stack.enter_context(open_tab(browser))
        sessions.append(Session(i, tab, RunCounter(tab.page), folder))
    for s in sessions:  # the server routes a deep link only after a first visit
        s.page.goto(f"{url}/")
    for s in sessions:
        s.page.locator(SIDEBAR_LINK).first.wait_for(timeout=180_000)
        wait_until_idle(s.page, 180)
    return sessions


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
    parser.add_argument("--timeout", type=float, default=STEP_TIMEOUT_S, help="seconds per step")
    args = parser.parse_args(argv)
    reason = browser_unavailable()
    if reason:
        print(f"cannot run: {reason}")
        return 2
    order = [PAGE_NAMES[p.strip()] for p in args.pages.split(",") if p.strip()]
    steps = tuple(s for page in order for s in STEPS if s.page == page) if order else STEPS
    log = artifacts_dir() / "soak-server.log"
    load_start = os.getloadavg()
    t0 = time.monotonic()
    results: dict[str, list[Record]] = {}
    memory: list[tuple[str, int, int]] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        chromium() as browser,
        streamlit_server(log) as url,
    ):
        sampler = MemorySampler(url)
        sampler.start()
        try:
            phases = ([("solo", 1, 1)] if args.solo else []) + [
                (f"soak x{args.sessions}", args.sessions, args.rounds)
            ]
            for label, n, rounds in phases:
                with contextlib.ExitStack() as stack:
                    sessions = open_sessions(stack, browser, url, n, Path(folder))
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
    peak = sampler.peak
    print(
        f"peak RSS (1 s samples) {peak / MB:,.0f} MB; kernel high-water mark {hwm / MB:,.0f} MB; "
        f"limit {RSS_LIMIT / MB:,.0f} MB: {'within' if peak <= RSS_LIMIT else 'EXCEEDED'}"
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
