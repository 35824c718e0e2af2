"""Benchmarks of the app: server start-up, and a rerun of the projections page.

Start-up launches ``streamlit run app.py`` on a free port and times, from the
launch, the health check, the page HTML and (when Playwright and Chromium are available)
the home page's title rendered in a real browser, which includes running app.py and
loading the model. The rerun uses Streamlit's ``AppTest`` in this process.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tools.screenshots import browser_unavailable, chromium, free_port

ROOT = Path(__file__).resolve().parents[1]
HOME_TITLE = "Contextual Embedding Explorer"


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError):
        return 0, ""


def _wait_for(check, deadline: float, interval: float = 0.05) -> bool:
    while time.perf_counter() < deadline:
        if check():
            return True
        time.sleep(interval)
    return False


def startup(browser: bool = True, timeout: float = 180.0) -> dict:
    """Seconds from ``streamlit run app.py`` to health, HTML and (optionally) a rendered page."""
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    base = f"http://127.0.0.1:{port}"
    start = time.perf_counter()
    deadline = start + timeout
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    result: dict = {"port": port}
    try:
        if not _wait_for(lambda: _get(f"{base}/_stcore/health")[0] == 200, deadline):
            raise ValueError(f"streamlit did not answer on port {port} within {timeout:.0f} s.")
        result["health_seconds"] = time.perf_counter() - start
        status, html = _get(f"{base}/")
        result["html_seconds"] = time.perf_counter() - start
        result["html_ok"] = status == 200 and "<html" in html.lower()
        if browser and browser_unavailable() is None:
            result["page_seconds"] = _render_seconds(base, start, deadline)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return result


def _render_seconds(url: str, start: float, deadline: float) -> float:
    """Seconds from ``start`` until the home page title is visible in Chromium."""
    with chromium() as browser:
        page = browser.new_page()
        page.goto(url)
        timeout_ms = max(1.0, deadline - time.perf_counter()) * 1000
        page.get_by_text(HOME_TITLE, exact=True).first.wait_for(timeout=timeout_ms)
        return time.perf_counter() - start


def projections_rerun(n_texts: int, timeout: float = 600.0) -> dict:
    """AppTest of the projections page on ``n_texts`` pasted sentences.

    The first run embeds the corpus and projects it (PCA). The timed reruns start once
    app.py's background UMAP warm-up has finished (it runs once per server process, holds
    the GIL while numba loads or compiles, and slowed reruns during it by up to 2x). Each
    switch of the pooling to ``max``, ``cls``, ``max`` projects cached vectors (no forward
    pass; the projection cache is cleared before each, so every one is a new PCA) and
    ``switch_seconds`` is their median; switching back to ``mean`` hits every cache.
    """
    from streamlit.testing.v1 import AppTest

    from bench.sentences import sample_sentences

    texts, _ = sample_sentences(n_texts)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout).run()
    at.switch_page("pages/projections.py").run()
    at.radio(key="projections.source").set_value("paste").run()
    start = time.perf_counter()
    at.text_area(key="projections.lines").input("\n".join(texts)).run()
    result = {"texts": n_texts, "first_run_seconds": time.perf_counter() - start}
    from explorer.server.warmup import warm_up_status, warm_up_umap
    from explorer.ui.compute import BUDGETS

    warm_up_umap().join(timeout=timeout)
    result["umap_warm_up_seconds"] = warm_up_status()["seconds"]
    switches = []
    for pooling in ("max", "cls", "max"):
        BUDGETS["projections"].clear()
        start = time.perf_counter()
        at.selectbox(key="projections.pooling").set_value(pooling).run()
        switches.append(time.perf_counter() - start)
    result["switches_seconds"] = switches
    result["switch_seconds"] = statistics.median(switches)
    at.selectbox(key="projections.pooling").set_value("mean").run()  # its projection again
    at.selectbox(key="projections.pooling").set_value("max").run()
    start = time.perf_counter()
    at.selectbox(key="projections.pooling").set_value("mean").run()
    result["back_seconds"] = time.perf_counter() - start
    result["exceptions"] = [e.message for e in at.exception]
    result["points_shown"] = at.metric[0].value if len(at.metric) else None
    return result
