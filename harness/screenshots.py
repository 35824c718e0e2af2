"""Start the app, open every page from the sidebar in Chromium, save a screenshot of each.

Usage (from the repository)::

    HF_HUB_OFFLINE=1 .venv/bin/python -m harness.screenshots --out DIR
    HF_HUB_OFFLINE=1 .venv/bin/python -m harness.screenshots --out docs/images \\
        --size 1400x1000 --window --pages context,projections
    HF_HUB_OFFLINE=1 .venv/bin/python -m harness.screenshots --out DIR --present

It prints one line per page (time, screenshot, problems seen) and exits with 1 when a page
showed an exception box or an ``st.error``, or never rendered its chart, table or links. By
default each shot is the whole page; ``--window`` keeps what a window of ``--size`` shows, and
``--chart`` scrolls the page's first chart or table to the window's middle first (the
README's images: ``--size 1400x1000 --window``, with ``--chart`` for Word in context and
Projections). ``--present`` shoots each page in presentation mode: the page's link with
``present=true`` opened after the visit (the sidebar folded away, as a shared link opens).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from harness.browser import VIEWPORT, Tab, browser_unavailable, chromium, open_tab
from harness.server import ServerError, streamlit_server
from harness.visits import (
    CHART_OR_TABLE,
    MAIN,
    PAGE_TIMEOUT_S,
    PAGES,
    PageSpec,
    failure_report,
    page_problems,
    save_full_page,
    visit,
    wait_until_idle,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page


def window_size(text: str) -> dict[str, int]:
    """``"1400x1000"`` as a Playwright viewport ``{"width": 1400, "height": 1000}``."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT, e.g. 1400x1000") from None
    if width < 200 or height < 200:
        raise argparse.ArgumentTypeError(f"{text!r} is too small: at least 200x200")
    return {"width": width, "height": height}


def save_window(page: Page, path: Path, chart: bool) -> None:
    """Screenshot what the window shows; with ``chart``, the page's first chart or table
    scrolled to the window's middle first."""
    if chart:
        found = page.locator(MAIN).locator(CHART_OR_TABLE).first
        found.evaluate("element => element.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(500)  # let plotly draw what came into view
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), animations="disabled")


def present(tab: Tab, spec: PageSpec, path: Path | None, timeout_s: float) -> list[str]:
    """Open the page's current link in presentation mode (``present=true`` added), wait for
    its run and ``spec.expect``, save a whole-page shot to ``path`` (unless None); return the
    problems seen (as :func:`harness.visits.visit` does)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    from explorer.ui.presentation import KEY

    url = tab.page.url
    tab.page.goto(url + ("&" if "?" in url else "?") + f"{KEY}=true")
    problems = []
    try:
        tab.page.locator(MAIN).locator(spec.expect).first.wait_for(timeout=timeout_s * 1000)
        wait_until_idle(tab.page, timeout_s)
    except PlaywrightTimeoutError as error:
        problems.append(f"timed out: {error.message.splitlines()[0]}")
    if path is not None:
        save_full_page(tab.page, path)
    return problems + page_problems(tab.page)


def main(argv: list[str] | None = None) -> int:
    """Save ``<out>/<page>.png`` for every page; return 1 when a page had problems."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the PNG files")
    parser.add_argument(
        "--timeout", type=float, default=PAGE_TIMEOUT_S, help="seconds to wait for each page"
    )
    parser.add_argument(
        "--size",
        type=window_size,
        default=VIEWPORT,
        help=f"the window, WIDTHxHEIGHT (default {VIEWPORT['width']}x{VIEWPORT['height']})",
    )
    parser.add_argument("--window", action="store_true", help="shoot the window, not the page")
    parser.add_argument(
        "--chart", action="store_true", help="with --window: the first chart in the middle"
    )
    parser.add_argument(
        "--present", action="store_true", help="in presentation mode (the link's ?present=true)"
    )
    names = [spec.name for spec in PAGES]
    parser.add_argument("--pages", help=f"comma-separated, from {', '.join(names)} (default: all)")
    args = parser.parse_args(argv)
    chosen = [n.strip() for n in (args.pages or ",".join(names)).split(",") if n.strip()]
    unknown = sorted(set(chosen) - set(names))
    if unknown:
        parser.error(f"unknown page(s) {unknown}; choose from {names}")
    specs = [spec for spec in PAGES if spec.name in chosen]
    reason = browser_unavailable()
    if reason:
        print(f"cannot take screenshots: {reason}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    server_log = args.out / "streamlit-server.log"
    failed = 0
    try:
        with streamlit_server(server_log) as base_url, chromium() as browser:
            for spec in specs:
                start = time.monotonic()
                path = args.out / f"{spec.name}.png"
                with open_tab(browser, args.size) as tab:
                    shot = None if args.window else path
                    first = None if args.present else shot  # --present: the second visit's
                    problems = visit(tab, base_url, spec, first, args.timeout)
                    if args.present and not problems:
                        problems = present(tab, spec, shot, args.timeout)
                    if args.window and not problems:
                        save_window(tab.page, path, args.chart)
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
    print(f"{len(specs) - failed}/{len(specs)} pages fine; server log: {server_log}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
