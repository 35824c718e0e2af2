"""Page visits for the harness: the app's pages, Streamlit's DOM, and waits for runs.

:func:`visit` opens Home, goes to a page from the sidebar and screenshots it; the waits
(:func:`wait_until_idle`, :func:`wait_for_run`, :func:`wait_for_runs`) know when a script run
is over and drawn. Selectors are checked against the DOM of Streamlit 1.67.
"""

from __future__ import annotations

import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.browser import VIEWPORT, Tab
from harness.server import log_tail

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

# Generous: the first page pays for the model load, the first UMAP for numba's compilation.
PAGE_TIMEOUT_S = 150.0
RUN_SEEN_GRACE_S = 20.0
"""How long :func:`wait_for_run` waits to see a run start before it trusts an idle app."""
EXPECT_GRACE_S = 5.0
MAX_SCREENSHOT_HEIGHT = 16_000

# Selectors, checked against the DOM of Streamlit 1.67.
MAIN = '[data-testid="stMain"]'
SIDEBAR_LINK = (
    '[data-testid="stSidebarNav"] a, [data-testid="stSidebar"] [data-testid="stPageLink"] a'
)
"""A link of the sidebar's page menu: Streamlit's own navigation, or page links in the sidebar
(the router's menu when the built-in one is hidden)."""
CHART_OR_TABLE = (
    '[data-testid="stPlotlyChart"], [data-testid="stDataFrame"], [data-testid="stTable"]'
)
"""A chart, a data grid or (presentation mode: explorer.ui.presentation.table) a static table."""
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
    PageSpec("Attention", "attention"),
    PageSpec("Word in context", "context"),
    PageSpec("How contextual?", "contextual"),
    PageSpec("Projections", "projections"),
    PageSpec("Which layer?", "probe"),
    PageSpec("Similarity & search", "similarity"),
    PageSpec("Compare models", "compare"),
)
"""Every page of app.py's st.navigation, in sidebar order (a browser test checks the order)."""


IDLE_RECHECK_MS = 300
""":func:`wait_until_idle` looks twice, this far apart: an app idle at both looks is done, not
between a run and a rerun the run asked for."""


def wait_for_idle_state(page: Page, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """One look: wait until the app is idle (:data:`APP_IS_IDLE`)."""
    page.wait_for_function(APP_IS_IDLE, timeout=timeout_s * 1000, polling=100)


def wait_until_idle(page: Page, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Wait until the script run is over and drawn: connected, not running, no status widget,
    no stale elements, no loading skeletons; checked twice, :data:`IDLE_RECHECK_MS` apart."""
    wait_for_idle_state(page, timeout_s)
    page.wait_for_timeout(IDLE_RECHECK_MS)
    wait_for_idle_state(page, timeout_s)


def wait_until_all_idle(pages: list[Page], timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """:func:`wait_until_idle` for several tabs at once: every tab idle, one pause for all of
    them, every tab idle again (each tab's two looks are at least the pause apart, as alone;
    a pause per tab would add up, 2.4 s for eight)."""
    for page in pages:
        wait_for_idle_state(page, timeout_s)
    if pages:
        pages[0].wait_for_timeout(IDLE_RECHECK_MS)
    for page in pages:
        wait_for_idle_state(page, timeout_s)


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


PROJECTIONS_MAP = '[class*="st-key-projections-chart"]'
"""The Projections page's main map (its element key, as a CSS selector)."""
SECOND_MAP = ".st-key-projections-compare_map"
"""The second map of a Projections comparison."""


def map_points(page: Page, chart: str = PROJECTIONS_MAP, count: int | None = None) -> Locator:
    """The drawn points of the map ``chart`` (a CSS selector of its element), after the first
    is drawn; with ``count``, checks that many are drawn."""
    points = page.locator(f"{chart} .scatterlayer .point")
    points.first.wait_for(timeout=PAGE_TIMEOUT_S * 1000)
    if count is not None and points.count() != count:
        raise AssertionError(f"{points.count()} points drawn on {chart}, not {count}")
    return points


def click_point(page: Page, nth: int, chart: str = PROJECTIONS_MAP) -> None:
    """Click the ``nth`` point of the map ``chart`` and wait for the run it starts to end."""
    watch_runs(page)
    page.locator(f"{chart} .scatterlayer .point").nth(nth).click(force=True)
    wait_for_run(page)


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

    Raises Playwright's ``TimeoutError`` when it is not over in time. The link of the page
    already shown (Home's, after :func:`open_home`) shows nothing new, and the busy machine's
    browser saw no run start after it: then the app is only waited on to be idle
    (:func:`wait_for_run` waited its 20 s grace for a run there)."""

    def shown(url: str) -> bool:
        return url.rstrip("/").endswith(f"/{spec.url_path}".rstrip("/"))

    already = urllib.parse.urlsplit(page.url).path.strip("/") == spec.url_path
    watch_runs(page)
    sidebar_link(page, spec.title).click()
    page.wait_for_url(shown)
    if already:
        wait_until_idle(page, timeout_s)
    else:
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
    page: Page,
    counter: RunCounter,
    finished_before: int,
    timeout_s: float = PAGE_TIMEOUT_S,
    recheck: bool = True,
) -> None:
    """Wait until ``counter`` has seen a run finish after ``finished_before`` (its count when
    the click or edit was made) and the app is idle again. Raises Playwright's
    ``TimeoutError`` when that takes longer than ``timeout_s``. ``recheck=False`` takes the
    first look at the idle app only (:func:`wait_for_idle_state`): a caller waiting on several
    tabs pauses once for all of them, then looks again (as :func:`wait_until_all_idle`)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    deadline = time.monotonic() + timeout_s
    while counter.finished <= finished_before:
        if time.monotonic() > deadline:
            raise PlaywrightTimeoutError(
                f"no script run finished within {timeout_s:.0f} s ({counter.finished} so far)"
            )
        page.wait_for_timeout(100)  # also lets Playwright deliver the websocket frames
    left = max(deadline - time.monotonic(), 1.0)
    if recheck:
        wait_until_idle(page, left)
    else:
        wait_for_idle_state(page, left)
