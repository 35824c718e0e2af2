"""Control tasks (Hewitt and Liang 2019, "Designing and Interpreting Probes with Control
Tasks", EMNLP): is the probe reading the label from the layer, or memorising its examples?

A control task keeps the data and the folds and replaces the labels by random ones that
depend only on the example's identity: each text (each distinct :func:`~explorer.probing.
folds.text_key`; for a word task, each sentence of that word) gets one label, the same at
every occurrence, drawn at random from the real labels' distribution (of its word's rows for
a word task). Nothing about the meaning predicts it, so what a probe scores on it is what
its capacity and the data's repetitions give for free. **Selectivity** is accuracy minus
control accuracy, per layer: a probe that scores high on both is not evidence that the layer
encodes the label.

With folds that keep identical texts together (:func:`~explorer.probing.folds.plan_folds`
given the texts) no test text was trained on, so the control scores near chance; with
repeated texts split across folds it would not, which is how it catches memorising.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from explorer._shown import lowered
from explorer.probing.folds import ProbePlan


def control_labels(plan: ProbePlan, seed: int | None = None) -> np.ndarray:
    """The control task's labels, ``(n,)`` str: for each group of ``plan`` (word, or all rows)
    in first-seen order, its distinct texts (``plan.texts``; each row alone when the plan has
    none) in first-seen order get ``rng.choice(classes, size=texts, p=shares)``, ``classes``
    the group's labels sorted, ``shares`` their fractions of the group's rows and ``rng``
    ``numpy.random.default_rng(seed)`` (default ``plan.random_state``), one generator for all
    groups; every row takes its text's label."""
    rng = np.random.default_rng(plan.random_state if seed is None else seed)
    units = plan.texts if plan.texts is not None else np.arange(len(plan)).astype(str)
    groups = plan.groups if plan.groups is not None else np.full(len(plan), "", dtype=object)
    result = np.empty(len(plan), dtype=object)
    for name in plan.group_names():
        rows = np.flatnonzero(groups == name)
        classes, counts = np.unique(plan.labels[rows].astype(str), return_counts=True)
        keys = list(dict.fromkeys(units[rows].tolist()))
        drawn = rng.choice(classes, size=len(keys), p=counts / counts.sum())
        label_of = dict(zip(keys, drawn.tolist(), strict=True))
        result[rows] = [label_of[key] for key in units[rows].tolist()]
    return result


def control_plan(plan: ProbePlan, seed: int | None = None) -> ProbePlan:
    """``plan`` with :func:`control_labels` instead of its labels: the same folds (and so the
    same rows in every training and test set) and the control labels' majority baseline."""
    from explorer.probing.folds import majority_baseline

    labels = control_labels(plan, seed)
    return replace(plan, labels=labels, baseline=majority_baseline(labels, plan.groups))


def control_notice(scores: pd.DataFrame, label: str = "") -> str:
    """One or two sentences on one strategy's ``scores`` (columns ``layer``,
    ``accuracy_mean``, ``accuracy_std``, ``control_mean``, ``selectivity``, ``baseline``):
    the control accuracy and selectivity at the best layer, the most selective layer when it
    differs, and a warning when the probe is high at every layer but the control scores
    nearly as high (not selective). ``label`` names the strategy (``"Mean of tokens"``).
    Raises ``ValueError`` without control columns."""
    if "selectivity" not in scores.columns or scores.empty:
        raise ValueError("No control-task scores: probe with control=True.")
    frame = scores.sort_values("layer")
    best = frame.sort_values(["accuracy_mean", "layer"], ascending=[False, True]).iloc[0]
    chosen = frame.sort_values(["selectivity", "layer"], ascending=[False, True]).iloc[0]
    baseline = float(best["baseline"])
    accuracy, control = float(best["accuracy_mean"]), float(best["control_mean"])
    selectivity = float(best["selectivity"])
    where = f" with {lowered(label)}" if label else ""
    first = (
        f"On a control task (Hewitt and Liang 2019: each text gets a random label, the same "
        f"wherever it occurs, with the real labels' distribution) the probe{where} scores "
        f"{control:.2f} at layer {int(best['layer'])}, where it reads the real label at "
        f"{accuracy:.2f}: selectivity {selectivity:+.2f}."
    )
    gain = accuracy - baseline
    low = float(frame["accuracy_mean"].min())
    everywhere = gain > 0 and low - baseline >= 0.8 * gain
    if gain > 0 and selectivity < 0.5 * gain:
        shown = round(selectivity, 2)  # as the sentence above writes it
        than = "better" if shown < 0 else "as well" if shown == 0 else "almost as well"
        return first + (
            f" The probe does {than} on random labels"
            + (f", and it is high at every layer (lowest {low:.2f})" if everywhere else "")
            + ": it is not selective, so its accuracy says more about what a probe can "
            "memorise here than about what the layers encode."
        )
    second = ""
    if int(chosen["layer"]) != int(best["layer"]):
        second = (
            f" The most selective layer is {int(chosen['layer'])} "
            f"({float(chosen['selectivity']):+.2f})."
        )
    return first + second
