"""The projector: :class:`Projector` fits PCA, UMAP or t-SNE (:data:`PROJECTIONS`) to row
vectors after validating the method, its parameters and the input, and scores the result with
:func:`~explorer.maps._quality.trustworthiness`; :class:`ProjectionParams` holds its
arguments (hashable, for caches). The methods themselves are :mod:`~explorer.maps._pca`,
:mod:`~explorer.maps._umap` and :mod:`~explorer.maps._tsne`.
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from explorer.maps import _quality
from explorer.maps._pca import fit_pca
from explorer.maps._tsne import fit_tsne
from explorer.maps._umap import fit_umap

PROJECTIONS = ("pca", "umap", "tsne")
Projection = Literal["pca", "umap", "tsne"]

LABELS = {"pca": "PCA", "umap": "UMAP", "tsne": "t-SNE"}
"""Display names of :data:`PROJECTIONS`."""

DIMENSIONS = (2, 3)
MIN_POINTS = {"umap": 4, "tsne": 5}
"""Fewest points UMAP and t-SNE accept (PCA needs ``n_components + 1``)."""


log = logging.getLogger(__name__)

PLAIN_WARNINGS = (
    (
        r"Spectral initiali[sz]ation failed|not connected but mult",
        "{name} could not lay out its neighbour graph in one piece at the start (its usual "
        "starting layout failed), so it started from random positions: groups are still "
        "real, but how far apart separate groups sit means little. PCA, or more neighbours, "
        "give a steadier picture.",
    ),
    (
        r"vertices were disconnected from the manifold",
        "Some points have no near neighbours in the full space: {name} places them loosely.",
    ),
)
"""Library warnings a visitor is told about, as ``(pattern, sentence)``: the first pattern
found in a warning's text (``re.search``) gives the sentence (``{name}``: the method's name).
Every other warning goes to the log only (library wording a visitor cannot act on)."""


def plain_warning(method: str, message: str) -> str | None:
    """The sentence of :data:`PLAIN_WARNINGS` for a library warning ``message`` raised while
    fitting ``method``, or ``None`` (and the warning is logged) when there is none."""
    for pattern, sentence in PLAIN_WARNINGS:
        if re.search(pattern, message):
            return sentence.format(name=LABELS.get(method, method))
    log.warning("%s fit: %s", LABELS.get(method, method), message)
    return None


def validate_method(method: str) -> str:
    """Return ``method`` if it is one of :data:`PROJECTIONS`, else raise ``ValueError``."""
    if method not in PROJECTIONS:
        raise ValueError(f"Unknown projection {method!r}; choose one of {PROJECTIONS}")
    return method


def min_points(method: str, n_components: int = 2) -> int:
    """Fewest points ``method`` can project to ``n_components`` dimensions."""
    validate_method(method)
    return MIN_POINTS.get(method, n_components + 1)


class Projector:
    """A fitted 2-D or 3-D projection of row vectors.

    Parameters: ``method`` (one of :data:`PROJECTIONS`), ``n_components`` (2 or 3),
    ``random_state`` (int or ``None``; UMAP and t-SNE are random, and PCA uses it for its
    randomized solver on large inputs), ``n_neighbors`` (UMAP) and ``perplexity`` (t-SNE).

    Learned attributes, after :meth:`fit`:

    - ``embedding_``: ``(n, n_components)`` float32 coordinates;
    - ``explained_variance_ratio_``: ``(n_components,)`` share of variance per axis for PCA,
      ``None`` otherwise;
    - ``trustworthiness_``: float in [0, 1] (``None`` with fewer than 3 points), computed
      with ``trustworthiness_neighbors_`` neighbours (at most 5) by
      :func:`~explorer.maps._quality.trustworthiness`: exact up to
      :data:`~explorer.maps._quality.TRUSTWORTHINESS_QUERIES` points, estimated from
      ``trustworthiness_sample_`` random points above;
    - ``n_neighbors_`` / ``perplexity_``: the values actually used (lowered for small inputs);
    - ``notes_``: list of sentences about what was adjusted, for the person looking.
    """

    def __init__(
        self,
        method: Projection = "pca",
        n_components: int = 2,
        random_state: int | None = 0,
        n_neighbors: int = 15,
        perplexity: float = 30.0,
    ) -> None:
        self.method = method
        self.n_components = n_components
        self.random_state = random_state
        self.n_neighbors = n_neighbors
        self.perplexity = perplexity

    def __repr__(self) -> str:
        return (
            f"Projector(method={self.method!r}, n_components={self.n_components}, "
            f"random_state={self.random_state}, n_neighbors={self.n_neighbors}, "
            f"perplexity={self.perplexity})"
        )

    # -- fitting ------------------------------------------------------------------------

    def fit(self, X: np.ndarray, progress: Callable[[int, int], None] | None = None) -> Projector:
        """Fit the projection on ``X`` ``(n_samples, n_features)``; returns ``self``. t-SNE
        calls ``progress(done, total)`` every few iterations (an exception it raises stops the
        fit; PCA and UMAP do not call it).

        Raises ``ValueError`` for an unknown method, bad parameters, non-finite values, all
        rows identical, or fewer points than the method needs.
        """
        X = self._validate(X)
        n = X.shape[0]
        self.notes_: list[str] = []
        self.explained_variance_ratio_: np.ndarray | None = None
        self.n_neighbors_: int | None = None
        self.perplexity_: float | None = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if self.method == "pca":
                embedding = self._fit_pca(X)
            elif self.method == "umap":
                embedding = self._fit_umap(X)
            else:
                embedding = self._fit_tsne(X, progress)
        for warning in caught:
            if not issubclass(warning.category, DeprecationWarning | FutureWarning):
                note = plain_warning(self.method, str(warning.message))
                if note is not None and note not in self.notes_:
                    self.notes_.append(note)
        self.embedding_ = np.asarray(embedding, dtype=np.float32)
        self.trustworthiness_neighbors_ = min(_quality.TRUSTWORTHINESS_NEIGHBORS, (n - 1) // 2)
        self.trustworthiness_: float | None = None
        self.trustworthiness_sample_: int | None = None
        if self.trustworthiness_neighbors_ >= 1:
            # Read at every fit, from the module that owns it (tests lower it).
            queries = _quality.TRUSTWORTHINESS_QUERIES
            self.trustworthiness_sample_ = min(n, queries)
            self.trustworthiness_ = _quality.trustworthiness(
                X, self.embedding_, self.trustworthiness_neighbors_, queries
            )
        return self

    def fit_transform(self, X: np.ndarray) -> np.ndarray:
        """Fit on ``X`` ``(n, d)`` and return the ``(n, n_components)`` float32 coordinates."""
        return self.fit(X).embedding_

    def _validate(self, X: np.ndarray) -> np.ndarray:
        validate_method(self.method)
        if self.n_components not in DIMENSIONS:
            raise ValueError(f"n_components must be 2 or 3, not {self.n_components!r}.")
        if isinstance(self.n_neighbors, bool) or not isinstance(self.n_neighbors, int | np.integer):
            raise ValueError(f"n_neighbors must be an integer, not {self.n_neighbors!r}.")
        if self.n_neighbors < 2:
            raise ValueError(f"n_neighbors must be at least 2, not {self.n_neighbors}.")
        if not self.perplexity > 0:
            raise ValueError(f"perplexity must be positive, not {self.perplexity!r}.")
        X = np.asarray(X, dtype=np.float32)
        if X.ndim != 2:
            raise ValueError(f"Expected a 2-D array (points x features), got shape {X.shape}.")
        n, d = X.shape
        needed = min_points(self.method, self.n_components)
        if n < needed:
            what = f"PCA in {self.n_components}-D" if self.method == "pca" else LABELS[self.method]
            raise ValueError(
                f"{what} needs at least {needed} points; you have {n}. "
                "Add more texts (or sentences with more occurrences of the word)."
            )
        if d < self.n_components:
            raise ValueError(
                f"The vectors have {d} dimension(s); a {self.n_components}-D projection needs "
                f"at least {self.n_components}."
            )
        if not np.isfinite(X).all():
            raise ValueError("The vectors contain NaN or infinite values; nothing to project.")
        if np.ptp(X, axis=0).max() == 0:
            raise ValueError(
                f"All {n} vectors are identical (the same text repeated?), so there is no "
                "spread to project. Use texts that differ."
            )
        return X

    def _fit_pca(self, X: np.ndarray) -> np.ndarray:
        embedding, self.explained_variance_ratio_ = fit_pca(X, self.n_components, self.random_state)
        return embedding

    def _fit_umap(self, X: np.ndarray) -> np.ndarray:
        n = X.shape[0]
        self.n_neighbors_ = int(self.n_neighbors)
        if self.n_neighbors_ >= n:
            self.n_neighbors_ = max(2, n - 1)
            self.notes_.append(
                f"UMAP's number of neighbours was lowered from {self.n_neighbors} to "
                f"{self.n_neighbors_} because there are only {n} points."
            )
        return fit_umap(X, self.n_components, self.n_neighbors_, self.random_state)

    def _fit_tsne(self, X: np.ndarray, progress=None) -> np.ndarray:
        n = X.shape[0]
        self.perplexity_ = float(self.perplexity)
        largest = (n - 1) / 3
        if self.perplexity_ > largest:
            self.perplexity_ = np.floor(largest * 10) / 10
            self.notes_.append(
                f"t-SNE's perplexity was lowered from {self.perplexity:g} to "
                f"{self.perplexity_:g} because there are only {n} points (it must stay well "
                "below the number of points)."
            )
        return fit_tsne(X, self.n_components, self.perplexity_, self.random_state, progress)


@dataclass(frozen=True)
class ProjectionParams:
    """How to project: the arguments of :class:`explorer.maps.Projector`."""

    method: str = "pca"
    n_components: int = 2
    random_state: int | None = 0
    n_neighbors: int = 15
    perplexity: float = 30.0

    def projector(self) -> Projector:
        """A new, unfitted projector with these parameters."""
        return Projector(
            self.method, self.n_components, self.random_state, self.n_neighbors, self.perplexity
        )

    def as_used_by(self, projector: Projector) -> ProjectionParams:
        """These parameters with the ``n_neighbors`` and ``perplexity`` the fitted
        ``projector`` actually used (UMAP and t-SNE lower them for small inputs)."""
        return replace(
            self,
            n_neighbors=projector.n_neighbors_ or self.n_neighbors,
            perplexity=projector.perplexity_ or self.perplexity,
        )


def total_explained_variance(ratios: Sequence[float] | np.ndarray | None) -> float | None:
    """Sum of PCA's explained-variance ratios (``None`` for UMAP and t-SNE)."""
    return None if ratios is None else float(np.sum(ratios))
