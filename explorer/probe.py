"""Compatibility names: the probe lives in :mod:`explorer.probing`, one module per job.

Every name importable from ``explorer.probe`` before the split still is; new code imports
from :mod:`explorer.probing` (or its modules) directly.
"""

from __future__ import annotations

from explorer.pooling import POOLINGS
from explorer.probing.datasets import MAX_ROWS, TASKS, labelled_table, read_labelled_csv
from explorer.probing.features import Progress, WordFeatures, first_occurrences, word_features
from explorer.probing.folds import (
    MAX_FOLDS,
    FitPredict,
    ProbePlan,
    fold_accuracies,
    majority_baseline,
    plan_folds,
)
from explorer.probing.linear import make_probe, probe_accuracies
from explorer.probing.scores import best_layers, compare_strategies, layer_scores, score_layers
from explorer.words import SUBWORD_MODES, Occurrence, find_occurrences

SENTENCE_STRATEGIES = POOLINGS
"""Old name: the poolings a sentence task can use (:data:`explorer.pooling.POOLINGS`)."""
WORD_STRATEGIES = SUBWORD_MODES
"""Old name: the subword modes a word task can use (:data:`explorer.words.SUBWORD_MODES`)."""

__all__ = [
    "MAX_FOLDS",
    "MAX_ROWS",
    "POOLINGS",
    "SENTENCE_STRATEGIES",
    "SUBWORD_MODES",
    "TASKS",
    "WORD_STRATEGIES",
    "FitPredict",
    "Occurrence",
    "ProbePlan",
    "Progress",
    "WordFeatures",
    "best_layers",
    "compare_strategies",
    "find_occurrences",
    "first_occurrences",
    "fold_accuracies",
    "labelled_table",
    "layer_scores",
    "majority_baseline",
    "make_probe",
    "plan_folds",
    "probe_accuracies",
    "read_labelled_csv",
    "score_layers",
    "word_features",
]
