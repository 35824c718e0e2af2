"""Saving a 2-D projection of a store's vectors in the store (``explorer project``)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from explorer.data.store import format as fmt
from explorer.data.store.corpus import Corpus
from explorer.layers import Layers


def save_projection(
    path: str | os.PathLike,
    method: str = "pca",
    pooling: str = "mean",
    layers: Layers = "last",
    *,
    sample: int | None = None,
    random_state: int = 0,
) -> dict:
    """Fit :class:`explorer.maps.Projector` on the store's ``pooling``/``layers``
    vectors (all rows, or ``sample`` rows drawn at random with ``random_state``) and save the
    ``(points, 2)`` float32 coordinates (and the sampled row indices) in ``projections/``;
    the manifest lists them (a projection with the same method, pooling and layers is
    replaced). Returns the manifest entry, with ``trustworthiness`` and ``notes``.
    """
    from explorer.maps import Projector, validate_method

    validate_method(method)
    corpus = Corpus(path)
    n = len(corpus)
    rows = None
    if sample is not None:
        if sample < 1:
            raise ValueError(f"--sample must be at least 1, not {sample}.")
        if sample < n:
            rng = np.random.default_rng(random_state)
            rows = np.sort(rng.choice(n, size=sample, replace=False)).astype(np.int64)
    vectors = corpus.sentence(pooling, layers)
    if rows is not None:
        vectors = vectors[rows]
    projector = Projector(method, 2, random_state=random_state).fit(vectors)
    name = f"{method}-{pooling}-{layers}"
    folder = Path(path)
    entry = {
        "method": method,
        "pooling": pooling,
        "layers": layers,
        "file": f"projections/{name}.npy",
        "rows_file": f"projections/{name}.rows.npy" if rows is not None else None,
        "points": len(vectors),
        "of_rows": n,
        "trustworthiness": projector.trustworthiness_,
        "notes": projector.notes_,
        "random_state": random_state,
        "created": fmt.now(),
    }
    fmt.save_npy(folder / entry["file"], projector.embedding_.astype(np.float32))
    if rows is not None:
        fmt.save_npy(folder / entry["rows_file"], rows)
    manifest = fmt.read_manifest(folder)
    kept = [
        p
        for p in manifest.get("projections", [])
        if (p["method"], p["pooling"], p["layers"]) != (method, pooling, layers)
    ]
    manifest["projections"] = [*kept, entry]
    fmt.write_manifest(folder, manifest)
    return entry
