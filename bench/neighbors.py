"""Benchmarks of ``explorer.neighbors``: one query over 1,000,000 and 20,000 rows of 384 floats.

The 1,000,000 rows are a temporary ``.npy`` file of random unit vectors (1.5 GB, written in
chunks of 100,000 rows and deleted at the end), opened with ``np.load(mmap_mode="r")`` as a
corpus store opens its vectors. The 20,000 rows are the first 20,000 of them, in memory, as
the Projections page holds its points. Nothing here needs a model.

Each size is compared with a brute-force NumPy reference in the same run, the code one would
write without ``explorer.neighbors``: every cosine in one piece
(``vectors @ q / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(q))``, a 1.5 GB temporary at
1,000,000 rows) and ``np.argsort`` of all of them. Contenders alternate (A B A B, query rows
differ per round) so a burst of load from elsewhere hits both alike; times are medians, and
the ratio is the median of the per-round ratios. The page cache is warmed by one untimed pass
first; the very first query on a new mapping, page faults included, is reported apart.

Also timed: what a corpus store's search runs (``Corpus.neighbors``: a vector query with the
stored row norms), over the float32 rows and over a float16 copy of them, with the CPU
seconds of the process next to the wall time: on a loaded shared machine the wall time is
mostly waiting for a core.

``python -m bench.neighbors [ROWS]`` prints the timings (and ``--json`` one JSON line).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.measure import Row, Sizes
from explorer.similarity import neighbors, row_norms


def write_unit_vectors(path: str | Path, rows: int, dims: int = 384, seed: int = 0) -> None:
    """Save ``rows`` random unit vectors ``(rows, dims)`` float32 to ``path``, 100,000 at a time."""
    rng = np.random.default_rng(seed)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(rows, dims))
    for start in range(0, rows, 100_000):
        chunk = rng.standard_normal((min(100_000, rows - start), dims), dtype=np.float32)
        chunk /= np.linalg.norm(chunk, axis=1, keepdims=True)
        out[start : start + len(chunk)] = chunk
    out.flush()
    del out


def brute_force(vectors: np.ndarray, row: int, k: int) -> np.ndarray:
    """The reference: the ``k`` rows most cosine-similar to row ``row``, all scores at once."""
    query = np.asarray(vectors[row])
    scores = vectors @ query / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(query))
    scores[row] = -np.inf
    return np.argsort(-scores, kind="stable")[:k]


def compare(vectors: np.ndarray, k: int, rounds: int, seed: int) -> dict:
    """Seconds of ``neighbors`` and of :func:`brute_force`, in turn, one random row per round."""
    rows = np.random.default_rng(seed).integers(0, len(vectors), rounds)
    seconds: dict[str, list[float]] = {"ours": [], "reference": []}
    agree = True
    for i, row in enumerate(rows):
        contenders = {
            "ours": lambda row=int(row): neighbors(vectors, row, k).indices,
            "reference": lambda row=int(row): brute_force(vectors, row, k),
        }
        order = ["ours", "reference"] if i % 2 == 0 else ["reference", "ours"]
        found = {}
        for name in order:
            start = time.perf_counter()
            found[name] = contenders[name]()
            seconds[name].append(time.perf_counter() - start)
        agree &= bool(np.array_equal(found["ours"], found["reference"]))
    ratios = [r / o for o, r in zip(seconds["ours"], seconds["reference"], strict=True)]
    return {
        "rows": len(vectors),
        "dims": vectors.shape[1],
        "k": k,
        "rounds": rounds,
        "seconds": statistics.median(seconds["ours"]),
        "seconds_min": min(seconds["ours"]),
        "reference_seconds": statistics.median(seconds["reference"]),
        "speedup_vs_reference": statistics.median(ratios),
        "same_indices_as_reference": agree,
    }


def timed(fn, repeat: int) -> dict:
    """Median and fastest wall seconds of ``repeat`` calls of ``fn()``, and the median CPU
    seconds of the process (every thread) a call: on a loaded shared machine the wall time
    is mostly waiting for a core, the CPU time is the work."""
    seconds, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return {
        "seconds": statistics.median(seconds),
        "seconds_min": min(seconds),
        "cpu_seconds": statistics.median(cpu),
    }


def neighbors_bench(
    rows: int = 1_000_000,
    small_rows: int = 20_000,
    dims: int = 384,
    k: int = 10,
    rounds: int = 5,
    all_points: int = 20_000,
) -> dict:
    """Timings of one query at ``rows`` (memory-mapped) and ``small_rows`` (in memory).

    Also: the first query on a fresh mapping, one thread instead of the default, the
    Euclidean metric, and the k nearest neighbours of every one of ``all_points`` points (what
    a per-point neighbourhood-preservation colour or a Jaccard overlap needs).
    """
    result: dict = {
        "threads_default": min(os.cpu_count() or 1, 4),
        "load_average_at_start": os.getloadavg()[0],
    }
    with tempfile.TemporaryDirectory(prefix="bench-neighbors-") as tmp:
        path = Path(tmp) / "vectors.npy"
        start = time.perf_counter()
        write_unit_vectors(path, rows, dims)
        result["write_seconds"] = time.perf_counter() - start
        result["file_mb"] = path.stat().st_size / 1e6

        result.update(_memory_mapped(path, k, rounds))
        small = np.array(np.load(path, mmap_mode="r")[:small_rows])
    result["small"] = compare(small, k, max(rounds, 20), seed=2)
    points = small[:all_points]
    start = time.perf_counter()
    neighbors(points, np.arange(len(points)), k)
    result["all_points"] = {"points": len(points), "seconds": time.perf_counter() - start}
    return result


def _memory_mapped(path: Path, k: int, rounds: int) -> dict:
    mapped = np.load(path, mmap_mode="r")
    start = time.perf_counter()
    neighbors(mapped, 0, k)  # warms the page cache; page faults of a new mapping included
    first = time.perf_counter() - start
    start = time.perf_counter()
    norms = row_norms(mapped)
    norms_seconds = time.perf_counter() - start
    query = np.random.default_rng(3).standard_normal(mapped.shape[1]).astype(np.float32)
    half_path = path.with_name("vectors-float16.npy")
    half = np.lib.format.open_memmap(half_path, "w+", np.float16, mapped.shape)
    for begin in range(0, len(mapped), 100_000):
        half[begin : begin + 100_000] = mapped[begin : begin + 100_000]
    half.flush()
    del half
    half = np.load(half_path, mmap_mode="r")
    half_norms = row_norms(half)
    neighbors(half, query, k, norms=half_norms)  # page cache
    return {
        "first_query_new_mapping_seconds": first,
        "large": compare(mapped, k, rounds, seed=1),
        "large_one_thread": timed(lambda: neighbors(mapped, 7, k, workers=1), rounds),
        "large_euclidean": timed(lambda: neighbors(mapped, 7, k, metric="euclidean"), rounds),
        "row_norms_seconds": norms_seconds,
        "large_given_norms": timed(lambda: neighbors(mapped, 7, k, norms=norms), rounds),
        # what a store's search runs (Corpus.neighbors): a vector query, stored norms
        "large_store_search": timed(lambda: neighbors(mapped, query, k, norms=norms), rounds),
        "large_store_search_float16": timed(
            lambda: neighbors(half, query, k, norms=half_norms), rounds
        ),
    }


def table_rows(data: dict) -> list[Row]:
    """The rows of ``python -m bench``'s table for :func:`neighbors_bench`'s ``data``."""
    large, small = data["large"], data["small"]
    return [
        Row(
            f"neighbors: one query, {large['rows']:,} x {large['dims']} float32, memory-mapped",
            f"{large['seconds']:.3f} s ({large['speedup_vs_reference']:.1f}x brute-force NumPy, "
            f"{large['reference_seconds']:.2f} s; {data['threads_default']} threads, "
            f"1 thread {data['large_one_thread']['seconds']:.3f} s; norms given "
            f"{data['large_given_norms']['seconds']:.3f} s; first query on a new mapping "
            f"{data['first_query_new_mapping_seconds']:.2f} s)",
            "<= 0.3 s",
            large["seconds"] <= 0.3 and large["same_indices_as_reference"],
            large["seconds"],
        ),
        Row(
            f"neighbors: a store's search, {large['rows']:,} x {large['dims']} float32 "
            "memory-mapped, vector query, stored norms",
            f"{data['large_store_search']['seconds']:.3f} s wall, "
            f"{data['large_store_search']['cpu_seconds']:.3f} s CPU (float16 store: "
            f"{data['large_store_search_float16']['seconds']:.3f} s wall, "
            f"{data['large_store_search_float16']['cpu_seconds']:.3f} s CPU)",
            "<= 0.3 s",
            data["large_store_search"]["seconds"] <= 0.3,
            data["large_store_search"]["seconds"],
        ),
        Row(
            f"neighbors: one query, {small['rows']:,} x {small['dims']} float32, in memory",
            f"{1000 * small['seconds']:.1f} ms ({small['speedup_vs_reference']:.1f}x brute-force "
            f"NumPy, {1000 * small['reference_seconds']:.1f} ms)",
            "a few ms",
            small["seconds"] <= 0.01 and small["same_indices_as_reference"],
            small["seconds"],
        ),
        Row(
            f"neighbors: k = {large['k']} of every point, {data['all_points']['points']:,} points",
            f"{data['all_points']['seconds']:.1f} s",
        ),
    ]


def measure_neighbors(sizes: Sizes) -> tuple[dict, list[Row]]:
    """One query over 1,000,000 memory-mapped rows and 20,000 in memory (the same at any
    ``sizes``: the issue's sizes are the measurement)."""
    data = neighbors_bench()
    return data, table_rows(data)


def main(argv: list[str]) -> None:
    rows = int(next((a for a in argv if not a.startswith("-")), 1_000_000))
    data = neighbors_bench(rows=rows, small_rows=min(20_000, rows))
    if "--json" in argv:
        print(json.dumps(data))
        return
    large, small = data["large"], data["small"]
    print(f"load average at the start: {data['load_average_at_start']:.1f}")
    print(f"write {data['file_mb']:.0f} MB: {data['write_seconds']:.1f} s")
    print(f"first query on a new mapping: {data['first_query_new_mapping_seconds']:.3f} s")
    for run in (large, small):
        print(
            f"{run['rows']:>9,} x {run['dims']}: {run['seconds']:.4f} s median "
            f"(min {run['seconds_min']:.4f}), brute force {run['reference_seconds']:.4f} s, "
            f"{run['speedup_vs_reference']:.1f}x, same indices: {run['same_indices_as_reference']}"
        )
    print(f"large, one thread: {data['large_one_thread']['seconds']:.4f} s")
    print(f"large, euclidean: {data['large_euclidean']['seconds']:.4f} s")
    print(
        f"large, norms given: {data['large_given_norms']['seconds']:.4f} s "
        f"(row_norms once: {data['row_norms_seconds']:.2f} s)"
    )
    for name, label in (
        ("large_store_search", "store search (vector query, stored norms), float32"),
        ("large_store_search_float16", "store search (vector query, stored norms), float16"),
    ):
        run = data[name]
        print(
            f"large, {label}: {run['seconds']:.4f} s median (min {run['seconds_min']:.4f}), "
            f"{run['cpu_seconds']:.4f} s CPU"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    every = data["all_points"]
    print(f"k-NN of every one of {every['points']:,} points: {every['seconds']:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
