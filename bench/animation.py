"""Benchmark of the layers-in-motion frames: 2,000 points x 7 layers (issue 11 item 4).

The points are real sentences (docstring sentences from Python's standard library, as the
other benchmarks), mean-pooled at every layer of the bundled model: ``(7, 2000, 384)``. One
process times, in order: PCA fitted jointly on all layers (first call, imports included,
then warm), per-layer PCA aligned by Procrustes, AlignedUMAP (first call, numba compilation
included unless its on-disk cache is warm, then a second, warm call) and, optionally,
t-SNE continued from layer to layer. Each row prints the seconds, the frames' motion
(``explorer.maps._animation.frame_motion``) and the lowest per-frame trustworthiness. The
aligned-vs-unaligned motion is printed for the PCA rows.

Targets (issue 11): frames built in <= 5 s with PCA and <= 30 s with AlignedUMAP (warm).

``python -m bench.animation [POINTS] [--pca] [--tsne] [--json]`` (``--pca``: PCA rows only).
Also printed: the machine's load average, since these 2-core machines are shared.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

TARGETS = {"pca joint (warm)": 5.0, "umap joint (warm)": 30.0}


def per_layer_vectors(n_points: int) -> np.ndarray:
    """``(L + 1, n_points, hidden)`` mean-pooled vectors of ``n_points`` real sentences."""
    from bench.embedding import bfloat16_supported
    from bench.sentences import sample_sentences
    from explorer.embeddings import embed_corpus
    from explorer.model import load_model

    texts, _ = sample_sentences(n_points)
    precision = "bfloat16" if bfloat16_supported() else "float32"
    return embed_corpus(load_model(), texts, precision=precision).per_layer("mean")


def timed_maps(name: str, per_layer: np.ndarray, **kwargs) -> dict:
    from explorer.maps import layer_maps

    start = time.perf_counter()
    maps = layer_maps(per_layer, **kwargs)
    seconds = time.perf_counter() - start
    target = TARGETS.get(name)
    return {
        "run": name,
        "seconds": round(seconds, 2),
        "target": target,
        "ok": None if target is None else seconds <= target,
        "motion": round(maps.motion, 3),
        "min_trustworthiness": min(
            (round(t, 3) for t in maps.trustworthiness if t is not None), default=None
        ),
        "frames": list(maps.frames.shape),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    points = int(next((a for a in argv if a.isdigit()), 2000))
    import os

    print("load average before: " + " ".join(f"{v:.1f}" for v in os.getloadavg()))
    start = time.perf_counter()
    per_layer = per_layer_vectors(points)
    print(
        f"embedded {points} sentences x {per_layer.shape[0]} layers in "
        f"{time.perf_counter() - start:.1f} s"
    )
    runs = [
        ("pca joint (first)", {"method": "pca"}),
        ("pca joint (warm)", {"method": "pca"}),
        ("pca procrustes", {"method": "pca", "align": "procrustes"}),
        ("pca none", {"method": "pca", "align": "none"}),
        ("pca joint (no scores)", {"method": "pca", "score": False}),
    ]
    if "--pca" not in argv:
        runs += [
            ("umap joint (first)", {"method": "umap"}),
            ("umap joint (warm)", {"method": "umap"}),
            ("umap joint (no scores)", {"method": "umap", "score": False}),
        ]
    if "--tsne" in argv:
        runs.append(("tsne joint", {"method": "tsne"}))
    rows = []
    for name, kwargs in runs:
        rows.append(timed_maps(name, per_layer, **kwargs))
        row = rows[-1]
        verdict = "" if row["ok"] is None else ("  ok" if row["ok"] else "  SLOW")
        target = "" if row["target"] is None else f" (target <= {row['target']:g} s)"
        print(
            f"{name:<20} {row['seconds']:>7.2f} s  motion {row['motion']:.3f}  "
            f"min trustworthiness {row['min_trustworthiness'] or float('nan'):.3f}"
            f"{target}{verdict}",
            flush=True,
        )
    print("load average after: " + " ".join(f"{v:.1f}" for v in os.getloadavg()))
    if "--json" in argv:
        print(json.dumps({"points": points, "layers": int(per_layer.shape[0]), "runs": rows}))
    return 0 if all(r["ok"] is not False for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
