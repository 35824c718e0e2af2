"""``explorer embed --engine ray`` vs ``--engine local`` on this machine:
``python -m bench.ray_engine [--texts 2000] [--rounds 2]``.

Both engines embed the same sentences into a store (bundled model, every layer, three
poolings, float32, on disk) with :func:`explorer.data.store.embed_to_store`, in turn (local, ray,
ray, local, ...) in one process, so a busy machine slows both alike. Ray is started once
before the rounds (``startup_s``); each ray round still starts its actors (a new process
per actor that imports torch and loads the model), which ``*_texts_per_second`` include.
``*_steady_texts_per_second`` are each engine's rate over its last three quarters of texts
(from the first progress report at or past a quarter, when every actor is running): what a
large corpus gets (one actor start per :data:`explorer.data.store.ray_engine.WINDOW_ROWS` texts).
Also checks that the two stores hold the same vectors (largest absolute difference over
every pooling, layer and text). Prints one JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.sentences import sample_sentences


def compare(a: Path, b: Path) -> float:
    """Largest absolute difference between the vectors of two stores (every array)."""
    from explorer.data.store import open_corpus

    first, second = open_corpus(a), open_corpus(b)
    worst = 0.0
    for pooling in first.poolings:
        diff = np.abs(first.per_layer(pooling) - second.per_layer(pooling)).max()
        worst = max(worst, float(diff))
    return worst


def run(
    n_texts: int, rounds: int, actors: int | None, threads: int, block_rows: int | None = None
) -> dict:
    from explorer.data.store import Settings, embed_to_store
    from explorer.data.store.ray_engine import BLOCK_ROWS, RayEngine
    from explorer.model import load_model

    texts, info = sample_sentences(n_texts)
    model = load_model()
    work = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    source = work / "in.txt"
    source.write_text("\n".join(texts) + "\n")
    engine = RayEngine(actors=actors, threads=threads, block_rows=block_rows or BLOCK_ROWS)
    start = time.perf_counter()
    engine.start()
    startup = time.perf_counter() - start
    seconds: dict[str, list[float]] = {"local": [], "ray": []}
    rates: dict[str, list[float]] = {"local": [], "ray": []}
    try:
        for round_ in range(rounds):
            order = ("local", "ray") if round_ % 2 == 0 else ("ray", "local")
            for name in order:
                mark: list[tuple[float, int]] = []

                def progress(state, mark=mark) -> None:
                    if not mark and state.rows >= n_texts // 4:
                        mark.append((time.perf_counter(), state.rows))

                start = time.perf_counter()
                embed_to_store(
                    model, source, work / f"{name}-{round_}", Settings(), progress=progress,
                    engine=engine if name == "ray" else "local",
                )  # fmt: skip
                end = time.perf_counter()
                seconds[name].append(end - start)
                rates[name].append((n_texts - mark[0][1]) / (end - mark[0][0]))
                print(f"round {round_} {name}: {seconds[name][-1]:.1f} s, last 3/4 at "
                      f"{rates[name][-1]:.0f} texts/s", flush=True)  # fmt: skip
        deviation = compare(work / "local-0", work / "ray-0")
    finally:
        engine.close()
        shutil.rmtree(work, ignore_errors=True)
    local = n_texts / statistics.median(seconds["local"])
    ray = n_texts / statistics.median(seconds["ray"])
    steady = {name: statistics.median(values) for name, values in rates.items()}
    return {
        "texts": n_texts,
        "distinct": info["distinct"],
        "rounds": rounds,
        "cpus": os.cpu_count(),
        "actors": engine.actors or max(1, engine.cluster_cpus() // threads),
        "threads_per_actor": threads,
        "block_rows": engine.block_rows,
        "startup_s": startup,
        "seconds": seconds,
        "local_texts_per_second": local,
        "ray_texts_per_second": ray,
        "local_steady_texts_per_second": steady["local"],
        "ray_steady_texts_per_second": steady["ray"],
        "ratio": ray / local,
        "steady_ratio": steady["ray"] / steady["local"],
        "max_abs_difference": deviation,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ray_engine")
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--actors", type=int, help="Ray actors (default: one per CPU)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per actor")
    parser.add_argument("--block-rows", type=int, help="texts per Ray block (default: BLOCK_ROWS)")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    result = run(args.texts, args.rounds, args.actors, args.threads, args.block_rows)
    print(
        f"local {result['local_texts_per_second']:.0f} texts/s (steady "
        f"{result['local_steady_texts_per_second']:.0f}), ray "
        f"{result['ray_texts_per_second']:.0f} texts/s (steady "
        f"{result['ray_steady_texts_per_second']:.0f}) on {result['actors']} actors: ratio "
        f"{result['ratio']:.2f}, steady {result['steady_ratio']:.2f}; max |difference| "
        f"{result['max_abs_difference']:.1e}; Ray started in {result['startup_s']:.1f} s",
        flush=True,
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
