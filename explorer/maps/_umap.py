"""UMAP with umap-learn, given exact nearest neighbours so that it never runs (and never
compiles) NN-descent on the maps the explorer draws: a Euclidean distance matrix below
:data:`EXACT_NEIGHBORS_BELOW` points, :func:`umap_neighbors` up to :data:`EXACT_KNN_UP_TO`.

This module is ``explorer.maps._umap``; ``import umap`` inside it is umap-learn (imports
are absolute).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

EXACT_NEIGHBORS_BELOW = 4096
"""umap-learn finds exact nearest neighbours below this many points (NN-descent above). Here
UMAP is given exact neighbours up to :data:`EXACT_KNN_UP_TO` points: a distance matrix below
this, :func:`umap_neighbors` above."""

EXACT_KNN_UP_TO = 10_000
"""Largest UMAP input given exact neighbours from :func:`umap_neighbors` (about 4 s of the 2
cores at 10,000 x 384; 15 s at 20,000, where NN-descent's own search is faster once its
per-process compilation is paid)."""


NUMBA_CACHE_WARNING = r"(\x1b\[[0-9;]*m)*Cannot cache compiled function"
"""How numba's ``NumbaWarning`` starts (after the terminal's bold code, which numba adds once
its error highlighting is set up) when a function asked to be cached on disk uses
dynamic globals or lifted loops: it is compiled and runs as before, only not saved (the
explorer asks umap-learn's functions to be cached, :func:`import_umap`)."""


@contextlib.contextmanager
def quiet_numba_cache() -> Iterator[None]:
    """Within: numba's :data:`NUMBA_CACHE_WARNING` warnings are dropped (they say nothing a
    visitor can act on); every other warning, numba's included, passes as before. Overrides a
    ``warnings.simplefilter("always")`` around it, such as the one that turns a projection's
    warnings into notes on the page."""
    from numba.core.errors import NumbaWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=NUMBA_CACHE_WARNING, category=NumbaWarning)
        yield


def umap_neighbors(X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, distances)`` ``(n, k)`` of each row's ``k`` nearest rows by Euclidean
    distance, itself first at distance 0, as umap-learn's ``precomputed_knn`` takes them.

    Exact, from :func:`explorer.neighbors` (ties by row index). Without them umap-learn runs
    NN-descent above 4,096 points, whose numba code compiles on a server's first large map:
    65 s for 5,000 word occurrences on a quiet 2-core machine (``bench.soak``), against
    0.2 s for the exact neighbours of 5,000 x 384 vectors."""
    from explorer.similarity import neighbors

    n = X.shape[0]
    rows = np.arange(n)
    found = neighbors(X, rows, k - 1, "euclidean")
    indices = np.hstack([rows[:, None], found.indices]).astype(np.int32)
    distances = np.hstack([np.zeros((n, 1), np.float32), found.scores]).astype(np.float32)
    return indices, distances


_compiled = False


def umap_compiled() -> bool:
    """Whether UMAP already ran in this process (its first fit imports and compiles numba)."""
    return _compiled


def mark_compiled() -> None:
    """Record that UMAP ran in this process (:func:`fit_umap`, and explorer.maps._animation after
    AlignedUMAP, which compiles the same numba code)."""
    global _compiled
    _compiled = True


def fit_umap(
    X: np.ndarray, n_components: int, n_neighbors: int, random_state: int | None
) -> np.ndarray:
    """UMAP of ``X`` ``(n, d)`` float32: ``(n, n_components)`` coordinates.

    ``n_neighbors`` must already be below ``n`` (:meth:`explorer.maps.Projector.fit`
    lowers it). Neighbours are exact up to :data:`EXACT_KNN_UP_TO` points, NN-descent's above.
    """
    with quiet_numba_cache():  # numba compiles on a process's first fit
        return _fit_umap(X, n_components, n_neighbors, random_state)


def _fit_umap(
    X: np.ndarray, n_components: int, n_neighbors: int, random_state: int | None
) -> np.ndarray:
    with warnings.catch_warnings():
        # umap-learn announces at import that its optional TensorFlow extra is missing.
        warnings.filterwarnings("ignore", message="Tensorflow not installed")
        import umap  # slow (numba): imported on first use only

    n = X.shape[0]
    # Spectral initialisation needs more points than dimensions + 1 to find its
    # eigenvectors; on tiny inputs start from random positions instead (and say nothing:
    # the result is equally valid).
    init = "spectral" if n > 2 * (n_components + 1) else "random"
    # A fixed random_state makes the picture reproducible (a teaching tool should show
    # the same map twice); UMAP then runs on one thread, so say so explicitly.
    exact = n < EXACT_NEIGHBORS_BELOW
    reducer = umap.UMAP(
        n_components=n_components,
        n_neighbors=n_neighbors,
        random_state=random_state,
        n_jobs=1 if random_state is not None else -1,
        init=init,
        metric="precomputed" if exact else "euclidean",
        precomputed_knn=(
            umap_neighbors(X, n_neighbors)
            if EXACT_NEIGHBORS_BELOW <= n <= EXACT_KNN_UP_TO
            else (None, None, None)
        ),
    )
    if exact:
        # Below 4,096 points umap-learn computes all pairwise distances itself, calling
        # its numba distance function once per pair through scikit-learn (about 2 s for
        # 2,000 points). The same Euclidean matrix from scikit-learn's vectorised code
        # takes 0.05 s and gives the same neighbour graph, hence the same map (only if
        # that graph falls apart into pieces does umap-learn place them by the average
        # distance between pieces rather than between their centres).
        from sklearn.metrics import pairwise_distances

        with warnings.catch_warnings():
            # "using precomputed metric; inverse_transform will be unavailable": we
            # never call inverse_transform.
            warnings.filterwarnings("ignore", message=".*precomputed metric")
            embedding = reducer.fit_transform(pairwise_distances(X, metric="euclidean"))
    else:
        with warnings.catch_warnings():
            # "transform will be unavailable" without NN-descent's index: never called.
            warnings.filterwarnings("ignore", message=".*knn_search_index")
            embedding = reducer.fit_transform(X)
    mark_compiled()
    return embedding


# -- umap-learn imported with numba's on-disk cache ------------------------------------------

CACHE_DIR = Path("~/.cache/contextual-embedding-explorer/numba").expanduser()
"""Default folder of numba's on-disk cache (overridden by ``NUMBA_CACHE_DIR``)."""


def configure_numba_cache(cache_dir: str | os.PathLike | None = None) -> Path:
    """Point numba's on-disk cache at ``cache_dir`` and return the folder in use.

    ``NUMBA_CACHE_DIR`` set in the environment wins (a deployment's own choice); otherwise
    it is set to ``cache_dir`` (default :data:`CACHE_DIR`), which is created. Call this
    before numba is imported; if it already is, its configuration is updated too, which
    covers every function compiled from then on.
    """
    folder = os.environ.get("NUMBA_CACHE_DIR") or str(Path(cache_dir or CACHE_DIR).expanduser())
    Path(folder).mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = folder
    return Path(folder)


@contextlib.contextmanager
def _numba_caches_by_default() -> Iterator[None]:
    """While active, ``numba.njit(...)`` and ``numba.jit(...)`` called by this thread default
    to ``cache=True``."""
    import numba

    originals = numba.njit, numba.jit
    # Only this thread's decorations: another thread building numba functions meanwhile
    # (pynndescent makes some per call) would otherwise ask numba to cache functions it
    # cannot, and numba warns "Cannot cache compiled function ...".
    importer = threading.get_ident()

    def cached(decorator):
        def decorate(*args, **kwargs):
            if threading.get_ident() == importer:
                kwargs.setdefault("cache", True)
            return decorator(*args, **kwargs)

        return decorate

    numba.njit, numba.jit = cached(numba.njit), cached(numba.jit)
    try:
        yield
    finally:
        numba.njit, numba.jit = originals


_IMPORTING = threading.RLock()
"""Held while umap-learn is imported: a page's UMAP that came while the warm-up thread was
importing it found the half-made module in ``sys.modules`` ("partially initialized module
'umap' has no attribute 'AlignedUMAP'", ``python -m bench.fairness``)."""


def import_umap(cache_dir: str | os.PathLike | None = None):
    """Import umap-learn (and pynndescent) so that numba caches their functions on disk.

    Returns the ``umap`` module. If umap-learn is already imported, returns it unchanged
    (its functions keep whatever caching they were decorated with).
    """
    with _IMPORTING:  # another thread's import in progress leaves "umap" half-made in sys.modules
        if "umap" in sys.modules:
            return sys.modules["umap"]
        configure_numba_cache(cache_dir)
        # numba warns about the few functions it cannot cache (they are compiled as before).
        with quiet_numba_cache(), warnings.catch_warnings():
            # umap-learn announces that its optional TensorFlow extra is missing.
            warnings.filterwarnings("ignore", message="Tensorflow not installed")
            with _numba_caches_by_default():
                import umap
        return umap
