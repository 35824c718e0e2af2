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
  each text, its subwords combined by a mode of :data:`explorer.words.SUBWORD_MODES`.
  When the word differs between rows, each word gets its own probe on its own rows (see
  :func:`plan_folds`).

One module per job:

* :mod:`~explorer.probing.datasets`: labelled tables (checks, CSV uploads, row limit);
* :mod:`~explorer.probing.folds`: checked labels, shared stratified folds, the baseline;
* :mod:`~explorer.probing.features`: word features and token sequences (one forward pass);
* :mod:`~explorer.probing.linear`: the linear probe;
* :mod:`~explorer.probing.heads`: the CNN head;
* :mod:`~explorer.probing.scores`: accuracy per layer, comparisons, the best layers;
* :mod:`~explorer.probing.sample`: the stratified rows one capped request probes;
* :mod:`~explorer.probing.stored`: probes on a corpus store's stored vectors (no forward pass).

Everything here is plain Python (no Streamlit); progress callbacks get ``(done, total)``.
"""

from __future__ import annotations

from explorer.probing.datasets import MAX_ROWS, TASKS, labelled_table, read_labelled_csv
from explorer.probing.features import (
    MAX_TOKENS,
    MAX_VALUES,
    Progress,
    WordFeatures,
    first_occurrences,
    token_sequences,
    word_features,
)
from explorer.probing.folds import (
    MAX_FOLDS,
    FitPredict,
    ProbePlan,
    fold_accuracies,
    majority_baseline,
    plan_folds,
    summary_row,
)
from explorer.probing.heads import CNNClassifier, CNNHead, cnn_scores, train_step
from explorer.probing.linear import make_probe, probe_accuracies
from explorer.probing.sample import ProbeSample, probe_sample
from explorer.probing.scores import best_layers, compare_strategies, layer_scores, score_layers
from explorer.probing.stored import (
    MAX_CLASSES,
    LabelColumn,
    ProbeRows,
    check_label_column,
    label_columns,
    probe_rows,
    store_layer_scores,
    stored_stack,
)

__all__ = [
    "MAX_CLASSES",
    "MAX_FOLDS",
    "MAX_ROWS",
    "MAX_TOKENS",
    "MAX_VALUES",
    "TASKS",
    "CNNClassifier",
    "CNNHead",
    "FitPredict",
    "LabelColumn",
    "ProbePlan",
    "ProbeRows",
    "ProbeSample",
    "Progress",
    "WordFeatures",
    "best_layers",
    "check_label_column",
    "cnn_scores",
    "compare_strategies",
    "first_occurrences",
    "fold_accuracies",
    "label_columns",
    "labelled_table",
    "layer_scores",
    "majority_baseline",
    "make_probe",
    "plan_folds",
    "probe_accuracies",
    "probe_rows",
    "probe_sample",
    "read_labelled_csv",
    "score_layers",
    "store_layer_scores",
    "stored_stack",
    "summary_row",
    "token_sequences",
    "train_step",
    "word_features",
]
