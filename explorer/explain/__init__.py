"""Explaining similarities and measuring representations.

* :func:`explain_similarity`: why two texts are close: the cosine of their sentence vectors
  split into token pairs (exact for mean, max and mean + max pooling) or, for ``cls``
  pooling, into input-token attributions (integrated gradients).
* :func:`postprocess`: cosines without rogue dimensions (centre, standardize,
  all-but-the-top); :func:`rogue_share`: how much of the cosines a few dimensions carry.
"""

from __future__ import annotations

from explorer.explain._postprocess import RogueShare, postprocess, rogue_share
from explorer.explain._similarity import Explanation, explain_similarity

__all__ = ["Explanation", "RogueShare", "explain_similarity", "postprocess", "rogue_share"]
