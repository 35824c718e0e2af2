"""Benchmarks of the corpus embedding: throughput vs sentence-transformers, GFLOP/s, memory.

Timings on a shared machine are noisy (other processes take the cores for seconds at a
time), so every comparison runs its contenders in turn, A B A B, in one process, on short
pieces of work: each round walks through the texts in chunks and runs every contender on a
chunk before moving on (in a rotating order), so that a burst of load from elsewhere hits
all of them alike. The result is the median of the per-round ratios.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

from bench.sentences import sample_sentences


def bfloat16_supported() -> bool:
    """Whether this CPU has native bfloat16 matrix instructions (AVX512-BF16 or AMX)."""
    cpu = getattr(torch, "cpu", None)
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(cpu, name, lambda: False)() for name in checks)


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    """``(seconds, result)`` of one call."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def alternate(
    contenders: dict[str, Callable[[list[str]], object]],
    texts: list[str],
    rounds: int,
    chunk: int = 500,
) -> dict[str, list[float]]:
    """Seconds per round of each contender over all ``texts``, run chunk by chunk in turn.

    Within a round, chunk ``i`` is given to every contender before chunk ``i + 1``, starting
    with a different contender each time; a contender's round time is its sum over chunks.
    """
    names = list(contenders)
    pieces = [texts[i : i + chunk] for i in range(0, len(texts), chunk)]
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(rounds):
        spent = dict.fromkeys(names, 0.0)
        for i, piece in enumerate(pieces):
            shift = (round_ + i) % len(names)
            for name in names[shift:] + names[:shift]:
                spent[name] += timed(lambda name=name, piece=piece: contenders[name](piece))[0]
        for name in names:
            seconds[name].append(spent[name])
    return seconds


def median_ratio(slow: list[float], fast: list[float]) -> float:
    """Median over rounds of ``slow[i] / fast[i]`` (> 1 when ``fast`` is faster)."""
    return statistics.median(a / b for a, b in zip(slow, fast, strict=True))


def max_cosine_deviation(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> float:
    """Largest ``1 - cos`` between matching vectors of two ``pooled`` dicts (every pooling,
    layer and text)."""
    worst = 0.0
    for name in a:
        x, y = a[name].astype(np.float64), b[name].astype(np.float64)
        norms = np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1)
        cos = (x * y).sum(-1) / np.maximum(norms, 1e-30)
        worst = max(worst, float((1 - cos[norms > 0]).max()))
    return worst


def throughput(n_texts: int, rounds: int, chunk: int = 500, folder: str | None = None) -> dict:
    """``embed_corpus`` (every strategy kept) vs ``SentenceTransformer.encode`` on real text.

    Both load the same model folder, the bundled one unless ``folder`` is given (a
    BERT-base-sized folder of :mod:`bench.model_folders`: sentence-transformers wraps a plain
    checkpoint with mean pooling); sentence-transformers runs with its defaults (batch size 32,
    length-sorted batches, mean pooling of the last layer, normalized). Each contender embeds
    all ``n_texts`` once per round, ``chunk`` texts per call (see :func:`alternate`).
    """
    from sentence_transformers import SentenceTransformer

    from explorer.embeddings import embed_corpus
    from explorer.model import load_model
    from explorer.model.loading import bundled_model_path

    texts, info = sample_sentences(n_texts)
    model = load_model(folder)
    st_model = SentenceTransformer(folder or str(bundled_model_path()), device="cpu")
    bf16 = bfloat16_supported()
    contenders: dict[str, Callable[[list[str]], object]] = {
        "explorer": lambda chunk: embed_corpus(model, chunk),
        "sentence_transformers": lambda chunk: st_model.encode(chunk),
    }
    if bf16:
        contenders["explorer_bf16"] = lambda chunk: embed_corpus(model, chunk, precision="bfloat16")
    for fn in contenders.values():  # warm-up: first calls allocate and pick kernels
        fn(texts[:200])
    seconds = alternate(contenders, texts, rounds, chunk)

    ours = embed_corpus(model, texts)
    reference = st_model.encode(texts)
    mean_last = ours.sentence("mean", "last", normalize=True)
    result = {
        "model": folder or "bundled",
        "texts": n_texts,
        "distinct": info["distinct"],
        "tokens": int(ours.num_tokens.sum()),
        "rounds": rounds,
        "chunk": chunk,
        "threads": torch.get_num_threads(),
        "seconds": {name: statistics.median(s) for name, s in seconds.items()},
        "seconds_per_round": seconds,
        "texts_per_second": {name: n_texts / statistics.median(s) for name, s in seconds.items()},
        "ratio": median_ratio(seconds["sentence_transformers"], seconds["explorer"]),
        "ratio_of_best_rounds": min(seconds["sentence_transformers"]) / min(seconds["explorer"]),
        "max_abs_diff_vs_sentence_transformers": float(np.abs(mean_last - reference).max()),
        "bfloat16_supported": bf16,
    }
    if bf16:
        low = embed_corpus(model, texts, precision="bfloat16")
        result["ratio_bf16"] = median_ratio(
            seconds["sentence_transformers"], seconds["explorer_bf16"]
        )
        result["bf16_speedup_vs_float32"] = median_ratio(
            seconds["explorer"], seconds["explorer_bf16"]
        )
        result["bf16_max_cosine_deviation"] = max_cosine_deviation(ours.pooled, low.pooled)
    return result


def encoder_flops(config, batch_size: int, tokens: int, pooler: bool = True) -> int:
    """Floating-point operations of the encoder's matrix products for one padded batch.

    Counts 2 per multiply-add of the query, key, value and output projections, the two
    feed-forward layers, the attention scores (Q K^T) and their weighted sum (A V), in every
    layer, plus the pooler. Softmax, layer norm, GELU and the embeddings are left out.
    """
    hidden, inner = config.hidden_size, config.intermediate_size
    rows = batch_size * tokens
    per_layer = 2 * rows * (4 * hidden * hidden + 2 * hidden * inner)
    per_layer += 2 * 2 * batch_size * tokens * tokens * hidden
    total = config.num_hidden_layers * per_layer
    return total + (2 * batch_size * hidden * hidden if pooler else 0)


def matmul_peak(size: int, dtype: torch.dtype = torch.float32, calls: int = 3) -> float:
    """GFLOP/s of the fastest of ``calls`` ``torch.mm`` of two ``size x size`` matrices."""
    a = torch.randn(size, size).to(dtype)
    b = torch.randn(size, size).to(dtype)
    out = torch.empty(size, size, dtype=dtype)
    torch.mm(a, b, out=out)
    best = min(timed(lambda: torch.mm(a, b, out=out))[0] for _ in range(calls))
    return 2 * size**3 / best / 1e9


def _ignore(batch, states) -> None:
    """A ``forward_batches`` handler that keeps nothing (only the passes are timed)."""


def gflops(n_texts: int, rounds: int, matmul_size: int = 4096, group: int | None = None) -> dict:
    """Achieved GFLOP/s of the forward passes of ``embed_corpus`` vs a large ``torch.mm``.

    The texts are tokenized and batched as ``embed_corpus`` does, and the forward passes run
    as there (:func:`explorer.model.forward.forward_batches`, parallel workers by default); only
    they are timed, not the pooling. Peak and forward alternate: the peak is measured before
    every ``group`` batches (default: all of them, one corpus pass as ``embed_corpus`` runs
    it), and each group's GFLOP/s is divided by that peak. The fraction reported is the
    median over all groups of all rounds. Small groups understate the parallel workers:
    each group ends with one worker idle while the other finishes the last batch, which a
    corpus pays once.
    """
    from explorer.model import load_model
    from explorer.model.forward import default_workers, forward_batches

    texts, _ = sample_sentences(n_texts)
    model = load_model()
    batches = list(model.batches(model.encode_batch(texts)))
    pooler = getattr(model.encoder, "pooler", None) is not None
    config = model.encoder.config
    flops = [encoder_flops(config, len(b.indices), max(b.lengths), pooler) for b in batches]
    real_tokens = sum(sum(b.lengths) for b in batches)
    padded_tokens = sum(len(b.indices) * max(b.lengths) for b in batches)
    group = group or len(batches)
    groups = [range(i, min(i + group, len(batches))) for i in range(0, len(batches), group)]

    def forward(indices: range, precision: str) -> None:
        # As embed_corpus runs them (parallel workers by default), without the pooling.
        forward_batches(model, [batches[i] for i in indices], _ignore, precision)

    result = {
        "texts": n_texts,
        "batches": len(batches),
        "padding": padded_tokens / real_tokens - 1,
        "gflop": sum(flops) / 1e9,
        "threads": torch.get_num_threads(),
        "workers": default_workers(group),
        "matmul_size": matmul_size,
    }
    precisions = ["float32"] + (["bfloat16"] if bfloat16_supported() else [])
    for precision in precisions:
        dtype = torch.float32 if precision == "float32" else torch.bfloat16
        forward(range(len(batches)), precision)  # warm-up
        peaks, achieved, fractions = [], [], []
        for _ in range(rounds):
            for indices in groups:
                peak = matmul_peak(matmul_size, dtype, calls=2)
                seconds = timed(lambda i=indices, p=precision: forward(i, p))[0]
                speed = sum(flops[i] for i in indices) / seconds / 1e9
                peaks.append(peak)
                achieved.append(speed)
                fractions.append(speed / peak)
        key = "" if precision == "float32" else "_bf16"
        result[f"peak_gflops{key}"] = statistics.median(peaks)
        result[f"forward_gflops{key}"] = statistics.median(achieved)
        result[f"fraction_of_peak{key}"] = statistics.median(fractions)
    return result


def _rss_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise OSError(f"{field} not in /proc/self/status")


def memory_child(n_texts: int) -> dict:
    """Peak RSS while embedding ``n_texts`` sentences, above the loaded model's own RSS.

    Runs in a fresh process (see ``bench.child``). The baseline is the RSS after loading the
    model and embedding 100 texts (so libraries and kernels are loaded); the kernel's
    high-water mark is then reset (``/proc/self/clear_refs``) and read after the run.
    """
    from explorer.embeddings import embed_corpus
    from explorer.model import load_model

    texts, info = sample_sentences(n_texts)
    model = load_model()
    embed_corpus(model, texts[:100])
    baseline = _rss_mb("VmRSS")
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # reset VmHWM (the peak RSS) to the current RSS
    seconds, corpus = timed(lambda: embed_corpus(model, texts))
    peak = _rss_mb("VmHWM")
    return {
        "texts": n_texts,
        "distinct": info["distinct"],
        "sources": info["sources"],
        "tokens": int(corpus.num_tokens.sum()),
        "seconds": seconds,
        "baseline_mb": baseline,
        "peak_mb": peak,
        "over_baseline_mb": peak - baseline,
        "pooled_mb": sum(a.nbytes for a in corpus.pooled.values()) / 2**20,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.embedding --model FOLDER [--texts 1000] [--rounds 3]``: the throughput
    comparison (:func:`throughput`) for one model folder, as a line and as JSON."""
    import argparse
    import json
    import os

    parser = argparse.ArgumentParser(prog="python -m bench.embedding", description=main.__doc__)
    parser.add_argument("--model", default=None, help="a model folder (default: the bundled)")
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    data = throughput(args.texts, args.rounds, folder=args.model)
    speed = data["texts_per_second"]
    print(
        f"{data['model']}: {data['ratio']:.2f}x ({speed['explorer']:.1f} vs "
        f"{speed['sentence_transformers']:.1f} texts/s; {data['texts']:,} sentences, "
        f"{data['tokens']:,} tokens, {data['threads']} threads, median of {data['rounds']}); "
        f"load {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    )
    print(json.dumps({k: v for k, v in data.items() if k != "seconds_per_round"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
