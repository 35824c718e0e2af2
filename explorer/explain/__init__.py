"""Explaining similarities and measuring representations.

* :func:`explain_similarity`: why two texts are close: the cosine of their sentence vectors
  split into token pairs (exact for mean, max and mean + max pooling) or, for ``cls``
  pooling, into input-token attributions (integrated gradients).
"""

from __future__ import annotations

from explorer.explain._similarity import Explanation, explain_similarity

__all__ = ["Explanation", "explain_similarity"]
