"""Run the benchmarks: ``python -m bench [--quick] [--only NAME[,NAME]] [--rounds N]``.

The registry: :data:`MEASURE` names every measurement and the function in its subject's module
that runs it (``throughput``, ``gflops``, ``memory``: :mod:`bench.embedding_rows`;
``projections``, ``tsne``: :mod:`bench.projections`; ``app``; ``neighbors``; ``attention``;
``animation``; ``store``; ``everyrow``, Chromium on a saved map of every row:
:mod:`bench.everyrow`). ``--quick`` runs the first five at tiny sizes (the CI smoke test).
Prints a table of results against the targets of the issues, then one line of JSON with every
number (the last line of the output). Nothing imports this module but ``python -m bench``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable

from bench import (
    animation,
    app,
    attention,
    embedding_rows,
    everyrow,
    neighbors,
    projections,
    store,
)
from bench.measure import FULL, QUICK, Row, Sizes, table

MEASURE: dict[str, Callable[[Sizes], tuple[dict, list[Row]]]] = {
    "throughput": embedding_rows.measure_throughput,
    "gflops": embedding_rows.measure_gflops,
    "memory": embedding_rows.measure_memory,
    "projections": projections.measure_projections,
    "app": app.measure_app,
    "neighbors": neighbors.measure_neighbors,
    "attention": attention.measure_attention,
    "tsne": projections.measure_tsne,
    "animation": animation.measure_animation,
    "store": store.measure_store,
    "everyrow": everyrow.measure_everyrow,
}
"""Every measurement by its ``--only`` name, in the order a full run takes them."""
QUICK_MEASUREMENTS = ("throughput", "gflops", "memory", "projections", "app")
"""What ``--quick`` runs by default (the CI smoke test); the rest are full-size only."""
MEASUREMENTS = tuple(MEASURE)


def machine() -> dict:
    """CPU, thread count and library versions, for the record."""
    import torch

    from bench.embedding import bfloat16_supported

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    versions = {}
    for package in ("torch", "transformers", "sentence_transformers", "umap", "sklearn"):
        try:
            versions[package] = __import__(package).__version__
        except ImportError:
            versions[package] = None
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "bfloat16": bfloat16_supported(),
        "python": platform.python_version(),
        "load_average_at_start": load,
        **versions,
    }


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    parser.add_argument(
        "--only",
        default=None,
        help=f"comma-separated measurements to run, from {', '.join(MEASUREMENTS)} (default: "
        "all; with --quick, the first five)",
    )
    parser.add_argument("--rounds", type=int, help="A/B rounds for the timed comparisons")
    parser.add_argument("--texts", type=int, help="sentences for throughput, GFLOP/s and app")
    args = parser.parse_args(argv)
    default = QUICK_MEASUREMENTS if args.quick else MEASUREMENTS
    args.only = [n.strip() for n in (args.only or ",".join(default)).split(",") if n.strip()]
    unknown = sorted(set(args.only) - set(MEASUREMENTS))
    if unknown:
        parser.error(f"unknown measurement(s) {unknown}; choose from {MEASUREMENTS}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the chosen measurements; 0 when they all ran (met or not), 1 if one failed."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args = parse(argv)
    sizes = QUICK if args.quick else FULL
    if args.rounds or args.texts:
        sizes = Sizes(
            **{
                **sizes.__dict__,
                "rounds": args.rounds or sizes.rounds,
                "texts": args.texts or sizes.texts,
            }
        )
    started = time.perf_counter()
    report: dict = {"quick": args.quick, "machine": machine(), "results": {}, "errors": {}}
    rows: list[Row] = []
    for name in args.only:
        print(f"[bench] {name}…", file=sys.stderr, flush=True)
        begin = time.perf_counter()
        try:
            data, new_rows = MEASURE[name](sizes)
        except Exception as error:  # noqa: BLE001 - report it and run the other measurements
            report["errors"][name] = f"{type(error).__name__}: {error}"
            rows.append(Row(name, f"FAILED: {type(error).__name__}: {error}"))
            continue
        data["bench_seconds"] = time.perf_counter() - begin
        report["results"][name] = data
        rows.extend(new_rows)
    report["targets"] = {
        row.measure: {"value": row.value, "target": row.target, "met": row.met}
        for row in rows
        if row.met is not None
    }
    report["seconds"] = time.perf_counter() - started
    header = report["machine"]
    print(
        f"Benchmarks ({'quick' if args.quick else 'full'}) on {header['cpu']}, "
        f"{header['cores']} cores, torch {header['torch']}, {header['torch_threads']} threads, "
        f"load average {header['load_average_at_start']:.1f} at start; "
        f"{report['seconds']:.0f} s in all."
    )
    print()
    print(table(rows))
    print()
    print(json.dumps(report, default=float))
    return 1 if report["errors"] else 0
