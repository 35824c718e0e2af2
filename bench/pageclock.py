"""Timing one visitor action in the browser, split where its time goes (:mod:`bench.bigmap`).

:func:`timed` runs an action (a click, a key) in a tab and waits for the script run it started
and an idle page: Streamlit's ``script_finished`` seen (:class:`harness.visits.RunCounter`),
then :data:`harness.visits.APP_IS_IDLE` twice, 300 ms apart (:func:`harness.visits.wait_for_runs`,
the definition ``bench.soak`` uses). To time it to 10 ms rather than to the 100 ms of that
polling, a script in the page (:data:`PAGE_CLOCK`) stamps, on the page's own clock, the action
(the last ``pointerup`` or ``keydown``), the websocket messages and the moment the app last
became idle. The split: *before* = action -> the rerun request sent (page clock); *server* =
the script run(s) it started, first start to last end, as the server itself logs them
(:mod:`bench.runclock`; the websocket frames cannot tell: the browser reports them late while
it is busy drawing); *after* = the rest (the request and the result in transit, the browser
parsing and drawing what arrived). *s CPU* is the CPU time the server process used meanwhile
(``/proc``): on a loaded machine it says what the run costs, whatever the wait. *MB in* is
what the page received (Streamlit sends a figure it sent before as a reference only).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from bench import runclock
from harness.browser import Tab
from harness.server import server_cpu
from harness.visits import APP_IS_IDLE, RunCounter, page_problems, wait_for_runs

RUN_TIMEOUT_S = 300.0
MB = 2**20
RUN_LOGS: dict[str, Path] = {}
"""Per server URL, the folder where the server logs its runs (:mod:`bench.runclock`); a bench
adds its server's folder here."""

PAGE_CLOCK = (
    """(() => {
    const log = window.__bench = {input: 0, sent: [], received: [], idleAt: 0, idle: false};
    const stamp = () => { log.input = performance.now(); };
    window.addEventListener("pointerup", stamp, true);
    window.addEventListener("keydown", stamp, true);
    const size = data => data.byteLength ?? data.size ?? data.length ?? 0;
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
        constructor(...args) {
            super(...args);
            // Registered before Streamlit's onmessage: the stamp is the arrival.
            this.addEventListener("message", event =>
                log.received.push([performance.now(), size(event.data)]));
        }
        send(data) {
            log.sent.push([performance.now(), size(data)]);
            return super.send(data);
        }
    };
    const isIdle = """
    + APP_IS_IDLE
    + """;
    setInterval(() => {
        const idle = isIdle();
        if (idle && !log.idle) log.idleAt = performance.now();
        log.idle = idle;
    }, 10);
})();"""
)
"""Injected before the app's own scripts: the page's clock for actions, websocket messages and
the app turning idle (see the module docstring)."""

RESET_CLOCK = (
    "() => { const log = window.__bench; log.input = 0; log.sent = []; log.received = []; }"
)

READ_CLOCK = "() => window.__bench"


@dataclass
class Timing:
    """One action, in seconds: ``total`` from the action to an idle page, and its split."""

    total: float
    before: float | None = None
    server: float | None = None
    after: float | None = None
    server_cpu: float | None = None
    received_mb: float = 0.0
    note: str = ""

    def row(self) -> dict:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in vars(self).items()}


def timed(tab: Tab, frames: RunCounter, url: str, action, note: str = "") -> Timing:
    """Run ``action()`` (a click, a key), wait for its run and an idle page, and read the
    page's clock. Raises when an exception box or an ``st.error`` is shown."""
    page = tab.page
    page.evaluate(RESET_CLOCK)
    before = frames.finished
    cpu = server_cpu(url)
    started = time.monotonic()
    action()
    wait_for_runs(page, frames, before, RUN_TIMEOUT_S)
    coarse = time.monotonic() - started - 0.3  # wait_until_idle checks twice, 300 ms apart
    cpu = server_cpu(url) - cpu
    problems = page_problems(page)
    if problems:
        raise RuntimeError(f"{note}: {problems}")
    clock = page.evaluate(READ_CLOCK)
    start, idle = clock["input"], clock["idleAt"]
    if not start or idle <= start:  # no stamped action, or the page never looked busy
        return Timing(coarse, server_cpu=cpu, note=f"{note} (coarse: 100 ms polling)".strip())
    timing = Timing((idle - start) / 1000, server_cpu=cpu, note=note)
    received = [n for t, n in clock["received"] if start <= t <= idle]
    timing.received_mb = sum(received) / MB
    sent = [t for t, _ in clock["sent"] if t >= start]
    runs = runclock.runs_since(RUN_LOGS[url], started) if url in RUN_LOGS else []
    if sent and runs:
        timing.before = (sent[0] - start) / 1000
        timing.server = max(end for _, end in runs) - min(begin for begin, _ in runs)
        timing.after = max(timing.total - timing.before - timing.server, 0.0)
    return timing
