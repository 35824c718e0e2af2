"""Benchmarks of corpus stores: ``python -m bench.store [--texts N] [--memory-texts N] [--rows N]``.

- throughput: ``explorer embed`` (:func:`explorer.data.store.embed_to_store`, every layer, three
  poolings, written to disk) vs sentence-transformers ``encode`` (mean pooling, last layer) on
  the same sentences, run in turn (:func:`bench.embedding.alternate`). By default each round
  embeds all the sentences into one store, as the command does with a corpus; ``--chunk N``
  makes a store of every N sentences instead (each pays a store's fixed costs: the manifest,
  the files, the first and last batches);
- memory: peak RSS of ``python -m explorer embed`` over N sentences in a fresh process
  (``ru_maxrss`` of the child; streaming: it should not grow with N);
- a synthetic store of N rows (mean pooling, last layer, 384 float32 dims, like MiniLM):
  ``open_corpus`` and the first search over all rows in a fresh process.

Prints one JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.embedding import alternate, median_ratio
from bench.measure import Row, Sizes
from bench.sentences import sample_sentences

ROOT = Path(__file__).resolve().parents[1]


def throughput(
    n_texts: int, rounds: int, chunk: int | None = None, folder: str | None = None
) -> dict:
    """texts/s of ``embed_to_store`` (all layers, cls/mean/max, float32, on disk) vs
    ``SentenceTransformer.encode``, run in turn on ``chunk`` texts at a time (``None``: all of
    them, one store per round); ratio = median over rounds of their time ratio. ``folder``: a
    model folder to use on both sides (``python -m bench.model_folders``; default the bundled
    model; sentence-transformers reads a plain checkpoint with mean pooling)."""
    chunk = chunk or n_texts
    from sentence_transformers import SentenceTransformer

    from explorer.data.store import Settings, embed_to_store
    from explorer.model import load_model
    from explorer.model.loading import bundled_model_path

    texts, info = sample_sentences(n_texts)
    model = load_model(folder)
    st_model = SentenceTransformer(folder or str(bundled_model_path()), device="cpu")
    work = Path(tempfile.mkdtemp(prefix="bench-store-"))
    calls = iter(range(10**9))

    def store(piece: list[str]) -> None:
        folder = work / str(next(calls))
        folder.mkdir()
        (folder / "in.txt").write_text("\n".join(piece) + "\n")
        embed_to_store(model, folder / "in.txt", folder / "store", Settings())
        shutil.rmtree(folder)

    contenders = {"explorer_embed": store, "sentence_transformers": st_model.encode}
    try:
        for fn in contenders.values():
            fn(texts[:100])
        seconds = alternate(contenders, texts, rounds, chunk)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "texts": n_texts,
        "distinct": info["distinct"],
        "rounds": rounds,
        "chunk": chunk,
        "texts_per_second": {k: n_texts / statistics.median(v) for k, v in seconds.items()},
        "seconds_per_round": seconds,
        "ratio": median_ratio(seconds["sentence_transformers"], seconds["explorer_embed"]),
    }


def memory(n_texts: int, dtype: str = "float16") -> dict:
    """Peak RSS of ``python -m explorer embed`` of ``n_texts`` sentences (all layers, three
    poolings), in a fresh process."""
    texts, info = sample_sentences(n_texts)
    work = Path(tempfile.mkdtemp(prefix="bench-store-mem-"))
    try:
        source = work / "in.txt"
        source.write_text("\n".join(texts) + "\n")
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "explorer", "embed", str(source), "--out", str(work / "s"),
             "--dtype", dtype, "--quiet"],
            cwd=ROOT, env={**os.environ, "HF_HUB_OFFLINE": "1"}, capture_output=True, text=True,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        size = sum(f.stat().st_size for f in (work / "s").rglob("*") if f.is_file())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "texts": n_texts,
        "distinct": info["distinct"],
        "dtype": dtype,
        "seconds": seconds,
        "texts_per_second": n_texts / seconds,
        "peak_rss_mb": peak_kb / 1024,
        "store_mb": size / 2**20,
    }


def synthetic_store(
    folder: Path,
    rows: int,
    dim: int = 384,
    shard_rows: int = 100_000,
    *,
    clusters: int = 0,
    texts: Sequence[str] | None = None,
    spread: float = 1.0,
) -> None:
    """A complete store of ``rows`` vectors (mean pooling, layer 6, float32), written block
    by block in the store's format.

    By default the vectors are random (standard normal) and the texts ``"text i"``. With
    ``clusters`` > 0 the vectors have structure: each row belongs to one of ``clusters``
    Gaussian clusters (random unit centres, noise of norm about ``spread`` around them, then
    unit-normalised) and the store gets a label column ``label`` naming its cluster
    (``"cluster 01"``...). ``texts`` (cycled when shorter than ``rows``) replaces the
    ``"text i"`` texts, e.g. real sentences, so hover labels have a realistic size.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from explorer.data.store import format as fmt
    from explorer.data.store import schema
    from explorer.similarity import row_norms

    if rows < 1 or dim < 1 or clusters < 0:
        raise ValueError(f"Need rows >= 1, dim >= 1, clusters >= 0; got {rows}, {dim}, {clusters}.")
    if texts is not None and not len(texts):
        raise ValueError("texts is empty: give at least one text, or None for 'text i'.")
    rng = np.random.default_rng(0)
    shape = np.random.default_rng(1)  # clusters: a second stream keeps the default unchanged
    members = shape.integers(clusters, size=rows) if clusters else None
    centres = None
    if clusters:
        centres = shape.standard_normal((clusters, dim)).astype(np.float32)
        centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    names = [f"cluster {c + 1:02d}" for c in range(clusters)]
    folder.mkdir(parents=True)
    shards = []
    for index, start in enumerate(range(0, rows, shard_rows)):
        n = min(shard_rows, rows - start)
        (folder / fmt.shard_dir(index)).mkdir(parents=True)
        columns = {
            "text": [
                f"text {i}" if texts is None else str(texts[i % len(texts)])
                for i in range(start, start + n)
            ]
        }
        if clusters:
            columns["label"] = [names[c] for c in members[start : start + n]]
        pq.write_table(pa.table(columns), folder / fmt.shard_dir(index) / "rows.parquet")
        shards.append({"dir": fmt.shard_dir(index), "rows": n, "files": ["rows.parquet"]})
    target = folder / fmt.layer_file("mean", 6)
    target.parent.mkdir(parents=True)
    array = np.lib.format.open_memmap(target, "w+", np.float32, (rows, dim))
    for start in range(0, rows, 65536):
        block = rng.standard_normal((min(65536, rows - start), dim), dtype=np.float32)
        if clusters:
            block *= spread / np.sqrt(dim)
            block += centres[members[start : start + len(block)]]
            block /= np.linalg.norm(block, axis=1, keepdims=True)
        array[start : start + len(block)] = block
    array.flush()
    del array
    fmt.save_npy(folder / fmt.norms_file("mean", 6), row_norms(np.load(target, mmap_mode="r")))
    fmt.save_npy(folder / "vectors/num_tokens.npy", np.full(rows, 5, np.int32))
    fmt.save_npy(folder / "vectors/truncated.npy", np.zeros(rows, bool))
    label_column = "label" if clusters else None
    manifest = {
        "format": schema.FORMAT,
        "format_version": fmt.FORMAT_VERSION,
        "model": {"name": "synthetic", "fingerprint": "sha256:none", "model_type": "bert",
                  "num_layers": 6, "hidden_size": dim},
        "tokenizer": {"max_length": 512, "lowercase": True},
        "input": {"name": "synthetic", "format": "text", "text_column": "text",
                  "label_column": label_column,
                  "columns": ["text", "label"] if clusters else ["text"]},
        "poolings": ["mean"], "layers": [6], "dtype": "float32", "precision": "float32",
        "exclude_special": False, "limit": None, "shard_rows": shard_rows,
        "rows": rows, "skipped": 0, "shards": shards, "complete": True, "created": fmt.now(),
        "vectors": {"mean": {"6": fmt.layer_file("mean", 6)}}, "projections": [],
    }  # fmt: skip
    fmt.write_manifest(folder, manifest)


def open_and_search_child(folder: str) -> dict:
    """In a fresh process: seconds to open the store, to run the first and a second search
    (a vector query over every row, k = 10), and to read the texts of the hits."""
    from explorer.data.store.corpus import open_corpus  # imported first: imports are not timed

    start = time.perf_counter()
    corpus = open_corpus(folder)
    opened = time.perf_counter() - start
    query = np.random.default_rng(1).standard_normal(corpus.hidden_size).astype(np.float32)
    start = time.perf_counter()
    found = corpus.neighbors(query, 10)
    first = time.perf_counter() - start
    start = time.perf_counter()
    corpus.neighbors(-query, 10)
    second = time.perf_counter() - start
    start = time.perf_counter()
    corpus.take(found.indices)
    take = time.perf_counter() - start
    return {"rows": len(corpus), "open_s": opened, "first_search_s": first,
            "second_search_s": second, "take_texts_s": take}  # fmt: skip


def large_store(rows: int) -> dict:
    """Build a synthetic store of ``rows`` rows, then open and search it in a fresh process."""
    work = Path(tempfile.mkdtemp(prefix="bench-store-big-"))
    try:
        start = time.perf_counter()
        synthetic_store(work / "s", rows)
        built = time.perf_counter() - start
        done = subprocess.run(
            [sys.executable, "-m", "bench.store", "--child", str(work / "s")],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        result = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {**result, "build_s": built}


def measure_store(sizes: Sizes) -> tuple[dict, list[Row]]:
    speed = throughput(2_000, 3)
    big = large_store(1_000_000)
    return {"throughput": speed, "large": big}, [
        Row(
            "explorer embed (all layers, cls/mean/max, to disk) vs sentence-transformers",
            f"{speed['ratio']:.2f}x",
            ">= 1.4x",
            speed["ratio"] >= 1.4,
            speed["ratio"],
        ),
        Row(
            "1,000,000-row store: open / first search / second search over all rows",
            f"{big['open_s']:.2f} s / {big['first_search_s']:.2f} s / "
            f"{big['second_search_s']:.2f} s",
            "<= 5 s / <= 0.3 s",
            big["second_search_s"] <= 0.3 and big["open_s"] <= 5,
            big["second_search_s"],
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.store")
    parser.add_argument("--texts", type=int, default=2000, help="throughput sentences")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chunk", type=int, help="throughput: a store per N sentences")
    parser.add_argument("--memory-texts", type=int, default=200_000)
    parser.add_argument("--rows", type=int, default=1_000_000, help="synthetic store rows")
    parser.add_argument("--only", default="throughput,memory,large")
    parser.add_argument("--model", help="throughput: a model folder (default: the bundled one)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(open_and_search_child(args.child)))
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    results = {}
    only = set(args.only.split(","))
    if "throughput" in only:
        results["throughput"] = throughput(args.texts, args.rounds, args.chunk, args.model)
        print("throughput", json.dumps(results["throughput"]["texts_per_second"]),
              f"ratio {results['throughput']['ratio']:.2f}", flush=True)  # fmt: skip
    if "memory" in only:
        results["memory"] = memory(args.memory_texts)
        print("memory", json.dumps(results["memory"]), flush=True)
    if "large" in only:
        results["large"] = large_store(args.rows)
        print("large", json.dumps(results["large"]), flush=True)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
