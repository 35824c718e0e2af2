"""Benchmarks of the projections: PCA, UMAP and t-SNE, first call in a fresh process and warm.

The points are real sentence vectors (mean pooling, last layer, as the projections page shows
by default). Each (method, size) runs in its own fresh process, which times its first fit
(imports and numba compilation included) and then a second, warm fit. Fits go through
``explorer.maps.Projector``, as the app does (trustworthiness included, and timed
apart as well).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from bench.measure import Row, Sizes, run_child


def embed_points(n_points: int, path: str) -> dict:
    """Embed ``n_points`` real sentences and save the ``(n, hidden)`` vectors to ``path``."""
    from bench.embedding import bfloat16_supported
    from bench.sentences import sample_sentences
    from explorer.embeddings import embed_corpus
    from explorer.model import load_model

    texts, info = sample_sentences(n_points)
    # bfloat16 only makes the set-up faster; its vectors are within 1e-4 cosine of float32.
    precision = "bfloat16" if bfloat16_supported() else "float32"
    start = time.perf_counter()
    corpus = embed_corpus(load_model(), texts, precision=precision)
    np.save(path, corpus.sentence("mean", "last"))
    return {**info, "precision": precision, "seconds": time.perf_counter() - start}


def projection_child(method: str, n_points: int, path: str, warm: bool, plain: bool) -> dict:
    """In a fresh process: seconds of the first and (if ``warm``) a second ``Projector`` fit.

    ``plain`` imports umap-learn as is, without :func:`explorer.maps._umap.import_umap`'s
    on-disk caching of its numba functions (to measure what that caching saves).
    """
    start = time.perf_counter()
    if method == "umap":
        if plain:
            import umap  # noqa: F401 - imported here so its compilation is timed
        else:
            from explorer.maps import import_umap

            import_umap()
    from explorer.maps import Projector

    points = np.load(path)[:n_points]
    projector = Projector(method, random_state=0).fit(points)
    first = time.perf_counter() - start
    result = {"method": method, "points": n_points, "first": first}
    if warm:
        start = time.perf_counter()
        projector = Projector(method, random_state=0).fit(points)
        result["warm"] = time.perf_counter() - start
        from explorer.maps import trustworthiness

        start = time.perf_counter()
        trustworthiness(points, projector.embedding_)  # as Projector.fit computes it
        result["trustworthiness_seconds"] = time.perf_counter() - start
    result["trustworthiness"] = projector.trustworthiness_
    return result


def sklearn_tsne(X: np.ndarray, n_components: int = 2, perplexity: float = 30.0) -> np.ndarray:
    """scikit-learn's ``TSNE`` with the settings ``Projector`` used before openTSNE
    (Barnes-Hut, PCA initialisation, learning rate ``"auto"``, 1,000 iterations, one
    OpenMP thread): the baseline of :func:`tsne_comparison`. ``(n, n_components)``."""
    from sklearn.manifold import TSNE
    from threadpoolctl import threadpool_limits

    tsne = TSNE(
        n_components=n_components,
        perplexity=perplexity,
        random_state=0,
        init="pca",
        learning_rate="auto",
    )
    with threadpool_limits(limits=1, user_api="openmp"):
        return tsne.fit_transform(X)


def tsne_comparison(n_points: int, path: str | None = None) -> dict:
    """``Projector(method="tsne")`` (openTSNE) against scikit-learn's ``TSNE``, same points.

    ``path`` is a ``.npy`` file of sentence vectors from :func:`embed_points` (at least
    ``n_points`` rows); without it, ``n_points`` sentences are embedded first (about 75 s
    for 10,000 on 2 cores). Both run in this process, one after the other, after a small
    warm-up fit of each (imports, first-call costs), so the ratio is measured under the same
    load. Returns ``{"points", "sklearn": {...}, "opentsne": {...}, "speedup",
    "trustworthiness_drop"}``; each side has ``seconds`` (wall), ``cpu_seconds`` (this
    process) and ``trustworthiness`` (:func:`explorer.maps.trustworthiness`, 5
    neighbours, estimated from 2,000 random points above 2,000, as the page shows it).
    openTSNE's ``seconds`` is the whole ``Projector.fit``, its trustworthiness included.
    """
    import tempfile

    from explorer.maps import Projector, trustworthiness

    if path is None:
        with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
            path = f"{tmp}/points.npy"
            embed_points(n_points, path)
            points = np.load(path)
    else:
        points = np.load(path)
    if len(points) < n_points:
        raise ValueError(f"{path} holds {len(points)} vectors; {n_points} were asked for.")
    points = np.ascontiguousarray(points[:n_points], dtype=np.float32)
    Projector("tsne").fit(points[:200])  # warm: imports and first calls
    sklearn_tsne(points[:200])

    wall, cpu = time.perf_counter(), time.process_time()
    reference = sklearn_tsne(points)
    sklearn = {
        "seconds": time.perf_counter() - wall,
        "cpu_seconds": time.process_time() - cpu,
        "trustworthiness": trustworthiness(points, reference),
    }
    wall, cpu = time.perf_counter(), time.process_time()
    projector = Projector("tsne", random_state=0).fit(points)
    ours = {
        "seconds": time.perf_counter() - wall,
        "cpu_seconds": time.process_time() - cpu,
        "trustworthiness": projector.trustworthiness_,
    }
    return {
        "points": n_points,
        "sklearn": sklearn,
        "opentsne": ours,
        "speedup": sklearn["seconds"] / ours["seconds"],
        "cpu_speedup": sklearn["cpu_seconds"] / ours["cpu_seconds"],
        "trustworthiness_drop": sklearn["trustworthiness"] - ours["trustworthiness"],
    }


def knn_accuracy(points: np.ndarray, labels: np.ndarray, k: int = 5) -> float:
    """Leave-one-out ``k``-NN accuracy of ``labels`` ``(n,)`` among ``points`` ``(n, d)``
    (Euclidean): the share of points whose ``k`` nearest others mostly carry their label
    (a tie goes to the label of the nearer neighbours)."""
    points = np.asarray(points, dtype=np.float64)
    distances = ((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(distances, np.inf)
    nearest = np.argsort(distances, axis=1, kind="stable")[:, :k]
    right = 0
    for row, found in zip(labels, labels[nearest], strict=True):
        names, counts = np.unique(found, return_counts=True)
        best = [name for name, count in zip(names, counts, strict=True) if count == counts.max()]
        right += row == next(name for name in found if name in best)
    return right / len(labels)


def sense_accuracy(k: int = 5) -> list[dict]:
    """For each word of the bundled labelled senses (``explorer.data.corpora.load_senses()``):
    ``k``-NN sense accuracy of its occurrence vectors (the page's default word vectors) in
    the full space and on the ``Projector("tsne")`` map; issue 11 asks the map to stay
    within 0.02 of the full space. Returns ``[{"word", "points", "full", "map"}, ...]``."""
    from explorer.data.corpora import load_senses
    from explorer.maps import Projector
    from explorer.model import load_model
    from explorer.words import word_vectors

    model, senses, results = load_model(), load_senses(), []
    for word, rows in senses.groupby("word", sort=True):
        occurrences, vectors = word_vectors(model, list(rows["text"]), word)
        labels = rows["sense"].to_numpy()[[o.text_index for o in occurrences]]
        coords = Projector("tsne", random_state=0).fit_transform(vectors)
        results.append(
            {
                "word": word,
                "points": len(labels),
                "full": knn_accuracy(vectors, labels, k),
                "map": knn_accuracy(coords, labels, k),
            }
        )
    return results


def measure_projections(sizes: Sizes) -> tuple[dict, list[Row]]:
    rows: list[Row] = []
    data: dict = {"fits": []}
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        points = str(Path(tmp) / "points.npy")
        data["points"] = embed_points(max(sizes.points), points)
        if sizes.cache_experiment:  # the cache's rows start from an empty one
            numba = {"NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}
        else:  # the smoke test: the app's own on-disk cache, as a server's later processes
            from explorer.maps import configure_numba_cache

            numba = {"NUMBA_CACHE_DIR": str(configure_numba_cache())}
        if sizes.cache_experiment and "umap" in sizes.methods:
            n = str(min(sizes.points))
            runs = {
                "empty numba cache": run_child(
                    "projection", "umap", n, points, "--cold-only", env=numba
                ),
                "numba cache on disk": run_child(
                    "projection", "umap", n, points, "--cold-only", env=numba
                ),
                "cache on disk, umap-learn's own caching only": run_child(
                    "projection", "umap", n, points, "--cold-only", "--plain", env=numba
                ),
            }
            data["umap_first_call"] = {k: v["first"] for k, v in runs.items()}
            for what, run in runs.items():
                rows.append(
                    Row(
                        f"UMAP {int(n):,} points, first call in a new process, {what}",
                        f"{run['first']:.1f} s",
                    )
                )
        for method in sizes.methods:
            for n in sizes.points:
                fit = run_child("projection", method, str(n), points, env=numba)
                data["fits"].append(fit)
                label = {"pca": "PCA", "umap": "UMAP", "tsne": "t-SNE"}[method]
                row = Row(
                    f"{label} {n:,} points: first call (new process) / warm",
                    f"{fit['first']:.1f} s / {fit['warm']:.2f} s "
                    f"(trustworthiness {fit['trustworthiness_seconds']:.2f} s of it)",
                )
                if method == "umap" and n == 2000:
                    row.target, row.met, row.value = "warm <= 3 s", fit["warm"] <= 3, fit["warm"]
                rows.append(row)
    return data, rows


def measure_tsne(sizes: Sizes) -> tuple[dict, list[Row]]:
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
                Row(
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


def main(argv: list[str] | None = None) -> None:
    """``python -m bench.projections [N ...] [--points PATH] [--senses]``:
    :func:`tsne_comparison` for each ``N`` (default 2,000, 5,000 and 10,000), a table, then
    one line of JSON; ``--senses`` prints :func:`sense_accuracy` instead."""
    import argparse
    import json
    import tempfile

    parser = argparse.ArgumentParser(prog="python -m bench.projections")
    parser.add_argument("sizes", nargs="*", type=int, default=[2000, 5000, 10_000])
    parser.add_argument("--points", help=".npy of sentence vectors (else embedded first)")
    parser.add_argument("--senses", action="store_true", help="5-NN sense accuracy only")
    args = parser.parse_args(argv)
    if args.senses:
        found = sense_accuracy()
        for r in found:
            print(
                f"{r['word']:>8} ({r['points']} points): full {r['full']:.3f}, map {r['map']:.3f}"
            )
        full, on_map = (float(np.mean([r[key] for r in found])) for key in ("full", "map"))
        print(f"    mean: full {full:.3f}, map {on_map:.3f} (within 0.02: {on_map >= full - 0.02})")
        print(json.dumps(found))
        return
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        path = args.points
        if path is None:
            path = f"{tmp}/points.npy"
            embed_points(max(args.sizes), path)
        print("points   scikit-learn TSNE         Projector('tsne') (openTSNE)   speed-up")
        results = []
        for n in args.sizes:  # one row as soon as it is measured
            r = tsne_comparison(n, path)
            results.append(r)
            sk, ot = r["sklearn"], r["opentsne"]
            print(
                f"{r['points']:>6,}   {sk['seconds']:6.1f} s  tw {sk['trustworthiness']:.4f}"
                f"     {ot['seconds']:6.1f} s (CPU {ot['cpu_seconds']:.1f} s)"
                f"  tw {ot['trustworthiness']:.4f}"
                f"         {r['speedup']:.1f}x (CPU {r['cpu_speedup']:.1f}x)",
                flush=True,
            )
    print(json.dumps(results))


if __name__ == "__main__":
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    main()
