"""Project high-dimensional vectors to 2-D or 3-D with PCA, UMAP or t-SNE.

One module per idea: :mod:`~explorer.projection.projector` (:class:`Projector`, the methods
and their validation, :class:`ProjectionParams`), :mod:`~explorer.projection.pca`,
:mod:`~explorer.projection.umap` (with its exact neighbour graph),
:mod:`~explorer.projection.tsne` (openTSNE and its settings) and
:mod:`~explorer.projection.quality` (trustworthiness). Every name is re-exported here, so
``from explorer.projection import Projector`` (and the rest) works as before the split.

:class:`Projector` follows scikit-learn's contract: parameters are stored in ``__init__``,
validated in :meth:`Projector.fit`, and learned attributes end in ``_``. Small inputs are
handled on purpose: UMAP's ``n_neighbors`` and t-SNE's ``perplexity`` are lowered when there
are too few points (and ``notes_`` says so), and inputs too small for a method raise
``ValueError`` with a message a person can act on, never a library warning.

Every projection is scored with scikit-learn's *trustworthiness*: the share of each point's
nearest neighbours in the projection that are also near it in the original space (1.0 =
nothing that looks close in the plot is actually far apart).
"""

from __future__ import annotations

from explorer.projection.pca import fit_pca
from explorer.projection.projector import (
    DIMENSIONS,
    LABELS,
    MIN_POINTS,
    PROJECTIONS,
    Projection,
    ProjectionParams,
    Projector,
    min_points,
    total_explained_variance,
    validate_method,
)
from explorer.projection.quality import (
    FLOAT32_ABOVE,
    TRUSTWORTHINESS_NEIGHBORS,
    TRUSTWORTHINESS_QUERIES,
    trustworthiness,
)
from explorer.projection.tsne import (
    TSNE_EARLY_EXAGGERATION,
    TSNE_EARLY_ITERATIONS,
    TSNE_FFT,
    TSNE_ITERATIONS,
    TSNE_MOMENTUM,
    TSNE_NEIGHBOR_JOBS,
    TSNE_NEIGHBORS_PER_PERPLEXITY,
    TSNE_PCA_DIMENSIONS,
    fit_tsne,
    tsne_gradient_method,
    tsne_neighbors,
    tsne_reduce,
)
from explorer.projection.umap import (
    EXACT_KNN_UP_TO,
    EXACT_NEIGHBORS_BELOW,
    fit_umap,
    umap_compiled,
    umap_neighbors,
)

__all__ = [
    "DIMENSIONS",
    "EXACT_KNN_UP_TO",
    "EXACT_NEIGHBORS_BELOW",
    "FLOAT32_ABOVE",
    "LABELS",
    "MIN_POINTS",
    "PROJECTIONS",
    "TRUSTWORTHINESS_NEIGHBORS",
    "TRUSTWORTHINESS_QUERIES",
    "TSNE_EARLY_EXAGGERATION",
    "TSNE_EARLY_ITERATIONS",
    "TSNE_FFT",
    "TSNE_ITERATIONS",
    "TSNE_MOMENTUM",
    "TSNE_NEIGHBORS_PER_PERPLEXITY",
    "TSNE_NEIGHBOR_JOBS",
    "TSNE_PCA_DIMENSIONS",
    "Projection",
    "ProjectionParams",
    "Projector",
    "fit_pca",
    "fit_tsne",
    "fit_umap",
    "min_points",
    "total_explained_variance",
    "trustworthiness",
    "tsne_gradient_method",
    "tsne_neighbors",
    "tsne_reduce",
    "umap_compiled",
    "umap_neighbors",
    "validate_method",
]
