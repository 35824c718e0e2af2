"""Head ablation's cost: one measurement with and without heads off, and a ranking of every
head (one set of forward passes per head) on a BERT-base-sized model.

    python -m bench.ablation [--model FOLDER] [--measure gap]

FOLDER: a BERT-base-sized model folder (``python -m bench.model_folders OUT``); default the
bundled model.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="a model folder (default: bundled)")
    parser.add_argument("--measure", default="gap", choices=["gap", "cosine"])
    parser.add_argument(
        "--heads",
        type=int,
        default=0,
        help="rank N heads spread over the layers (0: all; the page ranks all 144 of "
        "BERT-base's, about 41 of BERT-large's)",
    )
    args = parser.parse_args()

    import explorer
    from explorer.attention import measure, rank_heads, spread_heads
    from explorer.data.examples import ATTENTION_PAIR, TUTORIAL

    model = explorer.load_model(args.model) if args.model else explorer.load_model()
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    start = time.perf_counter()
    measure(model, {}, TUTORIAL, ATTENTION_PAIR, None)
    print(f"all measures, full model: {time.perf_counter() - start:.2f} s", flush=True)
    heads = spread_heads(model, args.heads or 10**9)
    start, cpu = time.perf_counter(), time.process_time()
    table = rank_heads(model, args.measure, TUTORIAL, ATTENTION_PAIR, heads=heads)
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        f"ranking {len(table)} heads by {args.measure}: {took:.1f} s "
        f"({took / (len(table) + 1) * 1000:.0f} ms a head)",
        flush=True,
    )
    print(
        f"CPU time {cpu:.1f} s ({cpu / (len(table) + 1) * 1000:.0f} ms a head): alone on 2 "
        f"cores the wall time is about half of it, ~{cpu / 2:.0f} s",
        flush=True,
    )
    print(table.head(5).to_string(index=False))
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
