"""What every measurement of ``python -m bench`` shares: how big to run (:class:`Sizes`), what
it hands back (rows of :class:`Row` for the table, with its data), and :func:`run_child` for
a measurement that needs a fresh process.

A measurement is a function ``measure_<name>(sizes) -> (data, rows)`` in the module of its
subject (:mod:`bench.embedding_rows`, :mod:`bench.projections`, :mod:`bench.app`,
:mod:`bench.neighbors`, :mod:`bench.attention`, :mod:`bench.animation`, :mod:`bench.store`);
:mod:`bench.run` lists them by name and runs them. Nothing here imports a measurement.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Sizes:
    """How big each measurement is: the issue's sizes, or tiny ones for ``--quick``."""

    texts: int = 2000
    rounds: int = 3
    matmul: int = 4096
    memory_texts: int = 20_000
    points: tuple[int, ...] = (2000, 10_000)
    methods: tuple[str, ...] = ("pca", "umap", "tsne")
    cache_experiment: bool = True
    browser: bool = True


FULL = Sizes()
QUICK = Sizes(
    texts=48,
    rounds=1,
    matmul=512,
    memory_texts=300,
    points=(120,),
    methods=("pca", "tsne"),
    cache_experiment=False,
    browser=False,
)


@dataclass
class Row:
    """One line of the table: what, the measured value, the target and whether it is met."""

    measure: str
    result: str
    target: str = ""
    met: bool | None = None
    value: float | None = None
    extra: dict = field(default_factory=dict)


def table(rows: list[Row]) -> str:
    """A Markdown table of the rows."""
    lines = ["| Measure | Result | Target | Met |", "|---|---|---|---|"]
    for row in rows:
        met = "" if row.met is None else ("yes" if row.met else "**no**")
        lines.append(f"| {row.measure} | {row.result} | {row.target} | {met} |")
    return "\n".join(lines)


def run_child(*args: str, env: dict[str, str] | None = None, timeout: float = 3600) -> dict:
    """Run ``python -m bench.child ARGS`` in a fresh process; its last stdout line as JSON."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.child", *args],
        cwd=ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"bench.child {' '.join(args)} failed:\n{tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])
