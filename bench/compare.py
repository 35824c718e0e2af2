"""What the Compare models page computes for one pair, step by step, on its built-in texts
(issue 35: every request within 30 s alone, a BERT-base-sized model against the bundled one).

``python -m bench.compare --model-b FOLDER [--model-a FOLDER] [--threads N]`` prints one line
per step (seconds, once each: the page computes each once and keeps it) and the process's
peak resident memory, then one JSON line. Steps: loading B, the tokenizers' counts over the
corpus, the shared words, the cross-model CKA (each model reads the texts CKA needs), both
models' sentence vectors of the capped corpus, the neighbour agreement and the paired maps.
"""

from __future__ import annotations

import argparse
import json
import resource
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-a", default=None, help="default: the bundled model")
    parser.add_argument("--model-b", default=None, help="default: A's random weights")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)

    import torch

    import explorer
    from explorer.compare import (
        MAX_WORDS,
        align_words,
        cross_cka,
        neighbour_agreement,
        paired_maps,
        token_stats,
    )
    from explorer.data import corpora
    from explorer.model.loading import random_weights
    from explorer.server import limits

    if args.threads:
        torch.set_num_threads(args.threads)
    seconds: dict[str, float] = {}

    def step(name, work):
        start = time.perf_counter()
        result = work()
        seconds[name] = round(time.perf_counter() - start, 2)
        print(f"{name:<22} {seconds[name]:7.2f} s", flush=True)
        return result

    a = explorer.load_model(args.model_a)
    b = step(
        "load B",
        lambda: explorer.load_model(args.model_b) if args.model_b else random_weights(a),
    )
    texts = list(corpora.load_topics()["text"])
    step("token counts", lambda: (token_stats(a, texts), token_stats(b, texts)))
    alignment = step("shared words", lambda: align_words(a, b, texts))
    total, used = 0, len(texts)
    for index, spans in enumerate(alignment.spans):
        total += len(spans)
        if total >= MAX_WORDS:
            used = index + 1
            break
    step("cross CKA", lambda: cross_cka(a, b, texts[:used]))
    budget = limits.pair_tokens(a, b)
    counts = [
        max(x, y) for x, y in zip(*(limits.token_counts(m, texts) for m in (a, b)), strict=True)
    ]
    kept, running = 0, 0
    for count in counts:
        if kept and running + count > budget:
            break
        running, kept = running + count, kept + 1
    vectors = step(
        f"embed {kept} texts",
        lambda: [explorer.embed_corpus(m, texts[:kept]).sentence("mean", "last") for m in (a, b)],
    )
    step("agreement + maps", lambda: (neighbour_agreement(*vectors, 10), paired_maps(*vectors)))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'peak memory':<22} {peak:7.0f} MB")
    print(json.dumps({"seconds": seconds, "peak_mb": round(peak), "texts_embedded": kept}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
