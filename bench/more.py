"""The measurements added with the explorer's second round of features: neighbours, attention
and the lens, t-SNE through openTSNE, layers in motion, corpus stores. Each returns
``(data, rows)`` like the measurements in :mod:`bench.run`; they run in a full bench run
(``python -m bench``) or by name (``--only tsne,store``), not in ``--quick``."""

from __future__ import annotations

import tempfile
from pathlib import Path


def _row(measure: str, result: str, target: str = "", met=None, value=None):
    from bench.run import Row

    return Row(measure, result, target, met, value)


def measure_neighbors(sizes) -> tuple[dict, list]:
    from bench.neighbors import neighbors_bench, table_rows

    data = neighbors_bench()
    return data, table_rows(data)


def measure_attention(sizes) -> tuple[dict, list]:
    from bench.attention import attention_bench

    found = attention_bench(repeat=3)
    rows = []
    for entry in found:
        target = entry["target"]
        rows.append(
            _row(
                f"Attention {entry['case']} ({entry['tokens']} tokens)",
                f"{entry['seconds']:.2f} s (fastest {entry['seconds_min']:.2f} s)",
                f"<= {target} s" if target else "",
                None if target is None else entry["seconds"] <= target,
                entry["seconds"],
            )
        )
    return {"cases": found}, rows


def measure_tsne(sizes) -> tuple[dict, list]:
    from bench.projections import embed_points, tsne_comparison

    data, rows = {}, []
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        points = str(Path(tmp) / "points.npy")
        embed_points(10_000, points)
        for n in (5_000, 10_000):
            result = tsne_comparison(n, points)
            data[str(n)] = result
            ours, theirs = result["opentsne"], result["sklearn"]
            speed = n != 5_000 or result["speedup"] >= 4
            quality = result["trustworthiness_drop"] <= 0.01
            rows.append(
                _row(
                    f"t-SNE {n:,} points: openTSNE vs scikit-learn",
                    f"{result['speedup']:.1f}x ({ours['seconds']:.1f} s vs "
                    f"{theirs['seconds']:.1f} s); trustworthiness {ours['trustworthiness']:.3f} vs "
                    f"{theirs['trustworthiness']:.3f}",
                    ">= 4x, drop <= 0.01" if n == 5_000 else "<= 10 s",
                    (speed and quality) if n == 5_000 else ours["seconds"] <= 10,
                    result["speedup"] if n == 5_000 else ours["seconds"],
                )
            )
    return data, rows


def measure_animation(sizes) -> tuple[dict, list]:
    from bench.animation import per_layer_vectors, timed_maps

    per_layer = per_layer_vectors(2_000)
    runs = [
        timed_maps("pca joint (first)", per_layer, method="pca"),
        timed_maps("pca joint (warm)", per_layer, method="pca"),
        timed_maps("umap joint (first)", per_layer, method="umap"),
        timed_maps("umap joint (warm)", per_layer, method="umap"),
    ]
    rows = [
        _row(
            f"Layers in motion, 2,000 points x {per_layer.shape[0]} layers, {run['run']}",
            f"{run['seconds']:.1f} s (motion {run['motion']})",
            "" if run["target"] is None else f"<= {run['target']:.0f} s",
            run["ok"],
            run["seconds"],
        )
        for run in runs
    ]
    return {"runs": runs}, rows


def measure_store(sizes) -> tuple[dict, list]:
    from bench.store import large_store, throughput

    speed = throughput(2_000, 3)
    big = large_store(1_000_000)
    return {"throughput": speed, "large": big}, [
        _row(
            "explorer embed (all layers, cls/mean/max, to disk) vs sentence-transformers",
            f"{speed['ratio']:.2f}x",
            ">= 1.4x",
            speed["ratio"] >= 1.4,
            speed["ratio"],
        ),
        _row(
            "1,000,000-row store: open / first search / second search over all rows",
            f"{big['open_s']:.2f} s / {big['first_search_s']:.2f} s / "
            f"{big['second_search_s']:.2f} s",
            "<= 5 s / <= 0.3 s",
            big["second_search_s"] <= 0.3 and big["open_s"] <= 5,
            big["second_search_s"],
        ),
    ]
