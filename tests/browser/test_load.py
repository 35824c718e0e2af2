"""Many sessions at once on the real server, with the one shared cached model.

Eight browser contexts (eight Streamlit sessions) each open two of Tokens, Layers, Word in
context and Projections, each with its own texts, all four pages at once (two sessions on
each, then two others; every page is checked in four sessions), then (within a bounded time)
come back to Tokens with new texts: every step is started in all eight tabs before any is
waited for, so the server runs eight scripts at once. Each number a session shows must equal
what the library computes for that session's input in this process (what one session alone
shows), no session may show an exception box, and the server's resident memory is sampled
throughout.
One session also asks for a model that is not available offline: it gets its sidebar error,
keeps the bundled model, and nobody else notices.

The figures (sessions, page visits, script runs, peak RSS, wall time) are printed and written
to ``$EXPLORER_ARTIFACTS/load-test.json``.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pytest

import explorer
from explorer import context as ctx
from explorer import layerstats
from explorer.data.corpora import SENSE_WORDS
from explorer.maps import Projector, total_explained_variance
from harness.browser import Tab, open_tab
from harness.server import log_tail, server_memory
from harness.visits import (
    ERROR_ALERT,
    EXCEPTION,
    IDLE_RECHECK_MS,
    MAIN,
    PAGES,
    SIDEBAR_LINK,
    RunCounter,
    save_full_page,
    sidebar_link,
    wait_for_idle_state,
    wait_for_runs,
    wait_until_all_idle,
    watch_runs,
)
from harness.widgets import metrics, plotly_traces, type_text, widget

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SESSIONS = 8
DURATION_S = 60.0
"""No new round starts after this. The first round takes every session to two of the four
pages (:func:`stop_of`); the second brings every session back to Tokens with new texts: a
return after a tour (the failing session still shows its error) at a fraction of the first
round's cost, as every page's numbers under load were checked in the first round."""
MAX_ROUNDS = 2
PAGES_PER_STOP = 4
"""Tokens, Layers, Word in context and Projections (:func:`stops`)."""
STOPS = 2
"""Pages each session opens in the first round: two of the four (:func:`stop_of`)."""
RSS_LIMIT = 4 * 1024**3
SAMPLE_EVERY_S = 0.25
MISSING_MODEL = "bert-base-uncased"
"""Not in the offline cache: loading it fails with a ValueError the sidebar shows."""
FAILING = SESSIONS - 1
"""The session that asks for :data:`MISSING_MODEL`."""
WORDS = ("bank", "river", "money", "vault")
LAYER = 5
"""The Layers page's default layer (``layers.layer``); its default token is the first
ambiguous word (:func:`explorer.layerstats.default_token`)."""
SIDEBAR = '[data-testid="stSidebar"]'


# -- what each session types, and what it must see ---------------------------------------------


def tokens_text(i: int, r: int) -> str:
    return f"Session {i}, round {r}: " + "the river bank " * (i + 1) + "unbelievably " * r


def layers_text(i: int, r: int) -> str:
    return f"Visitor {i} saw {r + 2} banks by the river" + ", and one more bank" * (i + r)


def context_input(i: int, r: int) -> tuple[list[str], str]:
    word = WORDS[(i + r) % len(WORDS)]
    sentences = [
        f"Visitor {i} put money in the {word} on day {r}.",
        f"The {word} number {i} was by the river.",
        f"Nobody saw the {word} again" + " and again" * i + ".",
    ]
    return sentences, word


def projection_lines(i: int, r: int) -> list[str]:
    topics = ("the bank raised its rates", "the team won the final", "the soup needs salt")
    return [f"Line {k} of session {i}, round {r}: {topics[k % 3]}." for k in range(5 + i)]


@dataclass
class Expected:
    """The library's numbers for one session's inputs in one round (single-session truth)."""

    tokens: int
    layer_tokens: int
    norm: float
    occurrences: int
    heatmap: np.ndarray
    points: int
    variance: float


def expected(model: explorer.Model, i: int, r: int) -> Expected:
    hidden = model.hidden_states(layers_text(i, r))
    tokenization = model.tokenize(layers_text(i, r))
    token = layerstats.default_token(tokenization.tokens, tokenization.special, SENSE_WORDS)
    sentences, word = context_input(i, r)
    occurrences, per_layer = explorer.word_layer_vectors(model, sentences, word, "mean")
    lines = projection_lines(i, r)
    vectors = explorer.embed_corpus(model, lines).sentence("mean", "last")
    projector = Projector("pca", 2, 0).fit(vectors)
    return Expected(
        tokens=len(model.tokenize(tokens_text(i, r))),
        layer_tokens=hidden.shape[1],
        norm=layerstats.vector_statistics(hidden[LAYER, token])["norm"],
        occurrences=len(occurrences),
        heatmap=ctx.similarity_matrix(per_layer, "last"),
        points=len(lines),
        variance=100 * total_explained_variance(projector.explained_variance_ratio_),
    )


# -- the sessions --------------------------------------------------------------------------------


@dataclass
class Session:
    index: int
    tab: Tab
    counter: RunCounter
    failures: list[str] = field(default_factory=list)
    visits: int = 0
    runs: int = 0

    @property
    def page(self):
        return self.tab.page

    def fail(self, where: str, message: str) -> None:
        self.failures.append(f"session {self.index}, {where}: {message}")


APP_STATE = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const status = document.querySelector('[data-testid="stStatusWidget"]');
    return {
        connection: app?.dataset.testConnectionState, script: app?.dataset.testScriptState,
        runSeen: window.__explorerRunSeen ?? null,
        status: status && status.getClientRects().length > 0 ? status.innerText : null,
        stale: document.querySelectorAll('[data-stale="true"]').length,
        skeletons: [...document.querySelectorAll('[data-testid="stSkeleton"]')]
            .filter(s => s.getClientRects().length > 0).length,
    };
}"""
"""What :func:`harness.visits.wait_until_idle` waits on, for a message when it times out."""

Action = Callable[[Session], bool]
"""Starts something in a session's tab; ``False`` when there was nothing to do (no rerun)."""


def run_together(sessions: list[Session], phases: list[dict[int, Action]], where: str) -> None:
    """For each phase: start every session's action, then wait for all of their reruns.

    A session whose rerun does not end in time is recorded as failed (and left out of the
    following phases); the others carry on. Each session's app is seen idle twice, at least
    :data:`~harness.visits.IDLE_RECHECK_MS` apart, as :func:`~harness.visits.wait_until_idle`
    does, with one pause for all the sessions of a phase (one each took 2.4 s a phase)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    def timed_out(session: Session, number: int, error: PlaywrightTimeoutError) -> None:
        state = session.page.evaluate(APP_STATE)
        session.fail(f"{where}, step {number}", f"{error.message.splitlines()[0]} {state}")

    for number, phase in enumerate(phases):
        live = [s for s in sessions if s.index in phase and not s.failures]
        before = {s.index: s.counter.finished for s in live}
        started = [s for s in live if phase[s.index](s)]
        idle = []
        for session in started:
            try:
                wait_for_runs(session.page, session.counter, before[session.index], recheck=False)
            except PlaywrightTimeoutError as error:
                timed_out(session, number, error)
            else:
                idle.append(session)
        if idle:
            idle[0].page.wait_for_timeout(IDLE_RECHECK_MS)
        for session in idle:
            try:
                wait_for_idle_state(session.page)
            except PlaywrightTimeoutError as error:
                timed_out(session, number, error)
            else:
                session.runs += 1


def navigate(title: str) -> Action:
    path = next(spec.url_path for spec in PAGES if spec.title == title)

    def start(session: Session) -> bool:
        if urllib.parse.urlsplit(session.page.url).path.strip("/") == path:
            return False  # already there (its last stop): its link shows nothing new
        watch_runs(session.page)
        sidebar_link(session.page, title).click()
        session.visits += 1
        return True

    return start


def text(key: str, value: Callable[[int], str]) -> Action:
    def start(session: Session) -> bool:
        wanted = value(session.index)
        box = widget(session.page, key).locator("textarea, input").first
        if box.input_value() == wanted:  # kept from an earlier visit: no rerun
            return False
        type_text(session.page, key, wanted)
        return True

    return start


def choose_paste(session: Session) -> bool:
    option = widget(session.page, "projections.source").get_by_role("radio", name="Paste lines")
    if option.is_checked():
        return False
    watch_runs(session.page)
    widget(session.page, "projections.source").get_by_text("Paste lines", exact=True).click()
    return True


def choose_missing_model(session: Session) -> bool:
    watch_runs(session.page)
    widget(session.page, "model").click()
    session.page.get_by_role("option", name=MISSING_MODEL, exact=True).click()
    return True


def check_page(session: Session, where: str) -> None:
    """No exception box anywhere, no st.error in the main area; the sidebar error only in
    the session that asked for the missing model, and it names that model."""
    page = session.page
    for box in page.locator(EXCEPTION).all():
        session.fail(where, f"exception box {box.inner_text()[:300]!r}")
    for alert in page.locator(MAIN).locator(ERROR_ALERT).all():
        session.fail(where, f"st.error {alert.inner_text()[:300]!r}")
    sidebar_errors = page.locator(SIDEBAR).locator(ERROR_ALERT).all_inner_texts()
    if session.index == FAILING and not any(MISSING_MODEL in e for e in sidebar_errors):
        session.fail(where, f"no sidebar error about {MISSING_MODEL}: {sidebar_errors}")
    if session.index != FAILING and sidebar_errors:
        session.fail(where, f"sidebar error in a session that loaded nothing: {sidebar_errors}")


def _number(shown: str | None) -> float:
    return float(re.sub(r"[^0-9.\-]", "", shown or "nan") or "nan")


def check_tokens(session: Session, want: Expected) -> None:
    shown = metrics(session.page).get("Tokens")
    if _number(shown) != want.tokens:
        session.fail("Tokens", f"'Tokens' shows {shown!r}, the library counts {want.tokens}")


def check_layers(session: Session, want: Expected) -> None:
    caption = session.page.locator(MAIN).get_by_text("hidden states of shape").inner_text()
    shape = re.search(r"shape \((\d+), (\d+), (\d+)\)", caption)
    if not shape or int(shape.group(2)) != want.layer_tokens:
        session.fail("Layers", f"{caption!r}; the library has {want.layer_tokens} tokens")
    shown = metrics(session.page).get("norm (L2)")
    if abs(_number(shown) - want.norm) > 2e-4:
        session.fail("Layers", f"norm shows {shown!r}, the library has {want.norm:.4f}")


def check_context(session: Session, want: Expected) -> None:
    heading = session.page.locator(MAIN).get_by_text(re.compile(r"occurrences? of")).first
    count = heading.inner_text().split()[0]
    if count != str(want.occurrences):
        session.fail("Word in context", f"{heading.inner_text()!r}, not {want.occurrences}")
    shown = np.asarray(plotly_traces(session.page, "context.heatmap")[0]["z"], dtype=float)
    if shown.shape != want.heatmap.shape or not np.allclose(shown, want.heatmap, atol=1e-4):
        session.fail("Word in context", f"heatmap {shown.round(4)} != {want.heatmap.round(4)}")


def check_projections(session: Session, want: Expected) -> None:
    shown = metrics(session.page)
    points, variance = shown.get("Points"), shown.get("Variance explained")
    if _number(points) != want.points:
        session.fail("Projections", f"'Points' shows {points!r}, not {want.points}")
    if abs(_number(variance) - want.variance) > 0.051:
        session.fail("Projections", f"variance shows {variance!r}, not {want.variance:.1f} %")


Stop = tuple[str, list[Action], Callable[[Session, Expected], None]]
"""A page: its sidebar title, the steps that take a session there and give it the session's
input, and the check of what it shows."""


def stops(r: int) -> list[Stop]:
    """Every page of the test, with round ``r``'s inputs."""
    return [
        (
            "Tokens",
            [
                navigate("Tokens"),
                text("tokens.text", lambda i: tokens_text(i, r)),
            ],
            check_tokens,
        ),
        (
            "Layers",
            [
                navigate("Layers"),
                text("layers.text", lambda i: layers_text(i, r)),
            ],
            check_layers,
        ),
        (
            "Word in context",
            [
                navigate("Word in context"),
                text("context.text", lambda i: "\n".join(context_input(i, r)[0])),
                text("context.word", lambda i: context_input(i, r)[1]),
            ],
            check_context,
        ),
        (
            "Projections",
            [
                navigate("Projections"),
                choose_paste,
                text("projections.lines", lambda i: "\n".join(projection_lines(i, r))),
            ],
            check_projections,
        ),
    ]


def stop_of(i: int, visit: int) -> int:
    """The page (index into :func:`stops`) session ``i`` opens at its ``visit``-th stop of the
    first round: sessions 0 and 4 start on Tokens, 1 and 5 on Layers, ..., and the second stop
    is two pages on, so that at every stop all four pages run at once, and every page is
    shown to four sessions (two at a time), each with its own input."""
    return (i + 2 * visit) % PAGES_PER_STOP


def drive_round(sessions: list[Session], r: int, want: dict[int, Expected]) -> None:
    """Round 0: :data:`STOPS` stops, every session on a page of its own (:func:`stop_of`); at
    the first, one session also asks for a model it cannot have. A later round: every session
    back to Tokens (see :data:`DURATION_S`)."""
    pages = stops(r)
    if r == 0:
        plan = {s.index: [stop_of(s.index, visit) for visit in range(STOPS)] for s in sessions}
    else:
        plan = {s.index: [0] for s in sessions}
    for visit in range(len(next(iter(plan.values())))):
        steps = {s.index: list(pages[plan[s.index][visit]][1]) for s in sessions}
        if r == 0 and visit == 0:  # after it opened its page, it asks for the missing model
            steps[FAILING].insert(1, choose_missing_model)
        phases = [
            {i: actions[k] for i, actions in steps.items() if k < len(actions)}
            for k in range(max(len(actions) for actions in steps.values()))
        ]
        run_together(sessions, phases, f"round {r}, stop {visit}")
        for session in sessions:
            if not session.failures:
                title, _, check = pages[plan[session.index][visit]]
                check_page(session, f"round {r}, {title}")
                check(session, want[session.index])


class MemorySampler(threading.Thread):
    """Samples the server's resident memory every :data:`SAMPLE_EVERY_S` until stopped."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.start_rss = server_memory(url)["rss"]
        self.peak_rss = self.start_rss
        self.samples = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(SAMPLE_EVERY_S):
            with contextlib.suppress(KeyError, OSError):
                self.peak_rss = max(self.peak_rss, server_memory(self.url)["rss"])
                self.samples += 1


def test_eight_sessions_at_once_get_their_own_correct_results(
    browser, app_url: str, bundled: explorer.Model, artifacts: Path, server_log: Path
) -> None:
    # each round's truth is computed when the round starts: a round the time bound skips
    # costs nothing (8 sessions' expectations are several seconds of the bundled model)
    want = {i: expected(bundled, i, 0) for i in range(SESSIONS)}
    sampler = MemorySampler(app_url)
    sampler.start()
    started = time.monotonic()
    rounds = 0
    with contextlib.ExitStack() as stack:
        tabs = [stack.enter_context(open_tab(browser)) for _ in range(SESSIONS)]
        sessions = [Session(i, tab, RunCounter(tab.page)) for i, tab in enumerate(tabs)]
        try:
            for session in sessions:  # a page load each; their first runs overlap
                session.page.goto(f"{app_url}/")
                session.visits += 1
            for session in sessions:
                session.page.locator(SIDEBAR_LINK).first.wait_for()
            wait_until_all_idle([session.page for session in sessions])
            while rounds < MAX_ROUNDS and not any(s.failures for s in sessions):
                if rounds and time.monotonic() - started > DURATION_S:
                    break
                if rounds:  # the return to Tokens checks the token count alone
                    want = {
                        i: replace(w, tokens=len(bundled.tokenize(tokens_text(i, rounds))))
                        for i, w in want.items()
                    }
                drive_round(sessions, rounds, want)
                rounds += 1
        finally:
            wall = time.monotonic() - started
            sampler.done.set()
            sampler.join()
            failures = [f for s in sessions for f in s.failures]
            if failures:
                for s in sessions:
                    save_full_page(
                        s.page, artifacts / "screenshots" / f"load-session-{s.index}.png"
                    )
            figures = {
                "sessions": SESSIONS,
                "rounds": rounds,
                "page_visits": sum(s.visits for s in sessions),
                "script_runs": sum(s.runs for s in sessions),
                "wall_time_s": round(wall, 1),
                "server_rss_start_mb": round(sampler.start_rss / 2**20),
                "server_rss_peak_mb": round(sampler.peak_rss / 2**20),
                "server_hwm_mb": round(server_memory(app_url)["hwm"] / 2**20),
                "memory_samples": sampler.samples,
                "failures": len(failures),
            }
            (artifacts / "load-test.json").write_text(json.dumps(figures, indent=2) + "\n")
            print("load test:", json.dumps(figures))
    assert not failures, "\n".join(failures) + f"\n--- server log ---\n{log_tail(server_log, 60)}"
    assert rounds >= 1
    assert sampler.peak_rss < RSS_LIMIT, f"server RSS peaked at {sampler.peak_rss / 2**30:.2f} GB"
