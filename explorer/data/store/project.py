"""Saving a 2-D projection of a store's vectors in the store (``explorer project``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from explorer.choice import VectorChoice, vector_choice
from explorer.data.store import placing
from explorer.data.store.corpus import Corpus, projection_choice
from explorer.data.store.format import now, read_manifest, save_npy, write_manifest
from explorer.layers import Layers


def save_projection(
    path: str | os.PathLike,
    method: str = "pca",
    pooling: VectorChoice | str = "mean",
    layers: Layers | None = None,
    *,
    sample: int | None = None,
    random_state: int = 0,
    fit_sample: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Fit :class:`explorer.maps.Projector` on the store's vectors under one
    :class:`explorer.VectorChoice` (or pooling name and ``layers``; no post-processing: a saved
    map is of the stored vectors), all rows or ``sample`` rows drawn at random with
    ``random_state``, and save the ``(points, 2)`` float32 coordinates (and the sampled row
    indices) in ``projections/``; the manifest lists them with their choice (a projection
    with the same method and choice is replaced). Returns the manifest entry, with
    ``trustworthiness`` and ``notes``.

    PCA and UMAP of more than ``fit_sample`` rows (default
    :data:`~explorer.data.store.placing.FIT_SAMPLE`; 0: never) are fitted on ``fit_sample``
    of them drawn at random (``random_state``) and the rest placed by the model's
    ``transform``, read from the store a chunk at a time (``progress(done, total)`` after
    each); the entry says so (``fit_sample``, ``placed_by``: ``"transform"``, and
    ``fit_rows_file``), and its trustworthiness is then estimated on ``fit_sample`` rows drawn
    at random from all of them.
    """
    from explorer.maps import Projector, min_points, validate_method

    validate_method(method)
    choice = vector_choice(pooling, layers)
    if choice.post != "none":
        raise ValueError(
            f"A saved map is of the stored vectors: post-processing {choice.post!r} is not saved."
        )
    pooling, layers = choice.pooling, choice.layers
    corpus = Corpus(path)
    n = len(corpus)
    rows = None
    if sample is not None:
        if sample < 1:
            raise ValueError(f"--sample must be at least 1, not {sample}.")
        if sample < n:
            rng = np.random.default_rng(random_state)
            rows = np.sort(rng.choice(n, size=sample, replace=False)).astype(np.int64)
    if fit_sample is None:
        fit_sample = placing.FIT_SAMPLE
    if fit_sample < 0:
        raise ValueError(f"--fit-sample must be 0 (fit on every row) or more, not {fit_sample}.")
    if 0 < fit_sample < min_points(method):
        raise ValueError(f"--fit-sample must be at least {min_points(method)}, not {fit_sample}.")
    points = n if rows is None else len(rows)
    fit_rows = None
    if 0 < fit_sample < points and method != "tsne":
        fit_rows, coords, trust, notes = _fit_on_sample(
            corpus, choice, rows, points, method, fit_sample, random_state, progress
        )
    else:
        vectors = corpus.sentence(choice, rows=rows)
        projector = Projector(method, 2, random_state=random_state).fit(vectors)
        coords, trust, notes = projector.embedding_, projector.trustworthiness_, projector.notes_
    name = f"{method}-{pooling}-{layers}"
    folder = Path(path)
    entry = {
        "method": method,
        "pooling": pooling,
        "layers": layers,
        "choice": asdict(choice),
        "file": f"projections/{name}.npy",
        "rows_file": f"projections/{name}.rows.npy" if rows is not None else None,
        "points": points,
        "of_rows": n,
        "trustworthiness": trust,
        "notes": notes,
        "random_state": random_state,
        "fit_sample": None if fit_rows is None else len(fit_rows),
        "placed_by": None if fit_rows is None else "transform",
        "fit_rows_file": None if fit_rows is None else f"projections/{name}.fit_rows.npy",
        "created": now(),
    }
    save_npy(folder / entry["file"], np.asarray(coords, dtype=np.float32))
    if rows is not None:
        save_npy(folder / entry["rows_file"], rows)
    if fit_rows is not None:
        save_npy(folder / entry["fit_rows_file"], fit_rows)
    manifest = read_manifest(folder)
    kept = [
        p
        for p in manifest.get("projections", [])
        if (p["method"], projection_choice(p)) != (method, choice)
    ]
    manifest["projections"] = [*kept, entry]
    write_manifest(folder, manifest)
    return entry


def _fit_on_sample(corpus, choice, rows, points, method, size, random_state, progress):
    """``(fit positions, coordinates (points, 2), trustworthiness, notes)``: a fit on ``size``
    of the ``points`` projected rows (positions among them, sorted) and the rest placed."""
    from explorer.maps import trustworthiness

    rng = np.random.default_rng(random_state)
    fit_rows = np.sort(rng.choice(points, size=size, replace=False)).astype(np.int64)

    def read(positions: np.ndarray) -> np.ndarray:
        return corpus.sentence(choice, rows=positions if rows is None else rows[positions])

    coords, fit = placing.fit_and_place(read, points, method, fit_rows, random_state, progress)
    # the map's quality over placed and fitted rows alike: a fresh sample of as many rows
    check = np.sort(np.random.default_rng(random_state + 1).choice(points, size, replace=False))
    trust = trustworthiness(read(check), coords[check])
    notes = [
        *fit.notes,
        f"Fitted on a random sample of {size:,} of the {points:,} rows; the other "
        f"{points - size:,} were placed by the fitted model's transform.",
    ]
    return fit_rows, coords, float(trust), notes
