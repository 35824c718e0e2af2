"""Maps of vectors: 2-D or 3-D projections (PCA, UMAP, t-SNE), how faithful a map is, the
layers in motion, custom axes and clusters.

:class:`Projector` follows scikit-learn's contract: parameters are stored in ``__init__``,
validated in :meth:`Projector.fit`, and learned attributes end in ``_``. Small inputs are
handled on purpose: UMAP's ``n_neighbors`` and t-SNE's ``perplexity`` are lowered when there
are too few points (and ``notes_`` says so), and inputs too small for a method raise
``ValueError`` with a message a person can act on, never a library warning.

Every projection is scored with scikit-learn's *trustworthiness*: the share of each point's
nearest neighbours in the projection that are also near it in the original space (1.0 =
nothing that looks close in the plot is actually far apart).

The implementation lives in private modules, one per idea: ``_projector`` (the methods, their
validation, :class:`ProjectionParams`), ``_pca``, ``_umap`` (with its exact neighbour graph),
``_tsne`` (openTSNE and its measured settings), ``_quality`` (trustworthiness and the
neighbour inspector), ``_animation`` (one map per layer), ``_axes`` (dot-product axes),
``_clusters`` (k-means or HDBSCAN, named by c-TF-IDF), ``_columns`` (how much a numeric
column of the data follows a map) and ``_bigmap`` (a saved map of up to a million points for
the browser: draw order, packed arrays, selections over every row). Their tuning constants,
which "Show code" writes out, are listed here too: no module outside this package imports a
private one (tests/test_walls.py).
"""

from __future__ import annotations

from explorer.maps._animation import layer_maps
from explorer.maps._axes import custom_axes, text_vector, word_vector
from explorer.maps._bigmap import (
    OVERVIEW_POINTS,
    VIEW_POINTS,
    Colours,
    colour_codes,
    density_grid,
    draw_order,
    map_neighbors,
    pack_coords,
    rows_in_box,
    rows_in_lasso,
    unpack_coords,
)
from explorer.maps._clusters import (
    AUTO_K_MAX,
    KMEANS_INIT,
    NOISE_NAME,
    SILHOUETTE_SAMPLE,
    cluster,
    cluster_labels,
    cluster_names,
    validate_cluster_method,
)
from explorer.maps._columns import value_agreement, value_notice
from explorer.maps._projector import (
    DIMENSIONS,
    LABELS,
    PROJECTIONS,
    Projection,
    ProjectionParams,
    Projector,
    min_points,
    total_explained_variance,
    validate_method,
)
from explorer.maps._quality import (
    DEFAULT_K,
    TRUST_CAUTION,
    TRUST_READINGS,
    TRUSTWORTHINESS_NEIGHBORS,
    TRUSTWORTHINESS_QUERIES,
    Inspection,
    describe_trustworthiness,
    inspect_point,
    label_agreement,
    map_notice,
    neighbour_overlap,
    preservation,
    trustworthiness,
)
from explorer.maps._tsne import (
    TSNE_EARLY_EXAGGERATION,
    TSNE_EARLY_ITERATIONS,
    TSNE_FFT,
    TSNE_ITERATIONS,
    TSNE_MOMENTUM,
    TSNE_NEIGHBOR_JOBS,
    TSNE_NEIGHBORS_PER_PERPLEXITY,
    TSNE_PCA_DIMENSIONS,
    tsne_gradient_method,
    tsne_neighbors,
)
from explorer.maps._umap import (
    EXACT_KNN_UP_TO,
    EXACT_NEIGHBORS_BELOW,
    configure_numba_cache,
    import_umap,
    mark_compiled,
    quiet_numba_cache,
    umap_compiled,
)

__all__ = [
    "AUTO_K_MAX",
    "OVERVIEW_POINTS",
    "VIEW_POINTS",
    "Colours",
    "colour_codes",
    "density_grid",
    "draw_order",
    "map_neighbors",
    "pack_coords",
    "rows_in_box",
    "rows_in_lasso",
    "unpack_coords",
    "DEFAULT_K",
    "DIMENSIONS",
    "EXACT_KNN_UP_TO",
    "EXACT_NEIGHBORS_BELOW",
    "KMEANS_INIT",
    "LABELS",
    "NOISE_NAME",
    "PROJECTIONS",
    "SILHOUETTE_SAMPLE",
    "TRUSTWORTHINESS_NEIGHBORS",
    "TRUSTWORTHINESS_QUERIES",
    "TRUST_CAUTION",
    "TRUST_READINGS",
    "TSNE_EARLY_EXAGGERATION",
    "TSNE_EARLY_ITERATIONS",
    "TSNE_FFT",
    "TSNE_ITERATIONS",
    "TSNE_MOMENTUM",
    "TSNE_NEIGHBOR_JOBS",
    "TSNE_NEIGHBORS_PER_PERPLEXITY",
    "TSNE_PCA_DIMENSIONS",
    "Inspection",
    "Projection",
    "ProjectionParams",
    "Projector",
    "cluster",
    "cluster_labels",
    "cluster_names",
    "configure_numba_cache",
    "custom_axes",
    "describe_trustworthiness",
    "import_umap",
    "mark_compiled",
    "quiet_numba_cache",
    "inspect_point",
    "label_agreement",
    "layer_maps",
    "map_notice",
    "min_points",
    "neighbour_overlap",
    "preservation",
    "text_vector",
    "total_explained_variance",
    "trustworthiness",
    "tsne_gradient_method",
    "tsne_neighbors",
    "umap_compiled",
    "validate_cluster_method",
    "validate_method",
    "value_agreement",
    "value_notice",
    "word_vector",
]
