"""``explorer embed --engine ray`` vs ``--engine local`` on this machine:
``python -m bench.ray_engine [--texts 2000] [--rounds 2]``.

Both engines embed the same sentences into a store (bundled model, every layer, three
poolings, float32, on disk) with :func:`explorer.store.embed_to_store`, in turn (local, ray,
ray, local, ...) in one process, so a busy machine slows both alike. Ray is started once
before the rounds (``startup_s``); each ray round still starts its actors (a new process
per actor that imports torch and loads the model), which ``ray_texts_per_second`` includes.
``actors_start_s`` times a ray embed of one text per actor (mostly that start-up), and
``ray_steady_texts_per_second`` leaves it out: texts / (ray round - actors_start_s), what a
large corpus (one actor start per :data:`explorer.store.ray_engine.WINDOW_ROWS` texts) gets.
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
    from explorer.store import open_corpus

    first, second = open_corpus(a), open_corpus(b)
    worst = 0.0
    for pooling in first.poolings:
        diff = np.abs(first.per_layer(pooling) - second.per_layer(pooling)).max()
        worst = max(worst, float(diff))
    return worst


def run(n_texts: int, rounds: int, actors: int | None, threads: int) -> dict:
    from explorer.model import load_model
    from explorer.store import Settings, embed_to_store
    from explorer.store.ray_engine import RayEngine

    texts, info = sample_sentences(n_texts)
    model = load_model()
    work = Path(tempfile.mkdtemp(prefix="bench-ray-"))
    source = work / "in.txt"
    source.write_text("\n".join(texts) + "\n")
    engine = RayEngine(actors=actors, threads=threads)
    start = time.perf_counter()
    engine.start()
    startup = time.perf_counter() - start
    seconds: dict[str, list[float]] = {"local": [], "ray": []}
    pool = engine.actors or max(1, engine.cluster_cpus() // engine.threads)
    tiny = work / "tiny.txt"
    tiny.write_text("\n".join(texts[:pool]) + "\n")
    try:
        with RayEngine(actors=pool, threads=threads, block_rows=1) as one_each:
            start = time.perf_counter()
            embed_to_store(model, tiny, work / "tiny", Settings(), engine=one_each)
            actors_start = time.perf_counter() - start
        print(f"actors start: {actors_start:.1f} s", flush=True)
        for round_ in range(rounds):
            order = ("local", "ray") if round_ % 2 == 0 else ("ray", "local")
            for name in order:
                start = time.perf_counter()
                embed_to_store(
                    model, source, work / f"{name}-{round_}", Settings(),
                    engine=engine if name == "ray" else "local",
                )  # fmt: skip
                seconds[name].append(time.perf_counter() - start)
                print(f"round {round_} {name}: {seconds[name][-1]:.1f} s", flush=True)
        deviation = compare(work / "local-0", work / "ray-0")
    finally:
        engine.close()
        shutil.rmtree(work, ignore_errors=True)
    local = n_texts / statistics.median(seconds["local"])
    ray = n_texts / statistics.median(seconds["ray"])
    steady = n_texts / max(statistics.median(seconds["ray"]) - actors_start, 1e-9)
    return {
        "texts": n_texts,
        "distinct": info["distinct"],
        "rounds": rounds,
        "cpus": os.cpu_count(),
        "actors": pool,
        "threads_per_actor": threads,
        "startup_s": startup,
        "actors_start_s": actors_start,
        "seconds": seconds,
        "local_texts_per_second": local,
        "ray_texts_per_second": ray,
        "ray_steady_texts_per_second": steady,
        "ratio": ray / local,
        "steady_ratio": steady / local,
        "max_abs_difference": deviation,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ray_engine")
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--actors", type=int, help="Ray actors (default: one per CPU)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per actor")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    result = run(args.texts, args.rounds, args.actors, args.threads)
    print(
        f"local {result['local_texts_per_second']:.0f} texts/s, ray "
        f"{result['ray_texts_per_second']:.0f} texts/s (steady "
        f"{result['ray_steady_texts_per_second']:.0f}): ratio {result['ratio']:.2f} "
        f"(steady {result['steady_ratio']:.2f}); max |difference| "
        f"{result['max_abs_difference']:.1e}; Ray started in {result['startup_s']:.1f} s, "
        f"{result['actors']} actors in {result['actors_start_s']:.1f} s",
        flush=True,
    )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
