"""Soak test: the largest input each page accepts, from several browser sessions at once.

``python -m bench.soak [--sessions 8] [--rounds 1] [--pages tokens,projections] [--solo]
[--model FOLDER | --models A,B,C] [--model-b FOLDER] [--query KEY=VALUE]`` (the heavy-and-light
case is
:mod:`bench.fairness`)
starts ``streamlit run app.py`` (:func:`harness.server.streamlit_server`), opens one Chromium tab
per session and walks every session through the same steps together: each step is started in
every tab before any is waited for, so the server runs them all at once. A step is one request
a visitor can make (:mod:`bench.soak_steps`; the timing and sampling are
:mod:`bench.soak_walk`'s): a page link with its bound parameters, a text
typed and applied, a radio or selectbox choice, a CSV uploaded. The inputs are the largest each
page accepts, different in every session and round, so no session profits from another's
cache and the caches fill up to their byte budgets. ``--model FOLDER`` offers that folder to
the server (``EXPLORER_MODELS``) and every page link picks it (``?model=``); the lens's steps
run when it has a masked-LM head (``python -m bench.model_folders`` writes BERT-base-sized and
BERT-large-sized ones). ``--models`` offers several folders and gives them to the sessions in
turn (session 1 the first, session 2 the second...): visitors picking different models of one
server. ``--model-b FOLDER`` offers that folder too and makes it model B of the Compare models
page (``?compare.model_b=``; without it, model A's random weights). ``--query`` adds a bound
parameter to every page link (``layers.cka_random=true``: the Layers page's CKA beside random
weights).

For every request it records the seconds from the action to the end of the script run it
started (the server's ``script_finished`` message, then an idle app), whether the page showed
an exception box or an ``st.error``, and whether a cap note ("Kept the first ...") appeared.
A thread samples the server's resident memory (with its children) every second. The table
printed at the end: page, mode, input, median and max seconds over sessions and rounds, errors;
then the RSS at the start, after each page and round, and its peak, and the load average.
``--solo`` first runs one session alone through the same steps (the 30 s figure is about one
request; the soak shows the plateau and that every session gets its answer).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import time
import urllib.parse
from pathlib import Path

from bench.soak_steps import PAGE_NAMES, steps_for
from bench.soak_walk import (
    HEADER,
    LIMIT_S,
    MB,
    STEP_TIMEOUT_S,
    MemorySampler,
    Record,
    fmt_row,
    open_sessions,
    walk,
)
from harness.browser import browser_unavailable, chromium
from harness.server import artifacts_dir, log_tail, server_memory, streamlit_server

RSS_LIMIT = 2 * 1024**3
"""The peak a shared demo is given (issue 24: 2 GB with BERT-base, 3 GB with BERT-large)."""


def model_query(folder: str | None) -> tuple[dict[str, str], dict[str, str]]:
    """The query every page link carries to pick ``folder``'s model (``{"model": label}``;
    empty for the bundled model) and the server's extra environment (``EXPLORER_MODELS``)."""
    from bench.classroom import model_query as query_string

    query, env = query_string(folder)
    return dict(urllib.parse.parse_qsl(query)), env


def models_query(folders: list[str], extra: dict[str, str]) -> tuple[list[dict[str, str]], dict]:
    """One query per folder of ``folders`` (``{"model": its label, **extra}``) and the server's
    extra environment offering them all (``EXPLORER_MODELS``)."""
    from explorer.server import settings

    environ = {"EXPLORER_MODELS": ",".join(folders)}
    config = settings.from_environment(environ)
    labels = [config.label_of(str(Path(f).expanduser())) for f in folders]
    return [{"model": label, **extra} for label in labels], environ


def has_head(folder: str | None) -> bool:
    """Whether the model in ``folder`` was saved with a masked-LM head (the bundled: no)."""
    if folder is None:
        return False
    from transformers import AutoConfig

    from explorer.model.loading import has_masked_lm_head

    return has_masked_lm_head(AutoConfig.from_pretrained(folder, local_files_only=True))


def with_model_b(
    query: dict[str, str] | list[dict[str, str]], env: dict[str, str], folder: str
) -> tuple[dict[str, str] | list[dict[str, str]], dict[str, str]]:
    """``query`` (one, or one per session) and the server's ``env`` with ``folder`` offered
    beside the models already there (``EXPLORER_MODELS``) and picked as the Compare models
    page's model B (``compare.model_b``: its label)."""
    from explorer.server import settings

    offered = [f for f in env.get("EXPLORER_MODELS", "").split(",") if f]
    environ = {**env, "EXPLORER_MODELS": ",".join([*offered, folder])}
    label = settings.from_environment(environ).label_of(str(Path(folder).expanduser()))
    if isinstance(query, list):
        return [{**q, "compare.model_b": label} for q in query], environ
    return {**query, "compare.model_b": label}, environ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--pages",
        default="",
        help=f"comma-separated subset, in this order, of {','.join(PAGE_NAMES)}",
    )
    parser.add_argument("--solo", action="store_true", help="first one session alone")
    parser.add_argument(
        "--model", default=None, help="a model folder to soak (BERT-base-sized...), not the bundled"
    )
    parser.add_argument(
        "--models", default="", help="comma-separated model folders, given to the sessions in turn"
    )
    parser.add_argument(
        "--model-b",
        default=None,
        help="a model folder for the Compare models page's model B (default: A's random weights)",
    )
    parser.add_argument(
        "--query", action="append", default=[], help="KEY=VALUE added to every page link"
    )
    parser.add_argument(
        "--rss-limit-gb", type=float, default=RSS_LIMIT / 2**30, help="the peak's budget"
    )
    parser.add_argument("--timeout", type=float, default=STEP_TIMEOUT_S, help="seconds per step")
    args = parser.parse_args(argv)
    reason = browser_unavailable()
    if reason:
        print(f"cannot run: {reason}")
        return 2
    extra = dict(pair.split("=", 1) for pair in args.query)
    folders = [f.strip() for f in args.models.split(",") if f.strip()]
    if folders:
        query, env = models_query(folders, extra)
    else:
        query, env = model_query(args.model)
        query.update(extra)
    if args.model_b:
        query, env = with_model_b(query, env, args.model_b)
    head = all(has_head(f) for f in folders) if folders else has_head(args.model)
    steps = steps_for([p.strip() for p in args.pages.split(",") if p.strip()], head)
    if not head:
        print("the model has no masked-LM head: the lens's steps are left out")
    log = artifacts_dir() / "soak-server.log"
    load_start = os.getloadavg()
    t0 = time.monotonic()
    results: dict[str, list[Record]] = {}
    memory: list[tuple[str, int, int]] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        chromium() as browser,
        streamlit_server(log, env=env) as url,
    ):
        sampler = MemorySampler(url)
        sampler.start()
        try:
            phases = ([("solo", 1, 1)] if args.solo else []) + [
                (f"soak x{args.sessions}", args.sessions, args.rounds)
            ]
            for label, n, rounds in phases:
                with contextlib.ExitStack() as stack:
                    sessions = open_sessions(stack, browser, url, n, Path(folder), query)
                    records, mem = walk(sessions, url, steps, rounds, sampler, label, args.timeout)
                    results[label], memory = records, memory + mem
        finally:
            sampler.done.set()
            sampler.join()
            hwm = server_memory(url)["hwm"]
    print(
        f"\nload average at start {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}; "
        f"at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"wall {time.monotonic() - t0:.0f} s"
    )
    for label, records in results.items():
        print(f"\n== {label}: seconds from action to the run's end ==\n{HEADER}")
        for record in records:
            print(fmt_row(record, with_errors=False))
    print("\n== server RSS (with children) ==")
    for where, rss, peak in memory:
        print(f"{where:50} {rss / MB:8,.0f} MB   peak so far {peak / MB:8,.0f} MB")
    peak, limit = sampler.peak, args.rss_limit_gb * 2**30
    print(
        f"peak RSS (1 s samples) {peak / MB:,.0f} MB; kernel high-water mark {hwm / MB:,.0f} MB; "
        f"limit {limit / MB:,.0f} MB: {'within' if peak <= limit else 'EXCEEDED'}"
    )
    slow = [
        f"{r.step.page} / {r.step.mode} / {r.step.size}: max {max(r.seconds, default=0):.1f} s"
        + (f", {r.timeouts} timed out" if r.timeouts else "")
        for records in results.values()
        for r in records
        if (r.seconds and max(r.seconds) > LIMIT_S) or r.timeouts
    ]
    print("over 30 s:", "; ".join(slow) if slow else "none")
    summary = {
        "model": args.models or args.model or "bundled",
        "model_b": args.model_b or "random weights",
        "load_start": load_start,
        "peak_rss_mb": round(peak / MB),
        "hwm_mb": round(hwm / MB),
        "rss_timeline": [(round(t), round(b / MB)) for t, b in sampler.samples[:: 10]],
        "steps": {
            label: [
                {"page": r.step.page, "mode": r.step.mode, "input": r.step.size,
                 "seconds": [round(s, 2) for s in r.seconds], "timeouts": r.timeouts,
                 "errors": r.errors[:5], "capped": r.capped}
                for r in records
            ]
            for label, records in results.items()
        },
    }  # fmt: skip
    out = artifacts_dir() / "soak.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"written {out}; server log {log}")
    if any(r.errors for records in results.values() for r in records):
        print("--- server log tail ---\n" + log_tail(log, 30))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
