"""Similarity: cosines, the one exact nearest-neighbour search, and the Similarity page's
sentence search.

Private modules, one per idea: ``_cosine`` (:func:`cosine_similarity`), ``_nearest``
(:func:`neighbors`, exact and blocked, the one k-NN), ``_halffloat`` (float16 rows read as
float32 without a full copy) and ``_search`` (sentence matrices, top-k, agreement between
poolings). Constants are imported from there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer._lazy import lazy_dir, lazy_getattr

# Imported on first use (PEP 562): the sentence search imports torch, the neighbours do not.
_HOMES = {
    "cosine_similarity": "explorer.similarity._cosine",
    "Neighbors": "explorer.similarity._nearest",
    "neighbors": "explorer.similarity._nearest",
    "MAX_K": "explorer.similarity._search",
    "MAX_SENTENCES": "explorer.similarity._search",
    "similarity_matrices": "explorer.similarity._search",
    "similarity_notice": "explorer.similarity._search",
    "spearman_agreement": "explorer.similarity._search",
    "top_k": "explorer.similarity._search",
}

if TYPE_CHECKING:
    from explorer.similarity._cosine import cosine_similarity
    from explorer.similarity._nearest import Neighbors, neighbors
    from explorer.similarity._search import (
        MAX_K,
        MAX_SENTENCES,
        similarity_matrices,
        similarity_notice,
        spearman_agreement,
        top_k,
    )

__getattr__ = lazy_getattr(__name__, _HOMES)
__dir__ = lazy_dir(__name__, _HOMES)


__all__ = [
    "MAX_K",
    "MAX_SENTENCES",
    "Neighbors",
    "cosine_similarity",
    "neighbors",
    "similarity_matrices",
    "similarity_notice",
    "spearman_agreement",
    "top_k",
]
