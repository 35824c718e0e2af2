"""Compatibility names: the CNN head lives in :mod:`explorer.probing.heads` and its token
features in :mod:`explorer.probing.features`.

Every name importable from ``explorer.heads`` before the split still is.
"""

# ruff: noqa: F401  (a module of re-exports)
from __future__ import annotations

from explorer.probing.features import MAX_TOKENS, MAX_VALUES, Progress, token_sequences
from explorer.probing.folds import ProbePlan, fold_accuracies
from explorer.probing.heads import CNNClassifier, CNNHead, cnn_scores, train_step
