"""Projections in Words mode on a large model: what a rerun costs once the lines are in.

``python -m bench.words_rerun --model FOLDER [--lines 31] [--words 500] [--every 2]`` offers
``FOLDER`` (``EXPLORER_MODELS``), picks it in the sidebar and runs the Projections page in this
process (Streamlit's ``AppTest``, no browser): Words mode, the word "bank" every ``--every``-th
word of ``--lines`` pasted lines of ``--words`` random words (:func:`text`). It times the first
run (the forward passes and a PCA), three reruns that change nothing (median; wall seconds and
this process's CPU seconds, which do not grow with the machine's load), a switch to UMAP and to
t-SNE, and back to PCA, and prints the load average beside them (the machine may be busy) and
this process's peak RSS. Issue 32, 5b: with a BERT-base-sized model every rerun ran the forward
passes again (15-18 s; a method switch 33-35 s), every layer of the occurrences' vectors being
more than the results pool keeps beside the weights. With "bank" every 2nd word the page keeps
about 4,800 occurrences within its token cap, 190 MB at every layer of BERT-base, over the 128
MB the pool keeps beside BERT-base's weights; every 4th word, 96 MB, which fits when nothing
else is in the pool.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def text(n_lines: int, n_words: int, every: int, seed: int = 0) -> str:
    """``n_lines`` lines of ``n_words`` random words (:data:`bench.soak_steps.VOCABULARY`),
    every ``every``-th of them "bank"."""
    from bench.soak_steps import words

    rng = random.Random(seed)
    out = []
    for k in range(n_lines):
        row = words(rng, n_words)
        row[::every] = ["bank"] * len(row[::every])
        out.append(f"Line {k} " + " ".join(row) + ".")
    return "\n".join(out)


def measure(folder: str, n_lines: int, n_words: int, every: int, timeout: float = 900.0) -> dict:
    """Seconds of each step (see the module), with the load average at the start and end."""
    os.environ["EXPLORER_MODELS"] = folder
    from streamlit.testing.v1 import AppTest

    from explorer.server import settings

    config = settings.from_environment()
    label = next(c.label for c in config.models if c.source == str(Path(folder).expanduser()))
    result: dict = {"load_start": os.getloadavg()}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout).run()
    at.selectbox(key="model").set_value(label).run()
    at.switch_page("pages/projections.py").run()
    at.radio(key="projections.level").set_value("words").run()
    at.radio(key="projections.source").set_value("paste").run()
    start = time.perf_counter()
    at.text_area(key="projections.lines").input(text(n_lines, n_words, every)).run()
    result["first_run"] = time.perf_counter() - start
    from explorer.server.warmup import warm_up_umap

    warm_up_umap().join(timeout=timeout)  # the server's one-off UMAP compilation, not a rerun
    reruns, cpu = [], []
    for _ in range(3):
        start, start_cpu = time.perf_counter(), time.process_time()
        at.run()
        reruns.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    result["reruns"] = reruns
    result["rerun"] = statistics.median(reruns)
    result["rerun_cpu"] = statistics.median(cpu)
    for method in ("umap", "tsne", "pca"):
        start = time.perf_counter()
        at.radio(key="projections.method").set_value(method).run()
        result[method] = time.perf_counter() - start
    result["exceptions"] = [e.message for e in at.exception]
    result["maps"] = len(at.get("plotly_chart"))
    result["title"] = at.get("plotly_chart")[0].proto.spec.split('"text":"', 1)[-1][:60]
    result["load_end"] = os.getloadavg()
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.words_rerun", description=__doc__)
    parser.add_argument("--model", required=True, help="a model folder (BERT-base-sized...)")
    parser.add_argument("--lines", type=int, default=31)
    parser.add_argument("--words", type=int, default=500)
    parser.add_argument("--every", type=int, default=2, help='"bank" every this many words')
    args = parser.parse_args(argv)
    r = measure(args.model, args.lines, args.words, args.every)
    load = " ".join(f"{x:.1f}" for x in r["load_start"])
    print(f"load average at start {load}; at end {' '.join(f'{x:.1f}' for x in r['load_end'])}")
    print(f"first run (forward passes + PCA)      {r['first_run']:7.1f} s")
    print(
        f"rerun, nothing changed (median of 3)   {r['rerun']:7.2f} s  "
        f"({', '.join(f'{s:.2f}' for s in r['reruns'])}); CPU {r['rerun_cpu']:.2f} s"
    )
    print(f"switch to UMAP                         {r['umap']:7.1f} s")
    print(f"switch to t-SNE                        {r['tsne']:7.1f} s")
    print(f"back to PCA (cached map)               {r['pca']:7.2f} s")
    print(f"peak RSS of this process {r['peak_rss_mb']:,} MB; {r['maps']} map(s): {r['title']}")
    if r["exceptions"]:
        print("EXCEPTIONS:", r["exceptions"])
    return 1 if r["exceptions"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
