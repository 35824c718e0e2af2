"""Explaining similarities and measuring representations.

* :func:`explain_similarity`: why two texts are close: the cosine of their sentence vectors
  split into token pairs (exact for mean, max and mean + max pooling) or, for ``cls``
  pooling, into input-token attributions (integrated gradients).
* :func:`postprocess` (and :func:`postprocess_layers`, layer by layer): cosines without rogue
  dimensions (centre, standardize, all-but-the-top); :func:`rogue_share` and
  :func:`rogue_report`: how much of the cosines a few dimensions carry, before and after.
* :func:`linear_cka` (Kornblith et al. 2019), :func:`cka_matrix` and :func:`layer_cka`: how
  alike two layers' representations of the same tokens are.
* :func:`classic_measures` (Ethayarajh 2019: self-similarity, intra-sentence similarity,
  maximum explainable variance, each anisotropy-adjusted) and :func:`sense_accuracy`
  (Coenen et al. 2019: nearest-centroid word senses), layer by layer on built-in sentences
  (:func:`classic_lesson`: both from one forward pass); the papers' findings to show beside
  them are in ``explorer.explain._classic.REFERENCES``.
* :func:`isoscore` (Rudman et al. 2022): how evenly a cloud of vectors uses its dimensions,
  1 for isotropic, near 0 for one direction.
"""

from __future__ import annotations

from explorer.choice import POST_NAMES, POSTPROCESSING
from explorer.explain._cka import cka_matrix, layer_cka, linear_cka
from explorer.explain._classic import (
    MAX_CONTEXTS,
    REFERENCES,
    classic_lesson,
    classic_measures,
    sense_accuracy,
    word_measures,
)
from explorer.explain._isoscore import dimensions_used, isoscore
from explorer.explain._postprocess import (
    LABELS,
    RogueShare,
    postprocess,
    postprocess_layers,
    rogue_report,
    rogue_sentence,
    rogue_share,
)
from explorer.explain._similarity import Explanation, explain_similarity

__all__ = [
    "LABELS",
    "MAX_CONTEXTS",
    "POST_NAMES",
    "POSTPROCESSING",
    "REFERENCES",
    "Explanation",
    "RogueShare",
    "cka_matrix",
    "classic_lesson",
    "classic_measures",
    "dimensions_used",
    "explain_similarity",
    "isoscore",
    "layer_cka",
    "linear_cka",
    "postprocess",
    "postprocess_layers",
    "rogue_report",
    "rogue_sentence",
    "rogue_share",
    "sense_accuracy",
    "word_measures",
]
