"""What the Compare models page computes for one pair, request by request, on its built-in texts
(issue 35: every request within 30 s alone, a BERT-base-sized model against the bundled one).

``python -m bench.compare --model-b FOLDER [--model-a FOLDER] [--corpus topics|senses]
[--threads N]`` runs each section of a first visit to the page once, as the page computes it
with the server's caps (:func:`explorer.server.limits.pair_tokens` through
:mod:`explorer.compare`'s plans): the tokenizers' counts, the cross-model CKA (with both
models' one reading of the maps' texts, :func:`explorer.compare.read_texts`, whose first texts
are the CKA's), the curves over relative depth, the paired maps (agreement and maps from those
sentence vectors: no forward pass) and one search. For each it prints the wall seconds, the
process's CPU seconds (torch runs on every core, so CPU can exceed wall; on a busy machine wall
grows and CPU does not), the wall seconds spent in forward passes, the texts and tokens each
model read, and the one-minute load average after it; then the page's first visit in all, the
peak resident memory, a Markdown table for README's Performance section and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import threading
import time
from dataclasses import dataclass, field

LIMIT_S = 30.0
"""What the issue asks of each request alone."""


@dataclass
class Reads:
    """Texts and tokens one model's forward passes read, and their wall seconds (overlapping
    passes of parallel workers counted once)."""

    texts: int = 0
    tokens: int = 0
    active: int = 0
    since: float = 0.0
    seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def count_reads(model, reads: Reads) -> None:
    """Wrap ``model.layer_states`` (every forward pass goes through it) to count into
    ``reads``."""
    original = model.layer_states

    def counted(batch, *args, **kwargs):
        with reads.lock:
            reads.texts += len(batch.indices)
            reads.tokens += int(batch.attention_mask.sum())
            if reads.active == 0:
                reads.since = time.perf_counter()
            reads.active += 1
        try:
            return original(batch, *args, **kwargs)
        finally:
            with reads.lock:
                reads.active -= 1
                if reads.active == 0:
                    reads.seconds += time.perf_counter() - reads.since

    model.layer_states = counted


def _status_mb(field: str) -> float:
    """``VmRSS`` or ``VmHWM`` of this process from ``/proc/self/status``, MB (0 elsewhere)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _reset_peak() -> None:
    """Start a new high-water mark of resident memory (Linux: ``/proc/self/clear_refs``)."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-a", default=None, help="default: the bundled model")
    parser.add_argument("--model-b", default=None, help="default: A's random weights")
    parser.add_argument("--corpus", choices=("topics", "senses"), default="topics")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)

    import torch

    import explorer
    from explorer.compare import (
        MAX_WORDS,
        cka_spans,
        cka_texts,
        cross_cka_matrix,
        curve_inputs,
        depth_curves,
        interleaved,
        nearest_sets,
        neighbour_agreement,
        paired_maps,
        read_texts,
        texts_within,
        token_stats,
    )
    from explorer.data import corpora
    from explorer.model.loading import random_weights
    from explorer.server import limits
    from explorer.similarity import neighbors

    if args.threads:
        torch.set_num_threads(args.threads)
    a = explorer.load_model(args.model_a)
    start = time.perf_counter()
    b = explorer.load_model(args.model_b) if args.model_b else random_weights(a)
    print(
        f"load B: {time.perf_counter() - start:.2f} s wall; RSS {_status_mb('VmRSS'):.0f} MB",
        flush=True,
    )
    reads = {"A": Reads(), "B": Reads()}
    count_reads(a, reads["A"])
    if b is not a:
        count_reads(b, reads["B"])
    senses, topics = corpora.load_senses(), corpora.load_topics()
    if args.corpus == "senses":  # in turn from every group, as the page orders them
        texts = interleaved(senses, ["word", "sense"])["text"].tolist()
    else:
        texts = interleaved(topics, ["topic"])["text"].tolist()
    budget = limits.pair_tokens(a, b)
    rows: list[dict] = []

    def request(name, work):
        before = {k: (r.texts, r.tokens, r.seconds) for k, r in reads.items()}
        _reset_peak()
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        row = {
            "request": name,
            "wall_s": round(time.perf_counter() - wall, 2),
            "cpu_s": round(time.process_time() - cpu, 2),
            "forward_s": round(sum(r.seconds - before[k][2] for k, r in reads.items()), 2),
            "texts": {k: r.texts - before[k][0] for k, r in reads.items()},
            "tokens": {k: r.tokens - before[k][1] for k, r in reads.items()},
            "load_1min": round(os.getloadavg()[0], 1),
            "rss_mb": round(_status_mb("VmRSS")),
            "peak_mb": round(_status_mb("VmHWM")),
        }
        rows.append(row)
        print(
            f"{name:<14} {row['wall_s']:7.2f} s wall {row['cpu_s']:7.2f} s CPU "
            f"{row['forward_s']:7.2f} s forward  A {row['texts']['A']:>4} texts "
            f"{row['tokens']['A']:>6} tokens  B {row['texts']['B']:>4} texts "
            f"{row['tokens']['B']:>6} tokens  load {row['load_1min']}  "
            f"RSS {row['rss_mb']} MB, peak {row['peak_mb']} MB",
            flush=True,
        )
        return result

    request("tokens", lambda: (token_stats(a, texts), token_stats(b, texts)))

    kept = texts_within(a, b, texts, budget)

    def cka():  # as the page: one reading per model gives the CKA's words and the maps' texts
        used, alignment = cka_texts(a, b, texts, budget)
        spans = cka_spans(alignment, MAX_WORDS)
        readings = [read_texts(m, texts[:kept], spans) for m in (a, b)]
        return readings, cross_cka_matrix(readings[0].words, readings[1].words)

    readings, _ = request("cross CKA", cka)

    def curves():
        kept_senses, kept_topics = curve_inputs(a, b, senses, topics, budget)
        return depth_curves(
            a, b, kept_senses, kept_topics["text"].tolist(), kept_topics["topic"].tolist()
        )

    request("depth curves", curves)

    def maps():
        vectors = [reading.corpus.sentence("mean", "last") for reading in readings]
        agreement = neighbour_agreement(*vectors, 10)
        paired_maps(*vectors)
        nearest_sets(vectors[0], 10), nearest_sets(vectors[1], 10)
        return vectors, agreement

    vectors, _ = request("maps", maps)

    def search():
        query = "Where can I borrow money to buy a house?"
        for model, own in zip((a, b), vectors, strict=True):
            neighbors(own, explorer.embed_corpus(model, [query]).sentence("mean", "last")[0], 5)

    request("search", search)

    page = {
        "request": "page, first visit",
        **{k: round(sum(r[k] for r in rows), 2) for k in ("wall_s", "cpu_s", "forward_s")},
        "texts": {k: sum(r["texts"][k] for r in rows) for k in reads},
        "tokens": {k: sum(r["tokens"][k] for r in rows) for k in reads},
        "load_1min": round(os.getloadavg()[0], 1),
    }
    # each request restarts the high-water mark, so the process's peak is the largest of theirs
    peak = max(
        [r["peak_mb"] for r in rows] + [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]
    )
    print(f"page, first visit: {page['wall_s']:.2f} s wall, {page['cpu_s']:.2f} s CPU")
    print(f"peak memory: {peak:.0f} MB; {torch.get_num_threads()} torch threads")
    print()
    print("| Request (bench.compare) | Wall s | CPU s | Forward s | Tokens A / B | Load |")
    print("|---|---|---|---|---|---|")
    for row in [*rows, page]:
        print(
            f"| {row['request']} | {row['wall_s']:.1f} | {row['cpu_s']:.1f} | "
            f"{row['forward_s']:.1f} | {row['tokens']['A']:,} / {row['tokens']['B']:,} | "
            f"{row['load_1min']} |"
        )
    print()
    slow = [r["request"] for r in rows if r["wall_s"] > LIMIT_S]
    print(json.dumps({"requests": rows, "page": page, "peak_mb": round(peak), "over_30s": slow}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
