"""``explorer project`` on large stores (issue 38, finding 4):
``python -m bench.project_rows [--rows 20000,100000] [--runs pca:0,pca,umap] [--timeout S]``.

For each size, a synthetic store (``bench.store.synthetic_store``: 384 float32 dims, 20
Gaussian clusters) is built, then each run is ``python -m explorer project`` in a fresh
process: ``METHOD:0`` fits on every row (``--fit-sample 0``), ``METHOD`` alone uses the default
(a fit on 50,000 random rows and ``transform`` for the rest, above 50,000 rows),
``METHOD:N`` fits on N. Each prints one JSON line: wall seconds, CPU seconds (all
threads': on a loaded machine the fairer measure), the peak RSS of that process
(``ru_maxrss``), the trustworthiness saved, and the load average at its start (the machine
is shared). A run past ``--timeout`` seconds is stopped and reported as such.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.store import synthetic_store

ROOT = Path(__file__).resolve().parents[1]


def child(store: str, method: str, fit_sample: str) -> dict:
    """In this (fresh) process: ``explorer project`` of ``store``; seconds and peak RSS."""
    from explorer.cli import main

    argv = ["project", store, "--method", method]
    if fit_sample:
        argv += ["--fit-sample", fit_sample]
    start, cpu = time.perf_counter(), time.process_time()
    code = main(argv)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    usage = resource.getrusage(resource.RUSAGE_SELF)
    manifest = json.loads((Path(store) / "manifest.json").read_text())
    entry = next(p for p in manifest["projections"] if p["method"] == method)
    return {
        "code": code,
        "seconds": seconds,
        "cpu_s": cpu,  # every thread's, from the command's start (its imports included)
        "peak_rss_mb": usage.ru_maxrss / 1024,
        "trustworthiness": entry["trustworthiness"],
        "fit_sample": entry.get("fit_sample"),
    }


def phases(fit: int, place: int, method: str = "umap") -> dict:
    """In this process: wall and CPU seconds of a :class:`SampleFit` on ``fit`` rows and of
    placing ``place`` more, twice (the first call of each compiles numba code)."""
    import numpy as np

    from explorer.data.store.placing import SampleFit

    rng = np.random.default_rng(0)
    centres = rng.standard_normal((20, 384)).astype(np.float32)
    X = centres[rng.integers(20, size=fit + place)] + rng.standard_normal(
        (fit + place, 384), dtype=np.float32
    ) * np.float32(1 / np.sqrt(384))
    out = {"fit_rows": fit, "placed_rows": place, "load": round(os.getloadavg()[0], 1)}
    clock = time.perf_counter(), time.process_time()
    model = SampleFit(method, X[:fit], 0)
    out["fit_s"], out["fit_cpu_s"] = time.perf_counter() - clock[0], time.process_time() - clock[1]
    for name in ("place_first", "place_again"):
        clock = time.perf_counter(), time.process_time()
        model.place(X[fit:])
        out[f"{name}_s"] = time.perf_counter() - clock[0]
        out[f"{name}_cpu_s"] = time.process_time() - clock[1]
    return out


def run(store: Path, rows: int, spec: str, timeout: float) -> dict:
    method, _, fit_sample = spec.partition(":")
    load = os.getloadavg()[0]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bench.project_rows", "--child", str(store), method, fit_sample],
            cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1"}, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"rows": rows, "run": spec, "timeout_s": timeout, "load": load}
    if done.returncode != 0:  # e.g. stopped by hand when its memory kept growing
        return {"rows": rows, "run": spec, "load": round(load, 1), "exit": done.returncode}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {"rows": rows, "run": spec, "load": round(load, 1), **result}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.project_rows")
    parser.add_argument("--rows", default="20000,100000,250000")
    parser.add_argument("--runs", default="pca:0,pca,umap")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--phases", help="FIT,PLACE: time a UMAP fit and its transform alone")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phases:
        print(json.dumps(phases(*map(int, args.phases.split(",")))))
        return 0
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    results = []
    for rows in map(int, args.rows.split(",")):
        work = Path(tempfile.mkdtemp(prefix="bench-project-"))
        try:
            start = time.perf_counter()
            synthetic_store(work / "s", rows, clusters=20)
            print(json.dumps({"rows": rows, "build_s": time.perf_counter() - start}), flush=True)
            for spec in args.runs.split(","):
                results.append(run(work / "s", rows, spec, args.timeout))
                print(json.dumps(results[-1]), flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
