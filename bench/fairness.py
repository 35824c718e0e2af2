"""The soak's heavy-and-light case: two visitors' heavy requests never make a third visitor's
small one wait (issue 23, finding 2).

``python -m bench.fairness [--timeout S]`` starts the server and three browser sessions: session 0
uploads 20,000 vectors (float16, 384 dimensions: 15 MB, under the 20 MB limit) for a t-SNE
map; session 1 pastes 5,000 lines of 40 words (the row limit: a forward pass over about
80,000 tokens) and asks for Layers in motion with UMAP (capped at
:data:`explorer.server.limits.MAX_MOTION_POINTS` points). :data:`HOLD_S` seconds later, while both
run, session 2 asks Similarity for three short sentences (the page needs at least three).
The light request must be answered within :data:`LIGHT_LIMIT_S`. Printed: the seconds of each
request from its action to the end of its run, any error on the page, and the load average
(these machines are shared).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.soak_steps import Session, goto, lines, type_into
from bench.soak_walk import STEP_TIMEOUT_S, finish, open_sessions
from harness.browser import browser_unavailable, chromium
from harness.server import artifacts_dir, streamlit_server
from harness.widgets import widget

LIGHT_LIMIT_S = 5.0
"""Longest wait for the light request (issue 23: "within 5 s")."""
HOLD_S = 10.0
"""Seconds between the heavy requests and the light one: both heavy ones are computing."""
VECTORS = 20_000
DIMENSIONS = 384
LIGHT_SENTENCES = "The cat sat on the mat.\nA dog slept by the door.\nIt rained all day."


def vector_files(folder: Path, rows: int = VECTORS, seed: int = 0) -> tuple[Path, Path]:
    """A ``.npy`` of ``rows`` random float16 vectors and the CSV of their texts and labels."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(8, DIMENSIONS))
    labels = rng.integers(0, 8, size=rows)
    vectors = (centres[labels] + rng.normal(scale=0.8, size=(rows, DIMENSIONS))).astype(np.float16)
    npy, csv = folder / f"vectors-{seed}.npy", folder / f"vectors-{seed}.csv"
    np.save(npy, vectors)
    csv.write_text(
        "text,label\n" + "".join(f"Vector {i},group {g}\n" for i, g in enumerate(labels)),
        encoding="utf-8",
    )
    return npy, csv


def upload_vectors(session: Session, url: str, rng: random.Random) -> None:
    """Upload :func:`vector_files` on the Projections page (its t-SNE starts once both are in)."""
    npy, csv = vector_files(session.folder)
    widget(session.page, "projections.vectors").locator('input[type="file"]').set_input_files(
        str(npy)
    )
    texts = widget(session.page, "projections.vector_texts").locator('input[type="file"]')
    texts.wait_for(state="attached", timeout=120_000)
    texts.set_input_files(str(csv))


HEAVY = (
    (
        goto(
            "projections", **{"projections.source": "Upload vectors", "projections.method": "t-SNE"}
        ),
        upload_vectors,
        "t-SNE of 20,000 uploaded vectors",
    ),
    (
        goto(
            "projections",
            **{
                "projections.source": "Paste lines",
                "projections.method": "UMAP",
                "projections.view": "Layers in motion",
            },
        ),
        type_into("projections.lines", lambda r: lines(r, 5000, 40)),
        "Layers in motion, UMAP, 5,000 pasted lines",
    ),
)
LIGHT = (
    goto("similarity"),
    type_into("similarity.text", lambda r: LIGHT_SENTENCES),
    "Similarity, three short sentences",
)


def _start(session: Session, start, url: str) -> None:
    session.before = session.counter.finished
    session.started = time.monotonic()
    start(session, url, random.Random(session.index))


def heavy_and_light(sessions: list[Session], url: str, timeout_s: float) -> dict:
    """Run the case in three open sessions; returns ``{"light": s, "heavy": [s, s], ...}``
    (seconds or None when timed out) and prints a table."""
    from harness.visits import page_problems, wait_until_idle

    assert len(sessions) >= 3, "the case needs three sessions"
    requests = [*HEAVY, LIGHT]
    for session, (opening, _, _) in zip(sessions, requests, strict=False):
        opening(session, url, random.Random(0))  # each page opened first, and idle
    for session in sessions[:3]:
        wait_until_idle(session.page, 180)
    load = os.getloadavg()
    for session, (_, start, _) in zip(sessions[:2], HEAVY, strict=True):
        _start(session, start, url)
    time.sleep(HOLD_S)
    light = sessions[2]
    _start(light, LIGHT[1], url)
    light_s = finish([light], timeout_s)[light.index]
    heavy_s = finish(sessions[:2], timeout_s)
    result = {
        "load_at_start": load,
        "light": light_s,
        "heavy": [heavy_s[s.index] for s in sessions[:2]],
        "errors": {
            name: page_problems(s.page)
            for s, (_, _, name) in zip(sessions[:3], requests, strict=True)
        },
    }
    print(f"\n== heavy and light: load average at start {' '.join(f'{x:.2f}' for x in load)} ==")
    for seconds, (_, _, name) in zip([*result["heavy"], light_s], requests, strict=True):
        shown = "timed out" if seconds is None else f"{seconds:6.1f} s"
        print(f"{name:48} {shown}  {'; '.join(result['errors'][name])[:200]}")
    verdict = light_s is not None and light_s <= LIGHT_LIMIT_S
    print(
        f"light request {'within' if verdict else 'OVER'} {LIGHT_LIMIT_S:g} s; load average "
        f"at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    result["ok"] = verdict
    return result


def fairness(timeout_s: float) -> int:
    """:func:`heavy_and_light` on a fresh server; 0 when the light request was answered in
    time."""
    log = artifacts_dir() / "soak-fairness-server.log"
    with (
        tempfile.TemporaryDirectory() as folder,
        chromium() as browser,
        streamlit_server(log) as url,
        contextlib.ExitStack() as stack,
    ):
        result = heavy_and_light(
            open_sessions(stack, browser, url, 3, Path(folder)), url, timeout_s
        )
    out = artifacts_dir() / "soak-fairness.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"written {out}; server log {log}")
    return 0 if result["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.fairness", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--timeout", type=float, default=STEP_TIMEOUT_S, help="seconds per step")
    args = parser.parse_args(argv)
    reason = browser_unavailable()
    if reason:
        print(f"cannot run: {reason}")
        return 2
    return fairness(args.timeout)


if __name__ == "__main__":
    raise SystemExit(main())
