"""Run the benchmarks: ``python -m bench [--quick] [--only NAME[,NAME]] [--rounds N]``.

Measurements (names for ``--only``): ``throughput``, ``gflops``, ``memory``, ``projections``,
``app`` (also in ``--quick``), and ``neighbors``, ``attention``, ``tsne``, ``animation``,
``store`` (:mod:`bench.more`). Prints a table of results against the targets of the
issues, then one line of JSON with every number (the last line of the output).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench import more

ROOT = Path(__file__).resolve().parents[1]
QUICK_MEASUREMENTS = ("throughput", "gflops", "memory", "projections", "app")
"""What ``--quick`` runs by default (the CI smoke test); the rest are full-size only."""
MEASUREMENTS = (*QUICK_MEASUREMENTS, "neighbors", "attention", "tsne", "animation", "store")


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


def _check(value: float, limit: float, at_least: bool) -> bool:
    return value >= limit if at_least else value <= limit


# -- the measurements ------------------------------------------------------------------------


def measure_throughput(sizes: Sizes) -> tuple[dict, list[Row]]:
    from bench.embedding import throughput

    data = throughput(sizes.texts, sizes.rounds)
    speed = data["texts_per_second"]
    where = f"{data['texts']:,} sentences, {data['threads']} threads, median of {data['rounds']}"
    rows = [
        Row(
            "Throughput vs sentence-transformers, float32",
            f"{data['ratio']:.2f}x ({speed['explorer']:.0f} vs "
            f"{speed['sentence_transformers']:.0f} texts/s; {where})",
            ">= 1.2x",
            data["ratio"] >= 1.2,
            data["ratio"],
        )
    ]
    if data["bfloat16_supported"]:
        rows.append(
            Row(
                "Throughput vs sentence-transformers, bfloat16",
                f"{data['ratio_bf16']:.2f}x ({speed['explorer_bf16']:.0f} texts/s; "
                f"{data['bf16_speedup_vs_float32']:.2f}x our float32)",
                ">= 1.6x",
                data["ratio_bf16"] >= 1.6,
                data["ratio_bf16"],
            )
        )
        deviation = data["bf16_max_cosine_deviation"]
        rows.append(
            Row(
                "bfloat16: largest cosine deviation from float32",
                f"{deviation:.1e} (every pooling, layer and text)",
                "<= 1e-3",
                deviation <= 1e-3,
                deviation,
            )
        )
    else:
        rows.append(Row("Throughput, bfloat16", "skipped: no AVX512-BF16/AMX on this CPU"))
    rows.append(
        Row(
            "Same vectors as sentence-transformers",
            f"largest difference {data['max_abs_diff_vs_sentence_transformers']:.1e} "
            "(mean pooling, last layer, normalized)",
        )
    )
    return data, rows


def measure_gflops(sizes: Sizes) -> tuple[dict, list[Row]]:
    from bench.embedding import gflops

    data = gflops(sizes.texts, sizes.rounds, sizes.matmul)
    fraction = data["fraction_of_peak"]
    rows = [
        Row(
            "Forward pass GFLOP/s vs float32 torch.mm peak",
            f"{100 * fraction:.0f} % ({data['forward_gflops']:.0f} of "
            f"{data['peak_gflops']:.0f} GFLOP/s, {data['matmul_size']}^2 mm; "
            f"padding {100 * data['padding']:.1f} %; {data['workers']} workers)",
            ">= 70 %",
            fraction >= 0.70,
            fraction,
        )
    ]
    if "fraction_of_peak_bf16" in data:
        rows.append(
            Row(
                "Forward pass GFLOP/s, bfloat16 (information)",
                f"{data['forward_gflops_bf16']:.0f} GFLOP/s = "
                f"{100 * data['fraction_of_peak_bf16']:.0f} % of bfloat16 mm "
                f"({data['peak_gflops_bf16']:.0f})",
            )
        )
    return data, rows


def measure_memory(sizes: Sizes) -> tuple[dict, list[Row]]:
    data = run_child("memory", str(sizes.memory_texts))
    over = data["over_baseline_mb"]
    limit = 1.5 * 1024
    rows = [
        Row(
            f"Peak RSS embedding {data['texts']:,} sentences, every strategy kept",
            f"+{over:.0f} MB over the loaded model ({data['baseline_mb']:.0f} MB); pooled "
            f"arrays {data['pooled_mb']:.0f} MB; {data['texts'] / data['seconds']:.0f} texts/s",
            "<= 1.5 GB",
            over <= limit,
            over,
        )
    ]
    return data, rows


def measure_projections(sizes: Sizes) -> tuple[dict, list[Row]]:
    from bench.projections import embed_points

    rows: list[Row] = []
    data: dict = {"fits": []}
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        points = str(Path(tmp) / "points.npy")
        data["points"] = embed_points(max(sizes.points), points)
        numba = {"NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}
        if sizes.cache_experiment and "umap" in sizes.methods:
            n = str(min(sizes.points))
            runs = {
                "empty numba cache": run_child(
                    "projection", "umap", n, points, "--cold-only", env=numba
                ),
                "numba cache on disk": run_child(
                    "projection", "umap", n, points, "--cold-only", env=numba
                ),
                "cache on disk, umap-learn's own caching only": run_child(
                    "projection", "umap", n, points, "--cold-only", "--plain", env=numba
                ),
            }
            data["umap_first_call"] = {k: v["first"] for k, v in runs.items()}
            for what, run in runs.items():
                rows.append(
                    Row(
                        f"UMAP {int(n):,} points, first call in a new process, {what}",
                        f"{run['first']:.1f} s",
                    )
                )
        for method in sizes.methods:
            for n in sizes.points:
                fit = run_child("projection", method, str(n), points, env=numba)
                data["fits"].append(fit)
                label = {"pca": "PCA", "umap": "UMAP", "tsne": "t-SNE"}[method]
                row = Row(
                    f"{label} {n:,} points: first call (new process) / warm",
                    f"{fit['first']:.1f} s / {fit['warm']:.2f} s "
                    f"(trustworthiness {fit['trustworthiness_seconds']:.2f} s of it)",
                )
                if method == "umap" and n == 2000:
                    row.target, row.met, row.value = "warm <= 3 s", fit["warm"] <= 3, fit["warm"]
                rows.append(row)
    return data, rows


def measure_app(sizes: Sizes) -> tuple[dict, list[Row]]:
    from bench.app import projections_rerun, startup

    data = {"startup": startup(browser=sizes.browser)}
    up = data["startup"]
    shown = f"health {up['health_seconds']:.1f} s, HTML {up['html_seconds']:.1f} s"
    if up.get("page_seconds") is not None:
        shown += f", home page rendered in Chromium {up['page_seconds']:.1f} s"
    rows = [Row("streamlit run app.py to first page", shown)]
    rerun = projections_rerun(sizes.texts)
    data["rerun"] = rerun
    failed = f"; EXCEPTIONS: {rerun['exceptions']}" if rerun["exceptions"] else ""
    rows.append(
        Row(
            f"Projections page rerun after switching pooling ({rerun['texts']:,} cached texts)",
            f"{rerun['switch_seconds']:.2f} s (median of 3 new PCAs of cached vectors, "
            "after the server's one-off UMAP warm-up); back to a cached pooling "
            f"{rerun['back_seconds']:.2f} s; first run with embedding "
            f"{rerun['first_run_seconds']:.1f} s{failed}",
            "<= 0.3 s",
            rerun["switch_seconds"] <= 0.3 and not rerun["exceptions"],
            rerun["switch_seconds"],
        )
    )
    return data, rows


MEASURE: dict[str, Callable[[Sizes], tuple[dict, list[Row]]]] = {
    "throughput": measure_throughput,
    "gflops": measure_gflops,
    "memory": measure_memory,
    "projections": measure_projections,
    "app": measure_app,
    "neighbors": more.measure_neighbors,
    "attention": more.measure_attention,
    "tsne": more.measure_tsne,
    "animation": more.measure_animation,
    "store": more.measure_store,
}


# -- output ----------------------------------------------------------------------------------


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


def table(rows: list[Row]) -> str:
    """A Markdown table of the rows."""
    lines = ["| Measure | Result | Target | Met |", "|---|---|---|---|"]
    for row in rows:
        met = "" if row.met is None else ("yes" if row.met else "**no**")
        lines.append(f"| {row.measure} | {row.result} | {row.target} | {met} |")
    return "\n".join(lines)


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
