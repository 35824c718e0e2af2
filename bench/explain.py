"""Benchmarks of the explanations (issue 26): explaining the similarity of two 128-token texts
on the bundled model under each pooling (target: mean pooling within 1 s), and the layer
comparisons and classic measurements a lesson view computes.

Each case runs once untimed (torch warms up), then ``repeat`` times (once for the slow
lesson measurements); the table gives the median and fastest seconds against the target.
``python -m bench.explain`` prints the table (``--json``: one JSON line; ``--threads N`` sets
torch's threads; ``--model FOLDER`` measures that model instead of the bundled one).
"""

from __future__ import annotations

import json
import sys

from bench.neighbors import timed

TARGETS = {"explain_mean_128": 1.0}
"""Seconds each case should stay under (issue 26)."""

FIRST = "the invoice was paid late because the accounts office had closed for the holiday . "
SECOND = "they settled the bill after the deadline when the finance team came back to work . "


def _text(model, words: str, tokens: int) -> str:
    """A text of exactly ``tokens`` tokens for ``model``, special tokens included, made of
    ``words`` repeated."""
    ids = model.tokenizer(words * 12, add_special_tokens=False)["input_ids"][: tokens - 2]
    text = model.tokenizer.decode(ids)
    if len(model.tokenize(text)) != tokens:
        raise RuntimeError(f"Could not build a {tokens}-token text for {model.name}.")
    return text


def explain_bench(
    repeat: int = 5, folder: str | None = None, tokens: int = 128, lesson: bool = True
) -> list[dict]:
    """Rows ``{"case", "tokens", "seconds", "seconds_min", "cpu_seconds", "target"}``: the
    explanations of two ``tokens``-long texts, then (``lesson``) the layer comparisons and
    classic measurements."""
    import explorer
    from explorer.data import corpora
    from explorer.explain import (
        classic_lesson,
        classic_measures,
        explain_similarity,
        layer_cka,
        sense_accuracy,
    )
    from explorer.model.loading import random_weights
    from explorer.server import limits

    model = explorer.load_model(folder)
    a, b = _text(model, FIRST, tokens), _text(model, SECOND, tokens)
    rows = []
    for pooling in ("mean", "max", "mean_max", "cls"):
        runs = repeat if pooling != "cls" else max(1, repeat // 2)

        def explain(pooling=pooling):
            explain_similarity(model, a, b, pooling, "last")

        explain()
        case = f"explain_{pooling}_{tokens}"
        rows.append(
            {"case": case, "tokens": tokens, **timed(explain, runs), "target": TARGETS.get(case)}
        )
    if not lesson:
        return rows
    sentences = [line for line in (FIRST + SECOND).split(" . ") if line.strip()] * 10
    untrained = random_weights(model)
    lesson_frame, _ = limits.cap_senses(model, corpora.load_senses())  # what the page reads
    for case, fn in (
        ("layer_cka_20_texts", lambda: layer_cka(model, sentences)),
        ("layer_cka_random_weights", lambda: layer_cka(untrained, sentences)),
        ("classic_measures", lambda: classic_measures(model, lesson_frame["text"].tolist())),
        ("sense_accuracy", lambda: sense_accuracy(model, frame=lesson_frame)),
        ("classic_lesson (both, one pass)", lambda: classic_lesson(model, lesson_frame)),
    ):
        rows.append({"case": case, "tokens": None, **timed(fn, 1), "target": None})
    return rows


def table(rows: list[dict]) -> str:
    """The rows as a plain-text table."""
    lines = [f"{'case':<32} {'tokens':>6} {'median s':>9} {'fastest s':>9} {'target s':>8}"]
    for row in rows:
        target = "-" if row["target"] is None else f"{row['target']:.1f}"
        tokens = "-" if row["tokens"] is None else str(row["tokens"])
        lines.append(
            f"{row['case']:<32} {tokens:>6} {row['seconds']:>9.3f} "
            f"{row['seconds_min']:>9.3f} {target:>8}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--threads" in argv:
        import torch

        torch.set_num_threads(int(argv[argv.index("--threads") + 1]))
    folder = argv[argv.index("--model") + 1] if "--model" in argv else None
    rows = explain_bench(folder=folder)
    print(json.dumps(rows) if "--json" in argv else table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
