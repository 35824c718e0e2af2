"""The app server for the harness: ``streamlit run app.py`` on a free loopback port.

:func:`streamlit_server` starts it and stops its whole process group; :func:`server_memory`
reads its resident memory (and its children's) from ``/proc``; :func:`log_tail` shows the end of
its log in error messages.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT_S = 90.0


def artifacts_dir() -> Path:
    """Screenshots and server log go here: ``$EXPLORER_ARTIFACTS`` or ``<repo>/artifacts``."""
    return Path(os.environ.get("EXPLORER_ARTIFACTS") or REPO / "artifacts")


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
    log_path: Path,
    app_dir: Path = REPO,
    timeout_s: float = STARTUP_TIMEOUT_S,
    env: Mapping[str, str] | None = None,
) -> Iterator[str]:
    """Run ``streamlit run app.py`` headless on a free loopback port; yield its base URL.

    The server's stdout and stderr go to ``log_path``. Raises :class:`ServerError` (with the
    log's tail) when it exits or does not answer ``/_stcore/health`` within ``timeout_s``.
    The server and its children are terminated on exit, also when the body raises. ``env``
    adds variables for the server only (for example ``EXPLORER_MODELS``): this process's own
    environment is left as it is.
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
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", **(env or {})}
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
    from ``/proc/<pid>/status``: ``rss`` (now), ``hwm`` (the peak so far), ``file`` (the
    part of ``rss`` that maps files, such as a store's memory-mapped vectors) and ``anon``
    (the process's own memory); from ``/proc/<pid>/smaps_rollup``, ``pss`` (shared pages
    divided among the processes mapping them) and ``uss`` (pages no other process maps), in
    bytes.

    Raises ``KeyError`` for a URL no running ``streamlit_server`` serves, ``OSError`` where
    there is no ``/proc``.
    """
    totals = {"rss": 0, "hwm": 0, "file": 0, "anon": 0, "pss": 0, "uss": 0}
    fields = {
        "status": (("rss", "VmRSS"), ("hwm", "VmHWM"), ("file", "RssFile"), ("anon", "RssAnon")),
        "smaps_rollup": (("pss", "Pss"), ("uss", "Private_Clean"), ("uss", "Private_Dirty")),
    }
    for pid in _process_tree(SERVER_PIDS[url]):
        for source, names in fields.items():
            try:
                text = Path(f"/proc/{pid}/{source}").read_text()
            except OSError:
                continue  # the process ended meanwhile
            for name, field_name in names:
                match = re.search(rf"^{field_name}:\s+(\d+) kB", text, re.MULTILINE)
                totals[name] += int(match.group(1)) * 1024 if match else 0
    return totals


def server_cpu(url: str) -> float:
    """CPU seconds (user + system) used so far by the :func:`streamlit_server` at ``url`` and
    its child processes, from ``/proc/<pid>/stat``. Raises ``KeyError`` like
    :func:`server_memory`."""
    ticks = 0
    for pid in _process_tree(SERVER_PIDS[url]):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return ticks / os.sysconf("SC_CLK_TCK")
