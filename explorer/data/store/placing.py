"""A map of more rows than a fit can take: fit PCA or UMAP on a random sample of the rows, then
place every other row with the fitted model's ``transform``, a chunk at a time (``explorer
project --fit-sample``; :func:`explorer.data.store.project.save_projection`).

UMAP of a million 384-dimension rows does not finish in reasonable time on 2 cores; a fit on
50,000 rows and ``transform`` of the rest does (``python -m bench.project_rows``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

FIT_SAMPLE = 50_000
"""Default rows fitted on: a store with more rows (projected) is fitted on a random sample of
this many and the rest placed by ``transform``."""

CHUNK_ROWS = 20_000
"""Rows read from the store and placed at a time (about 30 MB of 384-dim float32)."""


class SampleFit:
    """A model fitted on sample rows ``X`` ``(s, d)``: ``embedding`` ``(s, 2)`` float32 their
    coordinates, :meth:`place` the coordinates of new rows in the same map."""

    def __init__(self, method: str, X: np.ndarray, random_state: int, n_neighbors: int = 15):
        self.method = method
        self.notes: list[str] = []
        if method == "pca":
            from sklearn.decomposition import PCA

            self._model = PCA(n_components=2, random_state=random_state).fit(X)
            self.embedding = self._model.transform(X).astype(np.float32)
        elif method == "umap":
            from explorer.maps import import_umap, mark_compiled, quiet_numba_cache

            umap = import_umap()
            # euclidean, no precomputed neighbours: transform needs umap-learn's own index
            self._model = umap.UMAP(
                n_components=2,
                n_neighbors=min(n_neighbors, len(X) - 1),
                random_state=random_state,
                n_jobs=1,
            )
            with quiet_numba_cache(), warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="n_jobs value 1 overridden")
                self.embedding = self._model.fit_transform(X).astype(np.float32)
            mark_compiled()
        else:
            raise ValueError(
                f"Fitting on a sample and placing the rest is for PCA and UMAP, not {method!r}: "
                "use --sample to project a random sample, or --fit-sample 0 to fit on all rows."
            )

    def place(self, X: np.ndarray) -> np.ndarray:
        """``(n, 2)`` float32 coordinates of new rows ``X`` ``(n, d)`` in the fitted map."""
        if self.method == "pca":
            return self._model.transform(X).astype(np.float32)
        from explorer.maps import quiet_numba_cache

        with quiet_numba_cache():
            return self._model.transform(np.asarray(X, dtype=np.float32)).astype(np.float32)


def fit_and_place(
    read: Callable[[np.ndarray], np.ndarray],
    n: int,
    method: str,
    fit_rows: np.ndarray,
    random_state: int,
    progress: Callable[[int, int], None] | None = None,
    chunk: int | None = None,
) -> tuple[np.ndarray, SampleFit]:
    """``(coordinates (n, 2) float32, the fit)`` of ``n`` rows, where ``read(positions)``
    returns the vectors of those (sorted) positions: a :class:`SampleFit` on ``fit_rows``
    (sorted positions) gives theirs, every other row is placed ``chunk`` rows at a time
    (default :data:`CHUNK_ROWS`; ``progress(done, total)`` after each chunk, over the
    placed rows)."""
    chunk = chunk or CHUNK_ROWS
    fit = SampleFit(method, read(fit_rows), random_state)
    coords = np.empty((n, 2), dtype=np.float32)
    coords[fit_rows] = fit.embedding
    rest = np.ones(n, dtype=bool)
    rest[fit_rows] = False
    others = np.flatnonzero(rest)
    for begin in range(0, len(others), chunk):
        positions = others[begin : begin + chunk]
        coords[positions] = fit.place(read(positions))
        if progress is not None:
            progress(min(begin + chunk, len(others)), len(others))
    return coords, fit
