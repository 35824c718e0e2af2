"""Benchmark of one "Which layer?" request (issue 36.1): the page's capped sample of an uploaded
sentence task, one forward pass, then every layer probed under the four poolings, without and
with the control task (which doubles the probes' work).

The rows are what :func:`explorer.probing.sample.probe_sample` keeps for the model (the page's
caps), the folds what :func:`explorer.server.limits.probe_folds` allows for them. The texts are
made-up support tickets of five queues, about 20 tokens each, a third of them repeated.

``python -m bench.probe`` measures the bundled model; ``--model FOLDER`` another one (e.g.
a folder from ``python -m bench.model_folders OUT``); ``--json`` prints one JSON line. Wall
seconds on a shared machine are mostly waiting for a core: the CPU seconds are the work.
"""

from __future__ import annotations

import json
import sys
import time

TARGET = 30.0
"""Seconds one request should stay under."""

QUEUES = {
    "billing": "invoice refund charge payment card bill price",
    "hardware": "printer laptop screen keyboard cable battery dock",
    "access": "password login account locked reset token sign",
    "network": "wifi vpn connection router slow dropped internet",
    "software": "install update crash licence version error app",
}


def tickets(n: int = 3000, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` made-up tickets and their queues: two queue words in a fixed frame, a third of the
    rows copies of earlier ones."""
    import numpy as np

    rng = np.random.default_rng(seed)
    names = list(QUEUES)
    texts, labels = [], []
    for i in range(n):
        if i > 10 and rng.random() < 1 / 3:
            j = int(rng.integers(0, len(texts)))
            texts.append(texts[j])
            labels.append(labels[j])
            continue
        queue = names[int(rng.integers(0, len(names)))]
        a, b = rng.choice(QUEUES[queue].split(), size=2, replace=False)
        texts.append(
            f"Hello team, since this morning my {a} is not working and the {b} issue "
            f"blocks ticket {int(rng.integers(1000, 9999))}, please help."
        )
        labels.append(queue)
    return texts, labels


def probe_bench(folder: str | None = None) -> list[dict]:
    """Rows ``{"case", "rows", "folds", "seconds", "cpu_seconds", "target"}``: the forward
    pass, the probes of all four poolings without and with the control task, and the page's
    request (forward pass + probes with control)."""
    import explorer
    from explorer.pooling import POOLINGS
    from explorer.probing.folds import plan_folds
    from explorer.probing.sample import probe_sample
    from explorer.probing.scores import score_layers
    from explorer.server import limits

    model = explorer.load_model(folder)
    texts, labels = tickets()
    kept = probe_sample(model, texts, labels)
    texts = [texts[i] for i in kept.rows]
    labels = [labels[i] for i in kept.rows]
    folds, _ = limits.probe_folds(len(texts), 5)
    plan = plan_folds(labels, None, folds, 0, texts=texts)
    rows = []

    def clock(case, fn):
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        rows.append(
            {
                "case": case,
                "rows": len(texts),
                "folds": plan.folds,
                "seconds": round(time.perf_counter() - start, 2),
                "cpu_seconds": round(time.process_time() - cpu, 2),
                "target": None,
            }
        )
        return result

    embedded = clock("forward pass", lambda: explorer.embed_corpus(model, texts))
    stacks = {p: embedded.per_layer(p) for p in POOLINGS}
    for control in (False, True):
        clock(
            "probes, 4 poolings" + (" + control task" if control else ""),
            lambda control=control: [
                score_layers(stack, plan, control=control) for stack in stacks.values()
            ],
        )
    request = rows[0]["seconds"] + rows[2]["seconds"]
    rows.append(
        {
            "case": "request (forward + probes with control)",
            "rows": len(texts),
            "folds": plan.folds,
            "seconds": round(request, 2),
            "cpu_seconds": round(rows[0]["cpu_seconds"] + rows[2]["cpu_seconds"], 2),
            "target": TARGET,
        }
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    folder = argv[argv.index("--model") + 1] if "--model" in argv else None
    rows = probe_bench(folder)
    if "--json" in argv:
        print(json.dumps(rows))
        return 0
    print(f"{'case':<44} {'rows':>5} {'folds':>5} {'wall s':>7} {'cpu s':>7} {'target':>6}")
    for row in rows:
        target = "" if row["target"] is None else f"{row['target']:.0f}"
        print(
            f"{row['case']:<44} {row['rows']:>5} {row['folds']:>5} {row['seconds']:>7.2f} "
            f"{row['cpu_seconds']:>7.2f} {target:>6}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
