"""Word in context: how similar are the vectors of one word in different sentences?

The "Word in context" page compares every occurrence of a word (the three "bank"s of the
tutorial sentence, a river bank and a savings bank, ...) by cosine similarity, under each
layer choice and layer by layer. Two things make raw cosines hard to read, and this package
offers a remedy for each:

* **Anisotropy.** Contextual vectors share a large common direction, so even two unrelated
  tokens have a high cosine (Ethayarajh, 2019). :func:`anisotropy_baseline` measures it: the
  mean cosine of random token pairs of the same sentences, layer by layer.
* **Mean-centring.** Subtracting, per layer, the mean token vector of the given sentences
  (:func:`layer_means`) removes that common direction; what is left is far more telling.

One module per job; the names the page calls are importable from here (``from explorer import
context as ctx; ctx.similarity_matrix(...)``), the rest (and every constant) from its module:

* :mod:`~explorer.context.sentences`: the default and tutorial sentences, lines with an
  optional sense (``finance | The bank ...``), built-in examples of each sense.
* :mod:`~explorer.context.labels`: how an occurrence is shown (context window, labels, the
  word marked in its sentence).
* :mod:`~explorer.context.pairs`: n occurrences make n(n-1)/2 pairs, in one order.
* :mod:`~explorer.context.centring`: token states of the sentences and their per-layer mean.
* :mod:`~explorer.context.baseline`: the anisotropy baseline.
* :mod:`~explorer.context.similarity`: similarity matrices, per-layer pair similarities, the
  table of every layer choice.
* :mod:`~explorer.context.senses`: what each pair is (same sense, different senses, same
  sentence) and the gap between same-sense and different-sense pairs per layer.
* :mod:`~explorer.context.notices`: what the page says about its numbers, and its link to
  Projections.

Plain Python and NumPy; no Streamlit.
"""

from __future__ import annotations

from explorer.context.baseline import anisotropy_baseline, describe_baseline_pairs
from explorer.context.centring import content_token_states, layer_means
from explorer.context.labels import highlight_html, occurrence_labels, short_labels
from explorer.context.notices import gap_caption, layer_zero_note, projections_link, what_to_notice
from explorer.context.pairs import MAX_OCCURRENCES, cap_occurrences, pair_labels, pair_members
from explorer.context.senses import pair_kinds, sense_gap
from explorer.context.sentences import (
    DEFAULT_TEXT,
    DEFAULT_WORD,
    labelled_examples,
    parse_labelled_sentences,
)
from explorer.context.similarity import layers_table, pair_similarities, similarity_matrix

__all__ = [
    "DEFAULT_TEXT",
    "DEFAULT_WORD",
    "MAX_OCCURRENCES",
    "anisotropy_baseline",
    "cap_occurrences",
    "content_token_states",
    "describe_baseline_pairs",
    "gap_caption",
    "highlight_html",
    "labelled_examples",
    "layer_means",
    "layer_zero_note",
    "layers_table",
    "occurrence_labels",
    "pair_kinds",
    "pair_labels",
    "pair_members",
    "pair_similarities",
    "parse_labelled_sentences",
    "projections_link",
    "sense_gap",
    "short_labels",
    "similarity_matrix",
    "what_to_notice",
]
