"""Start the app, open every page from the sidebar in Chromium, save a full-page screenshot each.

Usage (from the repository)::

    HF_HUB_OFFLINE=1 .venv/bin/python -m tools.screenshots --out DIR

It prints one line per page (time, screenshot, problems seen) and exits with 1 when a page
showed an exception box or an ``st.error``, or never rendered its chart, table or links.

The browser tests (``tests/browser/``) use the same harness, one module per job:
:mod:`tools.server` (the app server, its log and memory), :mod:`tools.browser` (Chromium and
tabs), :mod:`tools.visits` (the pages, waits for script runs, screenshots) and
:mod:`tools.widgets` (typing, choosing, reading charts). Every name this module exported before
that split is still importable from here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tools.browser import (  # noqa: F401 (re-exported)
    CHROMIUM_ARGS,
    DEFAULT_CHROMIUM,
    VIEWPORT,
    Tab,
    browser_unavailable,
    chromium,
    chromium_path,
    open_tab,
)
from tools.server import (  # noqa: F401 (re-exported)
    ANSI_ESCAPE,
    REPO,
    SERVER_PIDS,
    STARTUP_TIMEOUT_S,
    ServerError,
    artifacts_dir,
    free_port,
    log_tail,
    server_memory,
    streamlit_server,
)
from tools.visits import (  # noqa: F401 (re-exported)
    APP_IS_IDLE,
    CHART_OR_TABLE,
    ERROR_ALERT,
    EXCEPTION,
    EXPECT_GRACE_S,
    MAIN,
    MAX_SCREENSHOT_HEIGHT,
    PAGE_LINK,
    PAGE_TIMEOUT_S,
    PAGES,
    RUN_SEEN_GRACE_S,
    SIDEBAR_LINK,
    WATCH_RUNS,
    PageSpec,
    RunCounter,
    failure_report,
    open_from_sidebar,
    open_home,
    page_problems,
    save_full_page,
    sidebar_link,
    sidebar_titles,
    visit,
    wait_for_run,
    wait_for_runs,
    wait_until_idle,
    watch_runs,
)
from tools.widgets import (  # noqa: F401 (re-exported)
    INJECTED_MARKUP,
    choose_option,
    choose_radio,
    injected_markup,
    metrics,
    plotly_traces,
    submit_text,
    type_text,
    upload_file,
    widget,
)


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
