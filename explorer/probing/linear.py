"""The linear probe: standardised features, then a logistic regression, cross-validated."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from explorer.probing.folds import ProbePlan, fold_accuracies


def make_probe(random_state: int = 0):
    """The linear probe: standardise features, then a multinomial logistic regression."""
    return make_pipeline(
        StandardScaler(), LogisticRegression(max_iter=2000, random_state=random_state)
    )


def probe_accuracies(features: np.ndarray, plan: ProbePlan) -> np.ndarray:
    """Cross-validated accuracy of the linear probe on ``features (n, d)``: ``(folds,)``."""
    features = np.asarray(features, dtype=np.float32)
    if features.ndim != 2 or len(features) != len(plan):
        raise ValueError(f"Expected features of shape ({len(plan)}, d), got {features.shape}.")

    def fit_predict(train, train_labels, test):
        if len(set(train_labels.tolist())) < 2:  # a control task's draw can leave one class
            return np.full(len(test), train_labels[0], dtype=object)
        probe = make_probe(plan.random_state).fit(features[train], train_labels)
        return probe.predict(features[test])

    # Tiny problems: BLAS/OpenMP threads only add overhead here (50x on a busy 2-core box).
    with threadpool_limits(1):
        return fold_accuracies(plan, fit_predict)
