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

One module per job; every name is importable from here (``from explorer import context as
ctx; ctx.similarity_matrix(...)``):

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

from explorer.context.baseline import (
    BASELINE_PAIRS,
    anisotropy_baseline,
    baseline_pair_count,
    describe_baseline_pairs,
    sample_pairs,
)
from explorer.context.centring import centred, content_token_states, layer_means
from explorer.context.labels import (
    context_window,
    highlight_html,
    occurrence_labels,
    short_labels,
)
from explorer.context.notices import (
    SMALL_GAP,
    gap_caption,
    layer_zero_note,
    projections_link,
    what_to_notice,
)
from explorer.context.pairs import (
    MAX_OCCURRENCES,
    cap_occurrences,
    pair_count_to_n,
    pair_indices,
    pair_labels,
    pair_members,
)
from explorer.context.senses import PAIR_KINDS, pair_kinds, sense_gap
from explorer.context.sentences import (
    DEFAULT_SENSES,
    DEFAULT_SENTENCES,
    DEFAULT_TEXT,
    DEFAULT_WORD,
    MAX_SENSE_LENGTH,
    MAX_SENTENCES,
    SENSE_SEPARATORS,
    TUTORIAL_SENTENCES,
    labelled_examples,
    labelled_lines,
    parse_labelled_sentences,
    parse_sentences,
    sense_examples,
    sense_of,
    split_sense,
)
from explorer.context.similarity import (
    layers_table,
    pair_similarities,
    similarity_matrix,
    strategy_table,
)

__all__ = [
    "BASELINE_PAIRS",
    "DEFAULT_SENSES",
    "DEFAULT_SENTENCES",
    "DEFAULT_TEXT",
    "DEFAULT_WORD",
    "MAX_OCCURRENCES",
    "MAX_SENSE_LENGTH",
    "MAX_SENTENCES",
    "PAIR_KINDS",
    "SENSE_SEPARATORS",
    "SMALL_GAP",
    "TUTORIAL_SENTENCES",
    "anisotropy_baseline",
    "baseline_pair_count",
    "cap_occurrences",
    "centred",
    "content_token_states",
    "context_window",
    "describe_baseline_pairs",
    "highlight_html",
    "labelled_examples",
    "labelled_lines",
    "layer_means",
    "layer_zero_note",
    "layers_table",
    "occurrence_labels",
    "pair_count_to_n",
    "pair_indices",
    "pair_kinds",
    "pair_labels",
    "pair_members",
    "pair_similarities",
    "parse_labelled_sentences",
    "parse_sentences",
    "projections_link",
    "sample_pairs",
    "sense_examples",
    "sense_gap",
    "sense_of",
    "short_labels",
    "similarity_matrix",
    "split_sense",
    "strategy_table",
    "what_to_notice",
    "gap_caption",
]
