"""``explorer.heads``: every name it offered before the probe became a package."""

from __future__ import annotations

from explorer import heads
from explorer.probing import features, folds
from explorer.probing import heads as cnn


def test_every_old_name_is_still_importable():
    for name in ("CNNHead", "CNNClassifier", "train_step", "cnn_scores"):
        assert getattr(heads, name) is getattr(cnn, name)
    for name in ("token_sequences", "MAX_TOKENS", "MAX_VALUES", "Progress"):
        assert getattr(heads, name) is getattr(features, name)
    for name in ("ProbePlan", "fold_accuracies"):
        assert getattr(heads, name) is getattr(folds, name)
