"""The server's own clock for script runs, for browser benches (:mod:`bench.bigmap`).

A browser bench cannot time the server from the page: Chromium reports websocket frames (to
the page and to Playwright alike) from the renderer's main thread, so while the page is busy
drawing a 20,000-point map, the frames that end a run are seen up to a second late, and that
second looked like server time. Measured on a colour switch of the 20,000-point map: "server"
1.0 s by the frames, 0.1 s of server CPU, and a server thread that was running for 0.12 s
(py-spy).

So the server under test times its own runs: :func:`server_env` gives it a folder holding a
``sitecustomize`` module (Python imports it at start-up) that wraps Streamlit's
``ScriptRunner._run_script`` and appends each run's start and end (``time.monotonic()``, the
system's monotonic clock, the same in every process of the machine) to a log file;
:func:`runs_since` reads them. Nothing of this is in the app: only a bench's server has the
folder on its ``PYTHONPATH``.
"""

from __future__ import annotations

import os
from pathlib import Path

LOG_VARIABLE = "EXPLORER_BENCH_RUN_LOG"

ROOT = Path(__file__).resolve().parents[1]
"""The repository, on the server's path so that ``sitecustomize`` imports Streamlit's private
runner through :mod:`explorer.ui._streamlit_runtime`."""

SITECUSTOMIZE = f'''"""Bench only (bench/runclock.py): log each script run's start and end."""
import os
import time

_LOG = os.environ.get("{LOG_VARIABLE}")
if _LOG:
    from explorer.ui._streamlit_runtime import ScriptRunner as _Runner

    _run = _Runner._run_script

    def _timed_run(self, rerun_data):
        start = time.monotonic()
        try:
            return _run(self, rerun_data)
        finally:
            with open(_LOG, "a") as log:
                log.write(f"{{start}} {{time.monotonic()}}\\n")

    _Runner._run_script = _timed_run
'''


def server_env(folder: Path) -> dict[str, str]:
    """Variables for :func:`harness.server.streamlit_server` (``env=``): the server logs its runs
    to ``folder/runs.log``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    paths = (str(folder), str(ROOT), os.environ.get("PYTHONPATH", ""))  # ROOT: explorer.ui
    path = os.pathsep.join(p for p in paths if p)
    return {"PYTHONPATH": path, LOG_VARIABLE: str(folder / "runs.log")}


def runs_since(folder: Path, since: float) -> list[tuple[float, float]]:
    """The runs (start, end) that started at or after ``since`` (``time.monotonic()``)."""
    log = folder / "runs.log"
    if not log.exists():
        return []
    found = []
    for line in log.read_text().splitlines():
        start, end = map(float, line.split())
        if start >= since:
            found.append((start, end))
    return found
