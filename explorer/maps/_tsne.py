"""t-SNE with openTSNE, tuned for the explorer's maps: neighbours among the first 50 principal
components, fewer of them and fewer iterations than openTSNE's defaults, a coarse FFT grid.
Each setting below says what it was measured to cost and save (``python -m bench.projections``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

TSNE_PCA_DIMENSIONS = 50
"""t-SNE's neighbours are found among the vectors' first 50 principal components (the
usual pre-processing), wider vectors are reduced first. On 10,000 sentence vectors of 384
dimensions the exact search took 2.9 s of CPU in full width and 0.8 s in 50 (0.3 s for the
PCA), and the map's trustworthiness, measured in the full space, rose rather than fell
(0.9011 -> 0.9039 on 5,000, exact): the last 334 components hold 40 % of the variance,
mostly noise that reorders the nearest few."""

TSNE_NEIGHBORS_PER_PERPLEXITY = 1.5
"""t-SNE's neighbour graph keeps ``1.5 x perplexity`` neighbours of each point (openTSNE's
default is 3x). A Gaussian of that perplexity puts little weight beyond them, the
trustworthiness did not drop (0.9064 with 1.5x, 0.9039 with 2x, 5,000 sentence vectors,
exact), and the attractive forces, a third of every iteration's cost at 2x, cost a quarter
less."""

TSNE_EARLY_ITERATIONS = 125
"""Iterations with early exaggeration (openTSNE's default 250, scikit-learn's 250): 75 lost
0.007 of trustworthiness on 5,000 sentence vectors, 125 nothing."""

TSNE_EARLY_EXAGGERATION = 12.0
TSNE_ITERATIONS = 250
"""Iterations after early exaggeration (openTSNE's default 500, scikit-learn's 750): with
openTSNE's learning rate (``n`` after exaggeration, 12x scikit-learn's) trustworthiness on
5,000 sentence vectors stops rising after about 250 (0.9011 at 150, 0.9059 at 250,
0.9054 at 400; 150 with the settings above: 0.9048 against 0.9071)."""

TSNE_MOMENTUM = 0.8
"""Momentum of both phases (openTSNE's default)."""

TSNE_FFT = {"n_interpolation_points": 3, "min_num_intervals": 25, "ints_in_interval": 2}
"""openTSNE's FFT-interpolation grid for 2-D maps: cells 2 units wide (default 1) and at
least 25 of them (default 50). The grid, not the points, is most of an iteration's cost
once the map has spread out; cells of 3 units (1 interpolation node per unit) lost 0.03 of
trustworthiness, 2 units lost nothing measurable. Cells of 1.5 units with 2 nodes each
saved another 1 s of CPU at 10,000 points but lost 0.003-0.004 of trustworthiness (0.9101
-> 0.9037 on 5,000, 0.9265 -> 0.9238 on 10,000), too much of the 0.01 allowed against
scikit-learn."""

TSNE_NEIGHBOR_JOBS = 2
"""Threads for t-SNE's exact neighbour search (one long parallel loop: no cost when the
other core is busy). The gradient descent runs on one thread: its many short OpenMP loops
spin-wait when the CPU is shared (measured: 2 threads took more CPU and more time under
load), and its result does not depend on the thread count."""


def tsne_neighbors(n_points: int, perplexity: float) -> int:
    """How many neighbours t-SNE's affinities use for ``n_points`` points: about
    :data:`TSNE_NEIGHBORS_PER_PERPLEXITY` times ``perplexity``, more than ``perplexity``,
    fewer than ``n_points``."""
    wanted = max(int(TSNE_NEIGHBORS_PER_PERPLEXITY * perplexity), int(np.ceil(perplexity)) + 1)
    return min(n_points - 1, wanted)


def tsne_gradient_method(n_components: int) -> str:
    """openTSNE's repulsive-force approximation: FFT interpolation in 2-D (linear in the
    points), Barnes-Hut in 3-D (openTSNE's FFT is 1-D and 2-D only)."""
    return "fft" if n_components == 2 else "bh"


def tsne_reduce(X: np.ndarray, random_state: int | None) -> np.ndarray:
    """``X`` ``(n, d)`` on its first :data:`TSNE_PCA_DIMENSIONS` principal components
    ``(n, min(50, n, d))`` float32 (scikit-learn's ``PCA``, covariance solver), or ``X``
    itself when it has at most 50 dimensions. With at most 50 points the reduction keeps
    every distance (the points span fewer dimensions than that)."""
    n, d = X.shape
    if d <= TSNE_PCA_DIMENSIONS:
        return X
    from sklearn.decomposition import PCA

    pca = PCA(
        min(TSNE_PCA_DIMENSIONS, n, d), svd_solver="covariance_eigh", random_state=random_state
    )
    return np.asarray(pca.fit_transform(X), dtype=np.float32)


TSNE_BLAS_THREADS = 1
"""BLAS threads for t-SNE's linear algebra (the reduction to 50 components, openTSNE's PCA
start, the trustworthiness :class:`explorer.maps.Projector` computes after it). Profiled on the
2-core machine under load (5,000 sentence vectors, ``Projector("tsne").fit`` in phases, default
threads and one thread alternating): two OpenBLAS threads spin-waited for each other, the
reduction took 0.5-9.0 s of wall time (0.15-2.1 s of CPU) where one thread took 0.13-0.20 s
(0.03 s of CPU), and the trustworthiness 1.7-2.2 s against 0.7-0.9 s. The optimisation itself
is the same either way (it calls no BLAS)."""

TSNE_PROGRESS_EVERY = 25
"""Iterations between two calls of :func:`fit_tsne`'s ``progress``. They are counted by the
gradient (:func:`checked_gradient`), not by an openTSNE callback: openTSNE evaluates the KL
divergence for every iteration that ends in a callback, 3 ms more than the 6 ms gradient of
5,000 points."""


def checked_gradient(
    method: str, report: Callable[[int], None], every: int = TSNE_PROGRESS_EVERY
) -> Callable:
    """openTSNE's gradient ``method`` (``"fft"`` or ``"bh"``) as a function to pass as its
    ``negative_gradient_method``, calling ``report(iterations_done)`` after every ``every``-th
    iteration: progress and abort checks without callbacks, so without openTSNE's KL
    divergence at each (an exception ``report`` raises stops the optimisation). Iterations
    are counted over every ``optimize`` the function serves; the error openTSNE evaluates once
    after each ``optimize`` is not an iteration and is not counted."""
    from openTSNE.tsne import kl_divergence_bh, kl_divergence_fft

    gradient = kl_divergence_fft if method == "fft" else kl_divergence_bh
    done = 0

    def checked(*args, should_eval_error: bool = False, **kwargs):
        nonlocal done
        result = gradient(*args, should_eval_error=should_eval_error, **kwargs)
        if not should_eval_error:
            done += 1
            if done % every == 0:
                report(done)
        return result

    return checked


def fit_tsne(
    X: np.ndarray,
    n_components: int,
    perplexity: float,
    random_state: int | None,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """t-SNE of ``X`` ``(n, d)`` with openTSNE: ``(n, n_components)`` float64 coordinates.

    ``perplexity`` must already fit the number of points
    (:meth:`explorer.maps.Projector.fit` lowers it).
    The vectors are reduced to their first :data:`TSNE_PCA_DIMENSIONS` principal components
    (:func:`tsne_reduce`); there, exact Euclidean neighbours (:func:`tsne_neighbors` of
    them), PCA initialisation, then :data:`TSNE_EARLY_ITERATIONS` iterations with early
    exaggeration and :data:`TSNE_ITERATIONS` without, learning rate ``"auto"``
    (``n / exaggeration``), a coarse FFT grid (:data:`TSNE_FFT`). On 5,000 sentence vectors
    this is 14-18x faster than scikit-learn's ``TSNE`` (Barnes-Hut, 1,000 iterations) at
    the same trustworthiness (``python -m bench.projections``). Deterministic for a given
    ``random_state``. ``progress(done, total)`` is called every :data:`TSNE_PROGRESS_EVERY`
    iterations; an exception it raises stops the optimisation. BLAS runs on
    :data:`TSNE_BLAS_THREADS` thread(s).
    """
    from openTSNE import TSNEEmbedding, affinity, initialization
    from threadpoolctl import threadpool_limits

    n = X.shape[0]
    total = TSNE_EARLY_ITERATIONS + TSNE_ITERATIONS
    gradient = tsne_gradient_method(n_components)
    if progress is not None:
        # An abort leaves the affinities exaggerated: they are this call's own, dropped with it.
        gradient = checked_gradient(gradient, lambda done: progress(done, total))
    with threadpool_limits(limits=TSNE_BLAS_THREADS, user_api="blas"):
        reduced = tsne_reduce(X, random_state)
        affinities = affinity.PerplexityBasedNN(
            reduced,
            perplexity=perplexity,
            method="exact",
            k_neighbors=tsne_neighbors(n, perplexity),
            n_jobs=TSNE_NEIGHBOR_JOBS,
            random_state=random_state,
        )
        init = initialization.pca(reduced, n_components, random_state=random_state)
        embedding = TSNEEmbedding(
            np.asarray(init, dtype=np.float64),
            affinities,
            negative_gradient_method=gradient,
            learning_rate="auto",
            n_jobs=1,
            random_state=random_state,
            **TSNE_FFT,
        )
        embedding = embedding.optimize(
            n_iter=TSNE_EARLY_ITERATIONS,
            exaggeration=TSNE_EARLY_EXAGGERATION,
            momentum=TSNE_MOMENTUM,
        )
        embedding = embedding.optimize(n_iter=TSNE_ITERATIONS, momentum=TSNE_MOMENTUM)
    return np.asarray(embedding)
