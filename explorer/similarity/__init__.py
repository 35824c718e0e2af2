"""Similarity: cosines, the one exact nearest-neighbour search, and the Similarity page's
sentence search.

Private modules, one per idea: ``_cosine`` (:func:`cosine_similarity`), ``_nearest``
(:func:`neighbors`, exact and blocked, the one k-NN), ``_halffloat`` (float16 rows read as
float32 without a full copy) and ``_search`` (sentence matrices, top-k, agreement between
poolings). Constants are imported from there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer._lazy import lazy_dir, lazy_getattr, lazy_homes

# Imported on first use (PEP 562): the sentence search imports torch, the neighbours do not.
if TYPE_CHECKING:
    from explorer.similarity._cosine import cosine_similarity as cosine_similarity
    from explorer.similarity._nearest import Metric as Metric
    from explorer.similarity._nearest import Neighbors as Neighbors
    from explorer.similarity._nearest import check_row_query as check_row_query
    from explorer.similarity._nearest import neighbors as neighbors
    from explorer.similarity._nearest import row_norms as row_norms
    from explorer.similarity._search import MAX_K as MAX_K
    from explorer.similarity._search import MAX_SENTENCES as MAX_SENTENCES
    from explorer.similarity._search import similarity_matrices as similarity_matrices
    from explorer.similarity._search import similarity_notice as similarity_notice
    from explorer.similarity._search import spearman_agreement as spearman_agreement
    from explorer.similarity._search import top_k as top_k

_HOMES = lazy_homes(__file__)
__getattr__ = lazy_getattr(__name__, _HOMES)
__dir__ = lazy_dir(__name__, _HOMES)
__all__ = list(_HOMES)
