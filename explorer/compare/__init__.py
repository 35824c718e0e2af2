"""Two models compared: their tokenizers, their layers, their neighbourhoods.

* :func:`token_stats`: how a tokenizer cuts a corpus (fertility, share of words split,
  unknown tokens).
* :func:`align_words`: the words two tokenizers both read (matched by character span);
  :func:`word_states`: every layer's vector of those words (the mean of their pieces).
* :func:`cross_cka`: linear CKA of every layer of model A with every layer of model B over
  those words; :func:`best_matches`: B's closest layer for each layer of A.
* :func:`neighbour_agreement`: per text, the share of its nearest neighbours both models
  agree on; :func:`align_map`: one model's 2-D map turned onto the other's (orthogonal
  Procrustes); :func:`paired_maps`: PCA maps of both, B's turned onto A's.
* :func:`depth_curves`: the sense gap, self-similarity, the anisotropy baseline and probe
  accuracy of both models over relative depth (layer / number of layers).
* :func:`read_texts`: one model's sentence vectors of some texts and word vectors of the
  first ones, from one forward pass (the maps' and the CKA's, :class:`Reading`).
* :func:`texts_within`, :func:`cka_texts` and :func:`curve_inputs`: the first texts one
  comparison reads within a budget of tokens through each model.
* :func:`estimated_weight_bytes` and :func:`pair_refusal`: whether two models fit a server's
  bytes of models together, and what to say when they do not.
"""

from __future__ import annotations

from explorer.compare._budget import cka_texts, curve_inputs, pair_token_counts, texts_within
from explorer.compare._cka import (
    MAX_WORDS,
    best_matches,
    check_words,
    cka_spans,
    cross_cka,
    cross_cka_matrix,
)
from explorer.compare._curves import (
    MEASURES,
    depth_curves,
    depth_notice,
    interleaved,
    model_curves,
)
from explorer.compare._neighbours import (
    align_map,
    nearest_sets,
    neighbour_agreement,
    paired_maps,
    pca_map,
)
from explorer.compare._pair import estimated_weight_bytes, pair_refusal
from explorer.compare._reading import Reading, read_texts
from explorer.compare._tokens import TokenStats, token_stats
from explorer.compare._words import WordAlignment, align_words, specials_left_out, word_states

__all__ = [
    "MAX_WORDS",
    "MEASURES",
    "Reading",
    "TokenStats",
    "WordAlignment",
    "align_map",
    "align_words",
    "best_matches",
    "check_words",
    "cka_spans",
    "cka_texts",
    "cross_cka",
    "cross_cka_matrix",
    "curve_inputs",
    "depth_curves",
    "depth_notice",
    "estimated_weight_bytes",
    "interleaved",
    "model_curves",
    "nearest_sets",
    "pair_token_counts",
    "neighbour_agreement",
    "pair_refusal",
    "paired_maps",
    "pca_map",
    "read_texts",
    "texts_within",
    "specials_left_out",
    "token_stats",
    "word_states",
]
