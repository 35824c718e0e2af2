"""Start the app, open every page from the sidebar in Chromium, save a full-page screenshot each.

Usage (from anywhere)::

    HF_HUB_OFFLINE=1 /work/venv/bin/python tools/screenshots.py --out DIR

It prints one line per page (time, screenshot, problems seen) and exits with 1 when a page
showed an exception box or an ``st.error``, or never rendered its chart, table or links.

This module is also the harness of the browser tests (``tests/browser/``): they import the
server, browser and page helpers from here, so the command and the tests see the same thing.
Playwright is imported lazily, so importing this module never needs a browser.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog, Locator, Page

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CHROMIUM = "/usr/bin/chromium"
# Debian's Chromium, not a Playwright download (`playwright install` cannot reach its CDN).
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
VIEWPORT = {"width": 1400, "height": 900}
STARTUP_TIMEOUT_S = 90.0
# Generous: the first page pays for the model load, the first UMAP for numba's compilation.
PAGE_TIMEOUT_S = 150.0
RUN_SEEN_GRACE_S = 20.0
"""How long :func:`wait_for_run` waits to see a run start before it trusts an idle app."""
EXPECT_GRACE_S = 5.0
MAX_SCREENSHOT_HEIGHT = 16_000

# Selectors, checked against the DOM of Streamlit 1.67.
MAIN = '[data-testid="stMain"]'
SIDEBAR_LINK = '[data-testid="stSidebarNav"] a'
CHART_OR_TABLE = '[data-testid="stPlotlyChart"], [data-testid="stDataFrame"]'
PAGE_LINK = '[data-testid="stPageLink"]'
EXCEPTION = '[data-testid="stException"]'
# st.error is an stAlert around an stAlertContentError. An uncaught exception wraps the same
# inner element in stException instead of stAlert, so the two selectors never overlap.
ERROR_ALERT = '[data-testid="stAlert"]:has([data-testid="stAlertContentError"])'
# The app root carries its connection and script-run state as data-test-* attributes.
APP_IS_IDLE = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.dataset.testConnectionState !== "CONNECTED"
        || app.dataset.testScriptState !== "notRunning") return false;
    const status = document.querySelector('[data-testid="stStatusWidget"]');
    if (status && status.getClientRects().length > 0) return false;
    if (document.querySelector('[data-stale="true"]')) return false;
    // Elements whose code is still loading show a skeleton in their place.
    return ![...document.querySelectorAll('[data-testid="stSkeleton"]')]
        .some(skeleton => skeleton.getClientRects().length > 0);
}"""
# Records whether a script run starts from now on (see watch_runs).
WATCH_RUNS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    window.__explorerRunSeen = false;
    if (window.__explorerWatcher) window.__explorerWatcher.disconnect();
    window.__explorerWatcher = new MutationObserver(() => { window.__explorerRunSeen = true; });
    window.__explorerWatcher.observe(app, {attributeFilter: ["data-test-script-state"]});
}"""


@dataclass(frozen=True)
class PageSpec:
    """One page of the app: its sidebar title, URL path and the element that shows it is done."""

    title: str
    url_path: str
    expect: str = CHART_OR_TABLE

    @property
    def name(self) -> str:
        """Short name for files and test ids: the URL path, ``home`` for the default page."""
        return self.url_path or "home"


PAGES = (
    PageSpec("Home", "", PAGE_LINK),
    PageSpec("Tokens", "tokens"),
    PageSpec("Layers", "layers"),
    PageSpec("Word in context", "context"),
    PageSpec("Projections", "projections"),
    PageSpec("Which layer?", "probe"),
    PageSpec("Similarity & search", "similarity"),
)
"""Every page of app.py's st.navigation, in sidebar order (a browser test checks the order)."""


def artifacts_dir() -> Path:
    """Screenshots and server log go here: ``$EXPLORER_ARTIFACTS`` or ``<repo>/artifacts``."""
    return Path(os.environ.get("EXPLORER_ARTIFACTS") or REPO / "artifacts")


# --- the app server -------------------------------------------------------------------------


SERVER_PIDS: dict[str, int] = {}
"""Process id of every running :func:`streamlit_server`, by base URL (see :func:`server_memory`)."""


class ServerError(RuntimeError):
    """The app server did not start; the message ends with the tail of its log."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
"""Terminal colour codes, as in Streamlit's rich tracebacks."""


def log_tail(path: Path, lines: int = 40) -> str:
    """The last ``lines`` lines of a text file ('' when it does not exist)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(ANSI_ESCAPE.sub("", text).splitlines()[-lines:])


def _healthy(url: str) -> bool:
    # No proxy: a CI runner's http_proxy must not swallow a loopback request.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"{url}/_stcore/health", timeout=2) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def _stop(process: subprocess.Popen) -> None:
    """Terminate the server's whole process group; kill it if it lingers."""
    for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def streamlit_server(
    log_path: Path, app_dir: Path = REPO, timeout_s: float = STARTUP_TIMEOUT_S
) -> Iterator[str]:
    """Run ``streamlit run app.py`` headless on a free loopback port; yield its base URL.

    The server's stdout and stderr go to ``log_path``. Raises :class:`ServerError` (with the
    log's tail) when it exits or does not answer ``/_stcore/health`` within ``timeout_s``.
    The server and its children are terminated on exit, also when the body raises.
    """
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.port", str(port),
        "--server.headless", "true",
        "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command,
            cwd=app_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so one killpg ends it all
        )
    SERVER_PIDS[url] = process.pid
    try:
        deadline = time.monotonic() + timeout_s
        while not _healthy(url):
            if process.poll() is not None:
                raise ServerError(
                    f"streamlit exited with code {process.returncode} before answering "
                    f"{url}/_stcore/health; last lines of {log_path}:\n{log_tail(log_path)}"
                )
            if time.monotonic() > deadline:
                raise ServerError(
                    f"streamlit did not answer {url}/_stcore/health within {timeout_s:.0f} s; "
                    f"last lines of {log_path}:\n{log_tail(log_path)}"
                )
            time.sleep(0.25)
        yield url
    finally:
        SERVER_PIDS.pop(url, None)
        _stop(process)


# --- the browser ----------------------------------------------------------------------------


def chromium_path() -> str:
    """The Chromium binary: ``$EXPLORER_CHROMIUM`` or Debian's ``/usr/bin/chromium``."""
    return os.environ.get("EXPLORER_CHROMIUM") or DEFAULT_CHROMIUM


def browser_unavailable() -> str | None:
    """Why the browser cannot run here, or ``None`` when Playwright and Chromium are present."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -r requirements-dev.txt)"
    path = chromium_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return f"no Chromium at {path} (apt-get install chromium, or set EXPLORER_CHROMIUM)"
    return None


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium driven by Playwright, closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=list(CHROMIUM_ARGS), headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Tab:
    """A browser tab plus what it reported: console errors, page errors, dialogs."""

    page: Page
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message!r}")
        dialog.dismiss()

    def report(self) -> str:
        """Console errors, page errors and dialogs seen so far, one per line."""
        lines = [*self.console_errors, *(f"dialog {d}" for d in self.dialogs)]
        return "\n".join(lines) or "(no console errors, page errors or dialogs)"


@contextlib.contextmanager
def open_tab(browser: Browser) -> Iterator[Tab]:
    """A fresh browser context and tab (a new Streamlit session) recording console errors."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        tab = Tab(context.new_page())
        tab.page.on(
            "console",
            lambda message: (
                tab.console_errors.append(f"console.error: {message.text}")
                if message.type == "error"
                else None
            ),
        )
        tab.page.on("pageerror", lambda error: tab.console_errors.append(f"pageerror: {error}"))
        tab.page.on("dialog", tab._on_dialog)
        yield tab
    finally:
        context.close()


# --- pages ----------------------------------------------------------------------------------


def wait_until_idle(page: Page, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Wait until the script run is over and drawn: connected, not running, no status widget,
    no stale elements, no loading skeletons; checked twice, 300 ms apart."""
    page.wait_for_function(APP_IS_IDLE, timeout=timeout_s * 1000, polling=100)
    page.wait_for_timeout(300)
    page.wait_for_function(APP_IS_IDLE, timeout=timeout_s * 1000, polling=100)


def watch_runs(page: Page) -> None:
    """Start recording script runs, so :func:`wait_for_run` knows when the next one ended."""
    page.evaluate(WATCH_RUNS)


def wait_for_run(page: Page, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """After :func:`watch_runs` and a click or an edit: wait until a script run started and
    the app is idle again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(
            f"() => window.__explorerRunSeen && ({APP_IS_IDLE})()",
            timeout=min(timeout_s, RUN_SEEN_GRACE_S) * 1000,
            polling=100,
        )
    except PlaywrightTimeoutError:
        # A browser slower than the server can receive a run's start and end in one batch,
        # so the state attribute never changed: then an idle app is all there is to wait for.
        pass
    wait_until_idle(page, timeout_s)


def open_home(page: Page, base_url: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Load the app's default page and wait for the sidebar and the first run to finish."""
    page.goto(f"{base_url}/")
    page.locator(SIDEBAR_LINK).first.wait_for(timeout=timeout_s * 1000)
    wait_until_idle(page, timeout_s)


def sidebar_link(page: Page, title: str) -> Locator:
    """The sidebar navigation link whose label is exactly ``title`` (not its icon's name)."""
    return page.locator(SIDEBAR_LINK).filter(has=page.get_by_text(title, exact=True))


def sidebar_titles(page: Page) -> list[str]:
    """The labels of the sidebar navigation links, in order."""
    labels = page.locator(SIDEBAR_LINK).locator('[data-testid="stMarkdownContainer"]')
    return [label.inner_text().strip() for label in labels.all()]


def open_from_sidebar(page: Page, spec: PageSpec, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Click the page's sidebar link and wait until the page's run is over.

    Raises Playwright's ``TimeoutError`` when it is not over in time."""
    watch_runs(page)
    sidebar_link(page, spec.title).click()
    page.wait_for_url(lambda url: url.rstrip("/").endswith(f"/{spec.url_path}".rstrip("/")))
    wait_for_run(page, timeout_s)


def page_problems(page: Page) -> list[str]:
    """Exception boxes and ``st.error`` alerts shown anywhere (main area and sidebar)."""
    problems = [
        f"exception box: {box.inner_text()[:400]!r}" for box in page.locator(EXCEPTION).all()
    ]
    problems += [
        f"st.error: {alert.inner_text()[:400]!r}" for alert in page.locator(ERROR_ALERT).all()
    ]
    return problems


def save_full_page(page: Page, path: Path) -> None:
    """Screenshot the whole page. Streamlit scrolls inside its main area, not the document, so
    the viewport is stretched to the content's height for the shot, then restored."""
    viewport = page.viewport_size or VIEWPORT
    height = page.evaluate(
        """() => Math.max(document.documentElement.scrollHeight,
            ...[...document.querySelectorAll('[data-testid="stMain"], '
                + '[data-testid="stSidebarContent"]')].map(element => element.scrollHeight))"""
    )
    tall = min(max(int(height), viewport["height"]), MAX_SCREENSHOT_HEIGHT)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": viewport["width"], "height": tall})
    try:
        page.wait_for_timeout(500)  # let plotly and the data grid lay out again
        page.screenshot(path=str(path), full_page=True, animations="disabled")
    finally:
        page.set_viewport_size(viewport)


def visit(
    tab: Tab,
    base_url: str,
    spec: PageSpec,
    screenshot: Path | None,
    timeout_s: float = PAGE_TIMEOUT_S,
) -> list[str]:
    """Open Home, go to ``spec`` from the sidebar, save a screenshot (also when it failed).

    Returns the problems seen, empty when the page is fine: a run that did not end in time, a
    run that ended without ``spec.expect`` in view, exception boxes, ``st.error`` alerts.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    problems = []
    try:
        open_home(tab.page, base_url, timeout_s)
        open_from_sidebar(tab.page, spec, timeout_s)
    except PlaywrightTimeoutError as error:
        problems.append(f"timed out: {error.message.splitlines()[0]}")
    else:
        try:  # drawn by now; the grace covers a slow browser
            tab.page.locator(MAIN).locator(spec.expect).filter(visible=True).first.wait_for(
                timeout=EXPECT_GRACE_S * 1000
            )
        except PlaywrightTimeoutError:
            problems.append(f"the run ended with nothing matching {spec.expect!r} in view")
    if screenshot is not None:
        try:
            save_full_page(tab.page, screenshot)
        except PlaywrightTimeoutError as error:
            problems.append(f"screenshot failed: {error.message.splitlines()[0]}")
    return problems + page_problems(tab.page)


def failure_report(what: str, problems: list[str], tab: Tab, server_log: Path) -> str:
    """A readable message for a failed page: problems, browser console, server log tail."""
    return (
        f"{what}:\n  " + "\n  ".join(problems) + "\n--- browser console ---\n" + tab.report()
        + f"\n--- last lines of {server_log} ---\n" + log_tail(server_log, 60)
    )  # fmt: skip


# --- widgets, injected markup, server memory (hardening and load tests) --------------------

INJECTED_MARKUP = """() => [...document.querySelectorAll('[data-testid="stApp"] *')]
    .filter(element => {
        const tag = element.tagName.toLowerCase();
        const link = element.getAttribute("href") || element.getAttribute("xlink:href") || "";
        return (tag === "img" && element.getAttribute("src") === "x")
            || (tag === "script" && element.textContent.includes("alert("))
            || [...element.attributes].some(a => a.name.toLowerCase().startsWith("on"))
            || /^\\s*javascript:/i.test(link);
    })
    .map(element => element.outerHTML.slice(0, 200))"""
"""Elements that pasted ``<script>``, ``<img src=x onerror=...>`` or ``javascript:`` links
would create if a page inserted user text as HTML: anywhere in the app (main area, sidebar,
charts, hover labels). Streamlit's own markup has none of them."""


def widget(page: Page, key: str) -> Locator:
    """The element of the widget (or keyed element) ``key``: Streamlit gives it the class
    ``st-key-<key>``, every character but letters, digits, ``_`` and ``-`` made ``-``."""
    css_class = "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())
    return page.locator(f'[data-testid="stApp"] .{css_class}').first


def injected_markup(page: Page) -> list[str]:
    """The start of every element that :data:`INJECTED_MARKUP` finds (empty when none)."""
    return page.evaluate(INJECTED_MARKUP)


def type_text(page: Page, key: str, text: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Type ``text`` into the text area or text input ``key`` and apply it (Ctrl+Enter or
    Enter), without waiting: :func:`wait_for_run` waits for the rerun it starts. ``text``
    must differ from the widget's value (an unchanged value starts no rerun)."""
    box = widget(page, key).locator("textarea, input").first
    box.wait_for(timeout=timeout_s * 1000)
    watch_runs(page)
    box.fill(text)
    is_area = box.evaluate("element => element.tagName === 'TEXTAREA'")
    box.press("Control+Enter" if is_area else "Enter")


def submit_text(page: Page, key: str, text: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """:func:`type_text`, then wait until the rerun is over."""
    type_text(page, key, text, timeout_s)
    wait_for_run(page, timeout_s)
    widget(page, key).locator("textarea, input").first.blur()


def metrics(page: Page) -> dict[str, str]:
    """The ``st.metric`` values of the main area, by label (as shown, e.g. ``"1,234"``)."""
    shown = page.locator(MAIN).locator('[data-testid="stMetric"]')
    return shown.evaluate_all(
        """metrics => Object.fromEntries(metrics.map(metric => [
            metric.querySelector('[data-testid="stMetricLabel"]')?.innerText.trim(),
            metric.querySelector('[data-testid="stMetricValue"]')?.innerText.trim(),
        ]))"""
    )


def choose_radio(page: Page, key: str, label: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Click the option labelled ``label`` of the radio ``key`` and wait for the rerun."""
    watch_runs(page)
    widget(page, key).get_by_text(label, exact=True).click()
    wait_for_run(page, timeout_s)


def choose_option(page: Page, key: str, label: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Open the selectbox ``key``, pick the option labelled ``label``, wait for the rerun."""
    watch_runs(page)
    widget(page, key).click()
    page.get_by_role("option", name=label, exact=True).click()
    wait_for_run(page, timeout_s)


def upload_file(page: Page, key: str, path: Path, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Give the file uploader ``key`` the file at ``path`` and wait for the rerun."""
    watch_runs(page)
    widget(page, key).locator('input[type="file"]').set_input_files(str(path))
    wait_for_run(page, timeout_s)


def plotly_traces(page: Page, key: str) -> list[dict]:
    """The traces of the Plotly chart ``key`` as the browser drew them: ``name``, ``x``,
    ``y``, ``z`` (nested lists of numbers or strings) and ``customdata``."""
    plot = widget(page, key).locator(".js-plotly-plot").first
    return plot.evaluate(
        """plot => {
            // Plotly keeps a base64 array ({dtype, bdata, shape}) with its decoded
            // _inputArray beside it.
            const plain = value => value == null ? null
                : value._inputArray ? plain(value._inputArray)
                : (ArrayBuffer.isView(value) || Array.isArray(value))
                    ? Array.from(value, plain) : value;
            return plot.data.map(trace => ({
                name: trace.name ?? null, x: plain(trace.x), y: plain(trace.y),
                z: plain(trace.z), customdata: plain(trace.customdata),
            }));
        }"""
    )


class RunCounter:
    """Counts the script runs the server reports finished to one tab, from its websocket.

    :func:`wait_for_run` watches the app's ``data-test-script-state`` attribute, and a browser
    that is slower than the server (several busy tabs on a small machine) can receive a run's
    start and end in one batch, so the attribute never changes and the wait times out. The
    server's ``script_finished`` message cannot be missed that way. Create the counter right
    after :func:`open_tab`, before the page is loaded (see :func:`wait_for_runs`).
    """

    def __init__(self, page: Page) -> None:
        self.finished = 0
        page.on("websocket", lambda socket: socket.on("framereceived", self._on_frame))

    def _on_frame(self, payload: str | bytes) -> None:
        from google.protobuf.message import DecodeError
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if isinstance(payload, str):
            return
        message = ForwardMsg()
        try:
            message.ParseFromString(payload)
        except DecodeError:
            return
        if (
            message.WhichOneof("type") == "script_finished"
            and message.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
        ):
            self.finished += 1


def wait_for_runs(
    page: Page, counter: RunCounter, finished_before: int, timeout_s: float = PAGE_TIMEOUT_S
) -> None:
    """Wait until ``counter`` has seen a run finish after ``finished_before`` (its count when
    the click or edit was made) and the app is idle again. Raises Playwright's
    ``TimeoutError`` when that takes longer than ``timeout_s``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    deadline = time.monotonic() + timeout_s
    while counter.finished <= finished_before:
        if time.monotonic() > deadline:
            raise PlaywrightTimeoutError(
                f"no script run finished within {timeout_s:.0f} s ({counter.finished} so far)"
            )
        page.wait_for_timeout(100)  # also lets Playwright deliver the websocket frames
    wait_until_idle(page, max(deadline - time.monotonic(), 1.0))


def _process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants, from ``/proc/<pid>/task/*/children`` (Linux)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for children in Path(f"/proc/{current}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo += [int(child) for child in children.read_text().split()]
    return found


def server_memory(url: str) -> dict[str, int]:
    """Resident memory of the :func:`streamlit_server` at ``url`` and its child processes,
    from ``/proc/<pid>/status``: ``rss`` (now) and ``hwm`` (the peak so far), in bytes.

    Raises ``KeyError`` for a URL no running ``streamlit_server`` serves, ``OSError`` where
    there is no ``/proc``.
    """
    totals = {"rss": 0, "hwm": 0}
    for pid in _process_tree(SERVER_PIDS[url]):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue  # the process ended meanwhile
        for name, field_name in (("rss", "VmRSS"), ("hwm", "VmHWM")):
            match = re.search(rf"^{field_name}:\s+(\d+) kB", status, re.MULTILINE)
            totals[name] += int(match.group(1)) * 1024 if match else 0
    return totals


# --- the command ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Save ``<out>/<page>.png`` for every page; return 1 when a page had problems."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the PNG files")
    parser.add_argument(
        "--timeout", type=float, default=PAGE_TIMEOUT_S, help="seconds to wait for each page"
    )
    args = parser.parse_args(argv)
    reason = browser_unavailable()
    if reason:
        print(f"cannot take screenshots: {reason}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    server_log = args.out / "streamlit-server.log"
    failed = 0
    try:
        with streamlit_server(server_log) as base_url, chromium() as browser:
            for spec in PAGES:
                start = time.monotonic()
                path = args.out / f"{spec.name}.png"
                with open_tab(browser) as tab:
                    problems = visit(tab, base_url, spec, path, args.timeout)
                    seconds = time.monotonic() - start
                    print(f"{spec.title:<20} {seconds:5.1f} s  {path}", flush=True)
                    if problems:
                        failed += 1
                        print(failure_report(spec.title, problems, tab, server_log), flush=True)
                    elif tab.console_errors:
                        print("  " + tab.report().replace("\n", "\n  "), flush=True)
    except ServerError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"{len(PAGES) - failed}/{len(PAGES)} pages fine; server log: {server_log}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
