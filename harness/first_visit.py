"""Time the first visit of a fresh server: what the sidebar lists and when the page is usable.

Usage (from the repository)::

    HF_HUB_OFFLINE=1 .venv/bin/python -m harness.first_visit --path tokens --out DIR

It launches Chromium, then ``streamlit run app.py``, and opens ``/<path>`` as the server's very
first request. A script in the page records, from the browser's own clock, every change of the
sidebar's navigation labels and when the page's element (chart, table or page links) first
shows; screenshots are taken at the ``--shots`` offsets after the request. Times are printed in
seconds from the server's launch and from the request. It exits with 1 when the sidebar ever
listed anything but the router's titles (the legacy ``pages/`` names, e.g. ``app``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from harness.browser import chromium
from harness.server import REPO, ServerError, streamlit_server
from harness.visits import MAIN, PAGES, SIDEBAR_LINK, VIEWPORT

# Runs in the page before Streamlit's own scripts: logs label changes with wall-clock times.
RECORDER = """(() => {
    const log = window.__firstVisit = {nav: [], expected: null, selector: %r};
    let last = null;
    const check = () => {
        const labels = [...document.querySelectorAll(%r)].map(link => (
            link.querySelector('[data-testid="stMarkdownContainer"]') || link).innerText.trim());
        const key = JSON.stringify(labels);
        if (key !== last) { last = key; log.nav.push({t: Date.now(), labels}); }
        if (log.expected === null) {
            const main = document.querySelector(%r);
            const found = main && [...main.querySelectorAll(log.selector)]
                .some(element => element.getClientRects().length > 0);
            if (found) log.expected = Date.now();
        }
    };
    new MutationObserver(check).observe(document, {
        subtree: true, childList: true, characterData: true, attributes: true,
    });
})();"""


def first_visit(
    path: str, out: Path, shots: list[float], timeout_s: float, app_dir: Path = REPO
) -> dict:
    """Open ``/<path>`` as a fresh server's first request; return the timeline.

    Returns ``launch`` and ``request`` (wall-clock seconds), ``health`` (seconds from launch),
    ``nav`` (a list of ``(seconds from request, labels)``), ``expected`` (seconds from request
    until the page's element showed, ``None`` if never) and ``shots`` (screenshot paths).
    """
    spec = next((p for p in PAGES if p.url_path == path), None)
    if spec is None:
        raise ValueError(f"Unknown page {path!r}; choose one of {[p.url_path for p in PAGES]}")
    out.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.add_init_script(RECORDER % (spec.expect, SIDEBAR_LINK, MAIN))
        launch = time.time()
        with streamlit_server(out / "streamlit-server.log", app_dir) as url:
            health = time.time() - launch
            request = time.time()
            page.goto(f"{url}/{path}", wait_until="commit")
            taken = []
            for offset in sorted(shots):
                page.wait_for_timeout(max(0.0, request + offset - time.time()) * 1000)
                shot = out / f"{spec.name}-{offset:g}s.png"
                page.screenshot(path=str(shot))
                taken.append(shot)
            deadline = time.time() + timeout_s
            while time.time() < deadline:
                if page.evaluate("window.__firstVisit && window.__firstVisit.expected"):
                    break
                page.wait_for_timeout(100)
            page.wait_for_timeout(1000)  # a late label change would show up here
            log = page.evaluate("window.__firstVisit")
            final = out / f"{spec.name}-final.png"
            page.screenshot(path=str(final))
            taken.append(final)
        context.close()
    return {
        "launch": launch,
        "request": request,
        "health": health,
        "nav": [(entry["t"] / 1000 - request, entry["labels"]) for entry in log["nav"]],
        "expected": None if log["expected"] is None else log["expected"] / 1000 - request,
        "shots": taken,
    }


def main(argv: list[str] | None = None) -> int:
    """Print the first visit's timeline; 1 when the sidebar listed non-router labels."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default="", help="URL path of the first request ('' = home)")
    parser.add_argument("--out", type=Path, required=True, help="folder for screenshots and log")
    parser.add_argument("--shots", default="0.5,1,2", help="screenshot offsets in seconds")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--app-dir", type=Path, default=REPO, help="folder holding app.py")
    args = parser.parse_args(argv)
    shots = [float(s) for s in args.shots.split(",") if s.strip()]
    try:
        result = first_visit(args.path, args.out, shots, args.timeout, args.app_dir)
    except ServerError as error:
        print(error, file=sys.stderr)
        return 1
    titles = {spec.title for spec in PAGES}
    print(f"health {result['health']:.2f} s after launch; request /{args.path}")
    foreign = False
    for seconds, labels in result["nav"]:
        odd = [label for label in labels if label not in titles]
        foreign = foreign or bool(odd)
        note = f"  <- not the router's: {odd}" if odd else ""
        print(f"  {seconds:6.2f} s  sidebar {labels}{note}")
    expected = result["expected"]
    if expected is None:
        print("  page element shown: never")
    else:
        after_launch = result["request"] - result["launch"] + expected
        print(f"  page element shown: {expected:.2f} s ({after_launch:.2f} s after launch)")
    for shot in result["shots"]:
        print(f"  screenshot {shot}")
    return 1 if foreign or expected is None else 0


if __name__ == "__main__":
    sys.exit(main())
