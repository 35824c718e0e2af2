"""Benchmarks of the Attention page (issue 12): attentions and the overview grid of a 128- and
a 512-token text on the bundled model, the page's whole analysis (head statistics, rollout,
norm-weighted attention, at most :func:`explorer.server.limits.attention_tokens` tokens, as the page
reads) on top with the rise of the process's resident peak, and the masked-LM lens on a
BERT-base-sized random ``BertForMaskedLM`` (one mask, every layer; then a 512-token text of
dozens of masks, the first :data:`explorer.server.limits.MAX_LENS_MASKS` predicted, as the
page does).
``--model FOLDER`` measures that model instead (``python -m bench.model_folders``), its own
lens when it has a masked-LM head.

Each case runs once untimed (the eager copy of the encoder is made then, and torch warms up),
then ``repeat`` times; the table gives the median and fastest seconds against the target.
``python -m bench.attention`` prints the table (``--json``: one JSON line; ``--threads N``
sets torch's threads: on a machine whose cores other processes keep busy, 1 thread can be
several times faster than 2, which then wait for each other).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from bench.measure import Row, Sizes
from bench.neighbors import timed

TARGETS = {"attention_128": 2.0, "attention_512": 6.0, "lens_bert_base": 1.0}
"""Seconds each case should stay under (issue 12)."""

MB = 2**20


def _peak_rise(fn) -> float:
    """MB the process's resident peak rose over its resident size while ``fn()`` ran (the
    kernel's high-water mark, reset first through ``/proc/self/clear_refs``); NaN off Linux."""

    def status(field: str) -> int:
        text = Path("/proc/self/status").read_text()
        return int(text.split(f"{field}:")[1].split()[0]) * 1024

    try:
        Path("/proc/self/clear_refs").write_text("5")
        before = status("VmRSS")
    except OSError:
        return float("nan")
    fn()
    return (status("VmHWM") - before) / MB


def _text(model, tokens: int) -> str:
    """A text of exactly ``tokens`` tokens for ``model``, special tokens included."""
    words = (
        "the bank robber was seen fishing on the river bank , and then he left . " * 60
    ).split()
    ids = model.tokenizer(" ".join(words), add_special_tokens=False)["input_ids"][: tokens - 2]
    text = model.tokenizer.decode(ids)
    assert len(model.tokenize(text)) == tokens, len(model.tokenize(text))
    return text


def _timed(fn, repeat: int) -> dict:
    """:func:`bench.neighbors.timed` after one untimed warm-up call."""
    fn()
    return timed(fn, repeat)


def _masked_lm(model):
    """The lens of ``model`` when its checkpoint has a masked-LM head, else of a
    BERT-base-sized ``BertForMaskedLM`` with random weights and the bundled vocab
    (:mod:`bench.model_folders`, written once into the temporary folder)."""
    import explorer
    from bench.model_folders import write_folder
    from explorer import attention

    if model.masked_lm is not None:
        return attention.masked_lm_of(model)
    folder = write_folder(Path(tempfile.gettempdir()) / "explorer-bench-models", "base")
    return attention.masked_lm_of(explorer.load_model(str(folder)))


def attention_bench(repeat: int = 3, folder: str | None = None) -> list[dict]:
    """Rows ``{"case", "tokens", "seconds", "seconds_min", "target"}`` for every case, with
    the model in ``folder`` (default: the bundled model)."""
    import explorer
    from explorer import attention
    from explorer.figures.attention import overview_grid
    from explorer.server import limits

    model = explorer.load_model(folder)
    rows = []
    cap = limits.attention_tokens(model)  # the page reads at most this many
    for tokens in (128, 512):
        text = _text(model, tokens)

        def grid(text=text):
            weights = attention.attentions(model, text)
            overview_grid(weights).to_json()

        def page(text=text):
            result = attention.attention_pass(model, text, max_tokens=cap)
            attention.head_statistics(result.attentions, result.tokenization.tokens)
            attention.rollout(result.attentions)
            attention.value_norms(model, result.hidden_states)

        case = f"attention_{tokens}"
        rows.append(
            {"case": case, "tokens": tokens, **_timed(grid, repeat), "target": TARGETS[case]}
        )
        rows.append(
            {"case": f"analysis_{tokens}", "tokens": min(tokens, cap), **_timed(page, repeat),
             "target": None, "peak_rise_mb": round(_peak_rise(page))}
        )  # fmt: skip
    lm = _masked_lm(model)
    sentence = (
        "After stealing money from the bank [MASK], the robber was seen fishing on the river."
    )
    timing = _timed(lambda: attention.layer_predictions(lm, sentence, k=10), repeat)
    count = len(lm.tokenizer(sentence)["input_ids"])
    rows.append(
        {"case": "lens_bert_base", "tokens": count, **timing, "target": TARGETS["lens_bert_base"]}
    )
    masks = _text(model, 512).replace(" bank ", " [MASK] ")  # dozens of masks in 512 tokens
    found = attention.layer_predictions(lm, masks, 10, limits.MAX_LENS_MASKS)

    def page_lens():
        attention.layer_predictions(lm, masks, 10, limits.MAX_LENS_MASKS)

    rows.append(
        {"case": "lens_512", "tokens": len(found.tokens), **_timed(page_lens, repeat),
         "target": None, "masks": f"{len(found.positions)} of {found.masks_found}",
         "peak_rise_mb": round(_peak_rise(page_lens))}
    )  # fmt: skip
    return rows


def table(rows: list[dict]) -> str:
    """The rows as a plain-text table."""
    lines = [
        f"{'case':<16} {'tokens':>6} {'median s':>9} {'fastest s':>9} {'target s':>8} "
        f"{'peak +MB':>8}  masks"
    ]
    for row in rows:
        target = "-" if row["target"] is None else f"{row['target']:.1f}"
        rise = row.get("peak_rise_mb")
        lines.append(
            f"{row['case']:<16} {row['tokens']:>6} {row['seconds']:>9.3f} "
            f"{row['seconds_min']:>9.3f} {target:>8} {'-' if rise is None else rise:>8}  "
            f"{row.get('masks', '')}"
        )
    return "\n".join(lines)


def measure_attention(sizes: Sizes) -> tuple[dict, list[Row]]:
    found = attention_bench(repeat=3)
    rows = []
    for entry in found:
        target = entry["target"]
        rows.append(
            Row(
                f"Attention {entry['case']} ({entry['tokens']} tokens)",
                f"{entry['seconds']:.2f} s (fastest {entry['seconds_min']:.2f} s)",
                f"<= {target} s" if target else "",
                None if target is None else entry["seconds"] <= target,
                entry["seconds"],
            )
        )
    return {"cases": found}, rows


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--threads" in argv:  # torch's intra-op threads (default: one per core)
        import torch

        torch.set_num_threads(int(argv[argv.index("--threads") + 1]))
    folder = argv[argv.index("--model") + 1] if "--model" in argv else None
    rows = attention_bench(folder=folder)
    print(json.dumps(rows) if "--json" in argv else table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
