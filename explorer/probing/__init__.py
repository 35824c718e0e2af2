"""Which layer? Probes on every layer's vectors, scored by stratified cross-validation.

A probe is a logistic regression (features standardised first) that predicts a label from
one layer's vectors. If the probe does well on layer ``l``, the label is linearly readable
from that layer. Every layer is probed with the same folds, so the scores are comparable,
and the majority-class baseline says what guessing would score. A small 1-D CNN over one
layer's token vectors is the non-linear head to compare with.

Two kinds of task:

* **sentence tasks** (``text, label``): one pooled vector per text and layer
  (:data:`explorer.pooling.POOLINGS`), all layers from one forward pass
  (:func:`explorer.embed_corpus`);
* **word tasks** (``text, word, label``): the vector of the first occurrence of ``word`` in
  each text, its subwords combined by a mode of :data:`explorer.subwords.SUBWORD_MODES`.
  When the word differs between rows, each word gets its own probe on its own rows (see
  :func:`plan_folds`).

One module per job (the names a notebook or the page calls are importable from here, the rest
from its module):

* :mod:`~explorer.probing.datasets`: labelled tables (checks, CSV uploads, row limit);
* :mod:`~explorer.probing.folds`: checked labels, shared stratified folds (identical texts in
  one fold), the baseline;
* :mod:`~explorer.probing.control`: the control task (random labels per text) and selectivity;
* :mod:`~explorer.probing.features`: word features and token sequences (one forward pass);
* :mod:`~explorer.probing.linear`: the linear probe;
* :mod:`~explorer.probing.heads`: the CNN head;
* :mod:`~explorer.probing.scores`: accuracy per layer, comparisons, the best layers;
* :mod:`~explorer.probing.sample`: the stratified rows one capped request probes;
* :mod:`~explorer.probing.stored`: probes on a corpus store's stored vectors (no forward pass).

Everything here is plain Python (no Streamlit); progress callbacks get ``(done, total)``.
"""

from __future__ import annotations

from explorer.probing.datasets import MAX_ROWS, read_labelled_csv
from explorer.probing.features import word_features
from explorer.probing.folds import MAX_FOLDS, plan_folds
from explorer.probing.scores import best_layers, layer_scores, score_layers
from explorer.probing.stored import probe_rows

__all__ = [
    "MAX_FOLDS",
    "MAX_ROWS",
    "best_layers",
    "layer_scores",
    "plan_folds",
    "probe_rows",
    "read_labelled_csv",
    "score_layers",
    "word_features",
]
