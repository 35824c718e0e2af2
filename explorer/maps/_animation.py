"""Layers in motion: one map per layer of the same points, aligned so points do not jump.

A map of layer 3 and a map of layer 4 drawn independently are not comparable: PCA may flip
an axis, UMAP and t-SNE may rotate or mirror the whole picture. :func:`layer_maps` draws every
layer ``0..L`` of the same texts (or word occurrences) so that consecutive frames share their
frame of reference, and only what the model changed moves:

- ``align="joint"`` (the default) uses each method's own way of aligning: PCA is fitted once
  on all layers together; UMAP is umap-learn's ``AlignedUMAP`` (a regularisation term keeps
  each point close to itself in the next layer); t-SNE starts from the previous layer's map.
- ``align="procrustes"``: each layer is mapped on its own, then rotated/reflected onto the
  previous frame (orthogonal Procrustes over all points: the rotation that moves points least).
- ``align="none"``: each layer mapped on its own (the baseline; frames may jump).

Before any method sees them, each layer's vectors are centred and scaled to unit RMS spread:
hidden states grow and drift from layer to layer, and a joint PCA would show mostly *that*
drift (every layer a separate blob), not how the points are arranged within each layer.

:func:`frame_motion` measures how much the points move between consecutive frames, relative to
the frames' spread: aligned frames move less than unaligned ones (tested).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from explorer.maps._projector import LABELS, PROJECTIONS, Projector, min_points, validate_method
from explorer.maps._quality import trustworthiness
from explorer.maps._tsne import checked_gradient
from explorer.maps._umap import EXACT_NEIGHBORS_BELOW, mark_compiled

ALIGNMENTS = ("joint", "procrustes", "none")
Alignment = Literal["joint", "procrustes", "none"]

ALIGNMENT_LABELS = {
    "joint": "aligned (PCA of all layers together, UMAP of all layers at once, t-SNE from the "
    "previous layer)",
    "procrustes": "each layer on its own, rotated onto the previous one",
    "none": "each layer on its own (frames may jump)",
}

Progress = Callable[[int, int], None]

TRUSTWORTHINESS_QUERIES = 500
"""Per-frame trustworthiness is estimated from this many random points above that many (about
0.005 from the exact value): seven exact scores of 2,000 points cost more than a joint PCA."""

TSNE_EXACT_BELOW = 1000
"""openTSNE finds exact neighbours below this many points (Annoy above)."""

TSNE_FFT_ABOVE = 5000
"""openTSNE uses Barnes-Hut below this many points, FFT interpolation above (its grid costs
about as much per iteration whatever the number of points)."""

ALIGNED_UMAP_EPOCHS = 100
"""Epochs of the joint AlignedUMAP optimisation (umap-learn's default is 200). Its epoch visits
every edge of every layer's graph: at 2,000 points x 7 layers 0.29 s an epoch, 57 of the 66 s
a run took. 100 epochs: 34 s, the frames' lowest trustworthiness 0.745 instead of 0.757 and
the same motion between frames (``python -m bench.animation``)."""

ALIGNED_UMAP_NEIGHBORS = 8
"""Most neighbours per point in each layer's graph of the joint AlignedUMAP (the map's own UMAP
uses the page's count, 15 by default). Every epoch visits every edge of all the graphs, so
fewer neighbours mean less work: at 2,000 points x 7 layers 27.8 s warm instead of 34.6 s, and
the frames' lowest trustworthiness 0.763 instead of 0.745 (the frames show where each point's
closest company goes; ``python -m bench.animation``). The page says when the count was
lowered."""

TSNE_CONTINUE_ITERATIONS = 250
"""Iterations of a layer's t-SNE started from the previous layer's map."""


@dataclass(frozen=True)
class LayerMaps:
    """One map per layer of the same points.

    ``frames`` is ``(L + 1, n, k)`` float32 (frame ``i`` is layer ``i``; 0 = embeddings),
    ``trustworthiness[i]`` the trustworthiness of frame ``i`` against layer ``i``'s vectors
    (``None`` with too few points), ``motion`` :func:`frame_motion` of the frames, ``notes``
    sentences about what was adjusted. ``explained_variance_ratio`` ``(k,)``: with PCA
    aligned ``"joint"`` (one PCA, the frames' shared axes), each axis's share of the variance
    of all layers' points together (each layer standardised first, :func:`standardize_layers`);
    else ``None`` (each frame has its own projection).
    """

    frames: np.ndarray
    method: str
    align: str
    trustworthiness: tuple[float | None, ...]
    motion: float
    notes: tuple[str, ...] = ()
    explained_variance_ratio: np.ndarray | None = None

    @property
    def num_frames(self) -> int:
        return self.frames.shape[0]


def validate_alignment(align: str) -> str:
    """Return ``align`` if it is one of :data:`ALIGNMENTS`, else raise ``ValueError``."""
    if align not in ALIGNMENTS:
        raise ValueError(f"Unknown alignment {align!r}; choose one of {ALIGNMENTS}")
    return align


def standardize_layers(per_layer: np.ndarray) -> np.ndarray:
    """Each layer centred on its mean and divided by its RMS distance to that mean.

    ``per_layer`` ``(L + 1, n, d)`` -> float32 of the same shape. A layer whose points all
    coincide is left centred (all zeros) rather than divided by zero.
    """
    X = np.asarray(per_layer, dtype=np.float32)
    X = X - X.mean(axis=1, keepdims=True)
    spread = np.sqrt((X * X).sum(axis=2).mean(axis=1))
    spread[spread == 0] = 1.0
    return X / spread[:, None, None]


def procrustes(base: np.ndarray, moving: np.ndarray) -> np.ndarray:
    """``moving`` ``(n, k)`` rotated/reflected (about its centroid) onto ``base`` ``(n, k)``.

    The orthogonal ``R`` minimising ``|base_c - moving_c @ R|`` (``_c``: centred), then
    shifted to ``base``'s centroid; distances within ``moving`` are unchanged.
    """
    base_mean, moving_mean = base.mean(axis=0), moving.mean(axis=0)
    U, _, Vt = np.linalg.svd((moving - moving_mean).T @ (base - base_mean))
    return ((moving - moving_mean) @ (U @ Vt) + base_mean).astype(np.float32)


def frame_motion(frames: np.ndarray) -> float:
    """Mean distance a point moves between consecutive frames, in units of the frames' spread.

    ``frames`` ``(F, n, k)``; the spread is the mean over frames of the RMS distance of the
    points to their centroid. 0 = nothing moves; a frame mirrored against the previous one
    scores around 1-1.5. Returns 0.0 for a single frame.
    """
    frames = np.asarray(frames, dtype=np.float64)
    if frames.ndim != 3:
        raise ValueError(f"Expected frames (F, n, k), got shape {frames.shape}.")
    if frames.shape[0] < 2:
        return 0.0
    centred = frames - frames.mean(axis=1, keepdims=True)
    spread = np.sqrt((centred**2).sum(axis=2).mean(axis=1)).mean()
    if spread == 0:
        return 0.0
    steps = np.linalg.norm(np.diff(frames, axis=0), axis=2)
    return float(steps.mean() / spread)


def _validate(per_layer: np.ndarray, method: str, n_components: int) -> np.ndarray:
    validate_method(method)
    if n_components not in (2, 3):
        raise ValueError(f"n_components must be 2 or 3, not {n_components!r}.")
    X = np.asarray(per_layer, dtype=np.float32)
    if X.ndim != 3:
        raise ValueError(f"Expected per-layer vectors (layers, points, dim), got shape {X.shape}.")
    layers, n, d = X.shape
    if layers < 1:
        raise ValueError("There are no layers to draw.")
    needed = max(min_points(method, n_components), 6 if method == "umap" else 0)
    if n < needed:
        raise ValueError(
            f"{LABELS[method]} of every layer needs at least {needed} points; you have {n}."
        )
    if d < n_components:
        raise ValueError(f"The vectors have {d} dimension(s); a map needs {n_components}.")
    if not np.isfinite(X).all():
        raise ValueError("The vectors contain NaN or infinite values; nothing to draw.")
    return X


def layer_maps(
    per_layer: np.ndarray,
    method: str = "pca",
    n_components: int = 2,
    random_state: int = 0,
    align: Alignment = "joint",
    progress: Progress | None = None,
    *,
    n_neighbors: int = 15,
    perplexity: float = 30.0,
    score: bool = True,
) -> LayerMaps:
    """One aligned map per layer of the same points (see the module docstring).

    ``per_layer`` is ``(L + 1, n, d)``: the same ``n`` points (texts or word occurrences) at
    every layer, e.g. ``CorpusEmbeddings.per_layer("mean")`` or the array of
    :func:`explorer.word_layer_vectors`. ``method`` is one of ``pca``, ``umap``, ``tsne``;
    ``n_neighbors`` (UMAP) and ``perplexity`` (t-SNE) are lowered for small inputs (and
    ``notes`` says so). ``score=False`` skips the per-frame trustworthiness (``None``s; it
    is estimated from :data:`TRUSTWORTHINESS_QUERIES` random points per frame above that
    many). ``progress(done, total)`` is called after each layer, and within a t-SNE layer
    every 25 iterations (an exception it raises stops the work; UMAP with ``align="joint"``
    fits all layers in one call: it reports the start and the end).

    Returns :class:`LayerMaps` with ``frames`` ``(L + 1, n, n_components)`` float32. Raises
    ``ValueError`` for an unknown method or alignment, non-finite vectors or too few points.
    """
    X = _validate(per_layer, method, n_components)
    validate_alignment(align)
    X = standardize_layers(X)
    total = X.shape[0]
    notes: list[str] = []
    ratios = None

    def report(done: int) -> None:
        if progress is not None:
            progress(done, total)

    from threadpoolctl import threadpool_limits

    # One BLAS/OpenMP thread: on a shared 2-core machine the threads spin-wait for each
    # other; the joint PCA of 2,000 points x 7 layers took 6.4 s with two threads under load
    # and 0.6 s with one (the result does not depend on the thread count).
    with warnings.catch_warnings(record=True) as caught, threadpool_limits(limits=1):
        warnings.simplefilter("always")
        if method == "pca":
            frames, ratios = _pca_frames(X, n_components, random_state, align, report)
        elif method == "umap":
            frames = _umap_frames(X, n_components, random_state, align, n_neighbors, report, notes)
        else:
            frames = _tsne_frames(X, n_components, random_state, align, perplexity, report, notes)
        frames = np.asarray(frames, dtype=np.float32)
        if align == "procrustes":
            for i in range(1, total):
                frames[i] = procrustes(frames[i - 1], frames[i])
        n = X.shape[1]
        k = min(5, (n - 1) // 2)
        trust = tuple(
            trustworthiness(X[i], frames[i], k, TRUSTWORTHINESS_QUERIES)
            if k >= 1 and score
            else None
            for i in range(total)
        )
    for warning in caught:
        if not issubclass(warning.category, DeprecationWarning | FutureWarning):
            notes.append(f"{LABELS[method]}: {warning.message}")
    motion = frame_motion(frames)
    return LayerMaps(frames, method, align, trust, motion, tuple(notes), ratios)


def _pca_frames(X, n_components, random_state, align, report):
    """The PCA frames, and with ``align="joint"`` the shared PCA's explained variance ratios
    (else ``None``: a PCA per frame)."""
    from sklearn.decomposition import PCA

    layers, n, d = X.shape
    if align == "joint":
        pca = PCA(n_components=n_components, random_state=random_state)
        pca.fit(X.reshape(layers * n, d))
        frames = np.stack([pca.transform(layer) for layer in X])
        report(layers)
        return frames, pca.explained_variance_ratio_.astype(np.float32)
    frames = []
    for i, layer in enumerate(X):
        if np.ptp(layer, axis=0).max() == 0:
            frames.append(np.zeros((n, n_components), dtype=np.float32))
        else:
            frames.append(
                PCA(n_components=n_components, random_state=random_state).fit_transform(layer)
            )
        report(i + 1)
    return np.stack(frames), None


def _umap_neighbors(n: int, n_neighbors: int, notes: list[str]) -> int:
    used = min(int(n_neighbors), n - 1)
    if used < n_neighbors:
        notes.append(
            f"UMAP's number of neighbours was lowered from {n_neighbors} to {used} because "
            f"there are only {n} points."
        )
    return max(2, used)


def _umap_frames(X, n_components, random_state, align, n_neighbors, report, notes) -> np.ndarray:

    layers, n, _ = X.shape
    k = _umap_neighbors(n, n_neighbors, notes)
    if align != "joint":
        frames = []
        for i, layer in enumerate(X):
            frames.append(Projector("umap", n_components, random_state, k).fit(layer).embedding_)
            report(i + 1)
        return np.stack(frames)
    from sklearn.metrics import pairwise_distances

    from explorer.maps._umap import import_umap

    AlignedUMAP = import_umap().AlignedUMAP  # numba's on-disk cache, as the page's UMAP

    if k > ALIGNED_UMAP_NEIGHBORS:
        notes.append(
            f"To lay out all {layers} layers sooner, the animation places each point by its "
            f"{ALIGNED_UMAP_NEIGHBORS} closest neighbours in every layer (the still map uses "
            f"{k}): each point still moves with its closest company, though the finer "
            "arrangement may differ from the still map."
        )
        k = ALIGNED_UMAP_NEIGHBORS

    report(0)
    identity = {i: i for i in range(n)}
    # Below 4,096 points UMAP would compute every distance in numba, one pair at a time;
    # scikit-learn's matrix is ~40x faster and gives the same neighbour graph (as Projector).
    exact = n < EXACT_NEIGHBORS_BELOW
    data = [pairwise_distances(layer) if exact else layer for layer in X]
    reducer = AlignedUMAP(
        n_neighbors=k,
        n_components=n_components,
        random_state=random_state,
        metric="precomputed" if exact else "euclidean",
        init="spectral" if n > 2 * (n_components + 1) else "random",
        n_epochs=ALIGNED_UMAP_EPOCHS,
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*precomputed metric")
        warnings.filterwarnings("ignore", message=".*n_jobs value")
        embeddings = reducer.fit_transform(data, relations=[identity] * (layers - 1))
    mark_compiled()
    frames = np.stack([np.asarray(e, dtype=np.float32) for e in embeddings])
    lost = ~np.isfinite(frames).all(axis=2)
    if lost.any():
        # AlignedUMAP leaves points with no neighbours in a layer's graph at NaN; draw them at
        # their previous position (or the centre) so the frames stay drawable.
        for i in range(layers):
            for j in np.flatnonzero(lost[i]):
                frames[i, j] = frames[i - 1, j] if i > 0 else np.nanmean(frames[i], axis=0)
        notes.append(
            f"UMAP left {int(lost.sum())} point-layer(s) unconnected; they are drawn where they "
            "were in the previous layer."
        )
    report(layers)
    return frames


def _tsne_frames(X, n_components, random_state, align, perplexity, report, notes) -> np.ndarray:
    import logging

    from openTSNE import TSNE
    from threadpoolctl import threadpool_limits

    layers, n, _ = X.shape
    used = float(perplexity)
    largest = (n - 1) / 3
    if used > largest:
        used = float(np.floor(largest * 10) / 10)
        notes.append(
            f"t-SNE's perplexity was lowered from {perplexity:g} to {used:g} because there are "
            f"only {n} points (it must stay well below the number of points)."
        )
    frames = []
    for i, layer in enumerate(X):
        within = lambda *_, i=i: report(i)  # noqa: E731 - called within layer i
        if align != "joint" or i == 0:
            # A map of its own: the page's t-SNE, whatever it runs on.
            projector = Projector("tsne", n_components, random_state, perplexity=used)
            frames.append(projector.fit(layer, within).embedding_)
        else:
            # From the previous map at unit spread (at openTSNE's usual 1e-4 the layout was
            # lost; at full size small maps barely adapted), no early exaggeration and a short
            # schedule, then rotated onto it. openTSNE's warning that a large initialisation
            # may converge poorly does not apply to a converged map of a similar layer.
            previous = frames[-1]
            init = (previous - previous.mean(axis=0)) / max(float(previous[:, 0].std()), 1e-12)
            tsne = TSNE(
                n_components=n_components,
                perplexity=used,
                initialization=init.astype(np.float64),
                early_exaggeration_iter=0,
                n_iter=TSNE_CONTINUE_ITERATIONS,
                random_state=random_state,
                neighbors="exact" if n < TSNE_EXACT_BELOW else "annoy",
                # Progress from the gradient, not a callback (which costs an error evaluation).
                negative_gradient_method=checked_gradient(
                    "bh" if n < TSNE_FFT_ABOVE else "fft", within
                ),
                n_jobs=1,
            )
            logger = logging.getLogger("openTSNE.tsne")
            level = logger.level
            logger.setLevel(logging.ERROR)
            try:
                with threadpool_limits(limits=1, user_api="openmp"):
                    embedding = np.asarray(tsne.fit(layer), dtype=np.float32)
            finally:
                logger.setLevel(level)
            frames.append(procrustes(previous, embedding))
        report(i + 1)
    return np.stack(frames)


__all__ = [
    "ALIGNMENTS",
    "ALIGNMENT_LABELS",
    "PROJECTIONS",
    "LayerMaps",
    "frame_motion",
    "layer_maps",
    "procrustes",
    "standardize_layers",
    "validate_alignment",
]
