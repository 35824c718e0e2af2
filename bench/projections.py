"""Benchmarks of the projections: PCA, UMAP and t-SNE, first call in a fresh process and warm.

The points are real sentence vectors (mean pooling, last layer, as the projections page shows
by default). Each (method, size) runs in its own fresh process, which times its first fit
(imports and numba compilation included) and then a second, warm fit. Fits go through
``explorer.projection.Projector``, as the app does (trustworthiness included, and timed
apart as well).
"""

from __future__ import annotations

import time

import numpy as np


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

    ``plain`` imports umap-learn as is, without :func:`explorer.warmup.import_umap`'s
    on-disk caching of its numba functions (to measure what that caching saves).
    """
    start = time.perf_counter()
    if method == "umap":
        if plain:
            import umap  # noqa: F401 - imported here so its compilation is timed
        else:
            from explorer.warmup import import_umap

            import_umap()
    from explorer.projection import Projector

    points = np.load(path)[:n_points]
    projector = Projector(method, random_state=0).fit(points)
    first = time.perf_counter() - start
    result = {"method": method, "points": n_points, "first": first}
    if warm:
        start = time.perf_counter()
        projector = Projector(method, random_state=0).fit(points)
        result["warm"] = time.perf_counter() - start
        from explorer.projection import trustworthiness

        start = time.perf_counter()
        trustworthiness(points, projector.embedding_)  # as Projector.fit computes it
        result["trustworthiness_seconds"] = time.perf_counter() - start
    result["trustworthiness"] = projector.trustworthiness_
    return result
