"""A class at once: N sessions open the same page's built-in example together, page after page.

``python -m bench.classroom [--sessions 30] [--model FOLDER] [--pages tokens,layers]
[--spread 3] [--prewarm]`` starts ``streamlit run app.py`` (:func:`tools.server.streamlit_server`)
with the run clock of :mod:`bench.runclock`, lets one "teacher" session open the home page
(the server's first visit, as before a lesson), then for every page of the app
(:data:`explorer.ui.pages.PAGES`, in menu order) opens ``--sessions`` new sessions and sends
each one's request for the page, with no input (its built-in example), all within
``--spread`` seconds. The next page starts when every session's run has ended.

Sessions are driven by :mod:`tools.stclient`, a websocket client speaking Streamlit's protocol,
not by Chromium: 30 Chromium pages beside the server do not fit 2 cores (see its docstring).

For every page it reports the seconds from each session's request to the end of its run (the
client's ``script_finished``), the durations of the server's script runs that started meanwhile
(the server's own clock, :mod:`bench.runclock`), median and max of each, failures (a run that
did not finish, an exception element or ``st.error`` box, a page not found), the server's
resident memory after the page and the load average. Every run must end within
:data:`LIMIT_S` of its request (issue 24, item 4): 10 s with the bundled model, 20 s with a
BERT-base-sized folder (``--model``, offered to the server in ``EXPLORER_MODELS`` and chosen
with the page link's ``?model=`` parameter, the label the model picker gives it).

``--prewarm`` starts the server with ``EXPLORER_PREWARM=1`` (:mod:`explorer.server.prewarm`) and
waits, after the teacher's visit, until the server's log says the built-in examples are
computed. Results go to ``artifacts/classroom.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import urllib.parse
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench import runclock
from explorer.model.hub import DEFAULT_MODEL
from explorer.server import settings
from explorer.server.prewarm import DONE_MARK, PREWARM_VARIABLE
from explorer.ui.pages import HOME, PAGES
from tools.server import artifacts_dir, log_tail, server_memory, streamlit_server
from tools.stclient import visit_together

LIMIT_S = {"bundled": 10.0, "folder": 20.0}
"""Longest request-to-end of any run (issue 24, item 4), with the bundled model / a folder."""
PREWARM_TIMEOUT_S = 900.0
MB = 2**20


def page_paths() -> dict[str, str]:
    """Every page of the app: its name on the command line -> its URL path ("" for home)."""
    return {Path(p.path).stem: "" if p is HOME else Path(p.path).stem for p in PAGES}


def model_query(folder: str | None) -> tuple[str, dict[str, str]]:
    """The query string that picks the model (``model=<label>``, "" for the bundled one) and
    the server's extra environment (``EXPLORER_MODELS``) for ``folder``."""
    if folder is None:
        return "", {}
    environ = {"EXPLORER_MODELS": folder}
    config = settings.from_environment(environ)
    source = next(c.source for c in config.models if c.source != DEFAULT_MODEL)
    return urllib.parse.urlencode({"model": config.label_of(source)}), environ


def spread(values: list[float]) -> tuple[float | None, float | None]:
    """Median and max, or Nones for no values."""
    return (statistics.median(values), max(values)) if values else (None, None)


@dataclass
class PageResult:
    page: str
    client_s: list[float] = field(default_factory=list)
    server_s: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    rss_mb: int = 0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    wall_s: float = 0.0

    def within(self, limit: float, sessions: int) -> bool:
        """Every session's run ended within ``limit`` of its request, with no failure."""
        return len(self.client_s) == sessions and not self.failures and max(self.client_s) <= limit


def run_page(url: str, clock: Path, page: str, path: str, query: str, args) -> PageResult:
    """``args.sessions`` new sessions open ``path`` together; their times and failures."""
    result = PageResult(page)
    start = time.monotonic()
    visits = visit_together(url, path, query, args.sessions, args.spread, args.timeout)
    result.wall_s = time.monotonic() - start
    for index, visit in enumerate(visits):
        if visit.seconds is not None:
            result.client_s.append(visit.seconds)
        problems = (
            ([] if visit.status == "finished" else [visit.status])
            + visit.exceptions
            + [f"st.error: {e}" for e in visit.errors]
            + (["page not found"] if visit.page_not_found else [])
        )
        result.failures += [f"session {index}: {p[:300]}" for p in problems]
    result.server_s = [end - begin for begin, end in runclock.runs_since(clock, start)]
    result.rss_mb = round(server_memory(url)["rss"] / MB)
    result.load = os.getloadavg()
    return result


def fmt(value: float | None) -> str:
    return "     -" if value is None else f"{value:6.2f}"


HEADER = (
    f"{'page':12} {'n':>3} {'client med':>10} {'max':>6} {'server med':>10} {'max':>6} "
    f"{'fail':>4} {'ok':>3} {'rss MB':>7} {'load 1/5/15':>15}"
)


def row(result: PageResult, limit: float, sessions: int) -> str:
    client, server = spread(result.client_s), spread(result.server_s)
    return (
        f"{result.page:12} {len(result.client_s):3} {fmt(client[0]):>10} {fmt(client[1])} "
        f"{fmt(server[0]):>10} {fmt(server[1])} {len(result.failures):4} "
        f"{'yes' if result.within(limit, sessions) else 'NO':>3} {result.rss_mb:7,} "
        f"{' '.join(f'{x:4.1f}' for x in result.load):>15}"
    )


def wait_for_prewarm(log: Path, timeout_s: float) -> float:
    """Seconds until the server's log says the prewarm is done; raises ``TimeoutError``."""
    start = time.monotonic()
    while DONE_MARK not in log_tail(log, 200):
        if time.monotonic() - start > timeout_s:
            raise TimeoutError(f"no {DONE_MARK!r} in the server log after {timeout_s:.0f} s")
        time.sleep(0.5)
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.classroom", description=__doc__.split("\n")[0]
    )
    paths = page_paths()
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--model", default=None, help="a model folder (BERT-base-sized...)")
    parser.add_argument(
        "--pages", default="", help=f"comma-separated subset of {','.join(paths)} (default all)"
    )
    parser.add_argument("--spread", type=float, default=3.0, help="seconds the requests span")
    parser.add_argument("--prewarm", action="store_true", help=f"{PREWARM_VARIABLE}=1")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run at most")
    args = parser.parse_args(argv)
    wanted = [p.strip() for p in args.pages.split(",") if p.strip()] or list(paths)
    unknown = [p for p in wanted if p not in paths]
    if unknown:
        parser.error(f"unknown page(s) {', '.join(unknown)}; choose among {', '.join(paths)}")
    query, env = model_query(args.model)
    if args.prewarm:  # the model the class uses: the folder (by its label) or the default
        env[PREWARM_VARIABLE] = urllib.parse.parse_qs(query)["model"][0] if query else "1"
    limit = LIMIT_S["folder" if args.model else "bundled"]
    log = artifacts_dir() / "classroom-server.log"
    load_start = os.getloadavg()
    results: list[PageResult] = []
    with tempfile.TemporaryDirectory() as folder:
        clock = Path(folder) / "clock"
        env.update(runclock.server_env(clock))
        with streamlit_server(log, env=env) as url:
            teacher = visit_together(url, "", query, 1, 0.0, args.timeout)[0]
            print(
                f"teacher's first visit (home{', ' + query if query else ''}): "
                f"{teacher.status}, {fmt(teacher.seconds).strip()} s",
                flush=True,
            )
            prewarm_s = wait_for_prewarm(log, PREWARM_TIMEOUT_S) if args.prewarm else None
            if prewarm_s is not None:
                print(f"prewarm done {prewarm_s:.1f} s after the teacher's visit", flush=True)
            print(
                f"\n{args.sessions} sessions a page, requests within {args.spread:g} s; "
                f"limit {limit:g} s\n{HEADER}",
                flush=True,
            )
            for page in wanted:
                results.append(run_page(url, clock, page, paths[page], query, args))
                print(row(results[-1], limit, args.sessions), flush=True)
                for failure in results[-1].failures[:3]:
                    print(f"    {failure}")
    met = all(r.within(limit, args.sessions) for r in results)
    print(
        f"\nmodel {args.model or 'bundled'}; prewarm {'on' if args.prewarm else 'off'}; load "
        f"average at start {' '.join(f'{x:.2f}' for x in load_start)}; every run within "
        f"{limit:g} s: {'yes' if met else 'NO'}"
    )
    summary = {
        "sessions": args.sessions,
        "spread_s": args.spread,
        "model": args.model or "bundled",
        "prewarm": args.prewarm,
        "limit_s": limit,
        "load_start": load_start,
        "teacher_s": teacher.seconds,
        "prewarm_s": prewarm_s,
        "met": met,
        "pages": [asdict(r) for r in results],
    }
    out = artifacts_dir() / "classroom.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"written {out}; server log {log}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
