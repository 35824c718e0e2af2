"""Cross-validation shared by every head: checked labels, stratified folds, the baseline.

Every layer and every head of one run is scored on the same folds (:class:`ProbePlan`), so
the scores are comparable, and the majority-class baseline says what guessing would score.
With groups (one word per row in the built-in word-sense set: bank, bat, ...), each group
is split and probed on its own: a probe trained on all words at once could score well just
by recognising *which word* it sees, which even the static embedding layer can do.

Given the texts, identical texts (after :func:`text_key`: case and spacing ignored) always
fall in the same fold (scikit-learn's ``StratifiedGroupKFold``): a text in both the training
and the test rows lets a probe score by recognising it, whatever the label means (3,000
support tickets with 1,663 distinct texts scored 1.00 at every layer, the embedding layer
included, before this).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

from explorer.probing.datasets import MAX_ROWS

MAX_FOLDS = 10


@dataclass(frozen=True)
class ProbePlan:
    """Validated labels and the cross-validation folds every probe of one run shares.

    ``labels`` is ``(n,)`` str; ``groups`` is ``(n,)`` str or ``None`` (one probe per group,
    trained and tested on that group's rows only); ``splits`` holds ``folds`` pairs of index
    arrays ``(train, test)`` into the rows; ``baseline`` is the majority-class accuracy (per
    group, pooled over rows); ``notes`` are messages for the reader (folds lowered, ...).
    ``texts`` is ``(n,)`` str, each row's :func:`text_key` (``None`` when the plan was made
    without texts); ``duplicates`` counts the rows whose text repeats an earlier row's.
    """

    labels: np.ndarray
    groups: np.ndarray | None
    folds: int
    random_state: int
    splits: tuple[tuple[np.ndarray, np.ndarray], ...]
    baseline: float
    notes: tuple[str, ...] = field(default=())
    texts: np.ndarray | None = None
    duplicates: int = 0

    def __len__(self) -> int:
        return len(self.labels)

    def group_names(self) -> list[str]:
        """The groups in first-seen order (``[""]`` when there are none)."""
        if self.groups is None:
            return [""]
        return list(dict.fromkeys(self.groups.tolist()))


def text_key(text: object) -> str:
    """What makes two texts "the same" for the folds: lower case, runs of whitespace as one
    space, no leading or trailing space (``"  Hello\tWorld "`` -> ``"hello world"``)."""
    return " ".join(str(text).lower().split())


def _as_labels(labels: Sequence[object]) -> np.ndarray:
    values = np.asarray([str(label).strip() for label in labels], dtype=object)
    if values.ndim != 1 or len(values) == 0:
        raise ValueError("No labels given: pass one label per text.")
    empty = np.flatnonzero(values == "")
    if len(empty):
        rows = ", ".join(str(i + 1) for i in empty[:5])
        raise ValueError(f"{len(empty)} label(s) are empty (rows {rows}): every row needs one.")
    return values


def majority_baseline(labels: Sequence[object], groups: Sequence[str] | None = None) -> float:
    """Accuracy of always guessing the most common label (of each group, if groups are given)."""
    labels = np.asarray(labels, dtype=object)
    if groups is None:
        return float(pd.Series(labels).value_counts().iloc[0] / len(labels))
    frame = pd.DataFrame({"group": np.asarray(groups, dtype=object), "label": labels})
    best = frame.groupby("group", sort=False)["label"].agg(lambda s: s.value_counts().iloc[0])
    return float(best.sum() / len(labels))


def plan_folds(
    labels: Sequence[object],
    groups: Sequence[str] | None = None,
    folds: int = 5,
    random_state: int = 0,
    *,
    texts: Sequence[str] | None = None,
) -> ProbePlan:
    """Check the labels and build stratified ``folds``-fold splits shared by every probe.

    With ``groups``, each group is split on its own (stratified by its labels) and fold ``k``
    is the union of the groups' fold ``k``: one probe per group, accuracy pooled over all
    test rows of the fold. With ``texts`` (one per label), rows with the same
    :func:`text_key` stay in one fold (``StratifiedGroupKFold``), examples are counted as
    distinct texts, and ``notes`` says how many rows repeat a text. Raises ``ValueError`` for
    fewer than 2 classes (in any group), a class with a single example (a single distinct
    text), fewer than 2 distinct texts in a group, more than :data:`MAX_ROWS` rows or
    ``folds`` outside 2..:data:`MAX_FOLDS`. When the rarest class (or a group) has fewer
    examples than ``folds`` (but at least 2), ``folds`` is lowered to that count and
    ``notes`` says so.
    """
    values = _as_labels(labels)
    if len(values) > MAX_ROWS:
        raise ValueError(
            f"{len(values):,} rows is too many for an interactive probe; the limit is "
            f"{MAX_ROWS:,}. Sample the file down first."
        )
    if isinstance(folds, bool) or not isinstance(folds, int | np.integer):
        raise ValueError(f"folds must be a whole number from 2 to {MAX_FOLDS}, not {folds!r}.")
    if not 2 <= folds <= MAX_FOLDS:
        raise ValueError(f"folds must be from 2 to {MAX_FOLDS}, not {folds}.")
    if groups is not None:
        group_values = np.asarray([str(g).strip() for g in groups], dtype=object)
        if len(group_values) != len(values):
            raise ValueError(f"Got {len(values)} labels but {len(group_values)} words.")
    else:
        group_values = np.full(len(values), "", dtype=object)
    keys = None
    if texts is not None:
        keys = np.asarray([text_key(t) for t in texts], dtype=object)
        if len(keys) != len(values):
            raise ValueError(f"Got {len(values)} labels but {len(keys)} texts.")
    # what counts as one example: a row, or a distinct text (duplicates are one example)
    units = np.arange(len(values)).astype(str) if keys is None else keys
    rarest, rarest_where, rarest_group, fewest = None, "", "", None
    for name in dict.fromkeys(group_values.tolist()):
        inside = group_values == name
        counts = pd.Series(values[inside]).value_counts()
        where = f" for {name!r}" if name else ""
        if len(counts) < 2:
            only = counts.index[0]
            raise ValueError(
                f"Only one class{where} ({only!r}, {counts.iloc[0]} rows): a probe needs at "
                "least two different labels to tell apart."
            )
        distinct = pd.Series(units[inside]).groupby(values[inside]).nunique()
        distinct = distinct.sort_values(ascending=False, kind="stable")
        if rarest is None or distinct.iloc[-1] < rarest[1]:
            rarest, rarest_where = (distinct.index[-1], int(distinct.iloc[-1])), where
            rarest_group = name
        total = len(set(units[inside].tolist()))
        if fewest is None or total < fewest[1]:
            fewest = (where, total)
    assert rarest is not None and fewest is not None
    notes = []
    if keys is not None and fewest[1] < 2:
        raise ValueError(
            f"All the rows{fewest[0]} hold the same text (ignoring case and spacing): "
            "cross-validation needs at least 2 different texts, one to train on, one to test."
        )
    if rarest[1] < 2:
        copies = int(np.sum(values[group_values == rarest_group] == rarest[0]))
        what = "a single example"
        if copies > 1:
            what = f"a single distinct text (its {copies} rows repeat it)"
        raise ValueError(
            f"Class {rarest[0]!r}{rarest_where} has {what}; cross-validation needs at least 2 "
            f"{'examples' if keys is None else 'different texts'} of every class (one to "
            "train on, one to test)."
        )
    if rarest[1] < folds:
        examples = "examples" if keys is None else "different texts"
        notes.append(
            f"Class {rarest[0]!r}{rarest_where} has only {rarest[1]} {examples}, fewer than "
            f"{folds} folds: using {rarest[1]}-fold cross-validation instead."
        )
        folds = rarest[1]
    duplicates = 0 if keys is None else len(keys) - len(set(zip(group_values, keys, strict=True)))
    if duplicates:
        notes.append(
            f"{duplicates:,} of the {len(values):,} rows repeat a text of another row (ignoring "
            "case and spacing): identical texts are kept in the same fold, so a probe cannot "
            "score by recognising a text it was trained on."
        )
    folds = int(folds)
    trains: list[list[np.ndarray]] = [[] for _ in range(folds)]
    tests: list[list[np.ndarray]] = [[] for _ in range(folds)]
    if keys is None:
        splitter = StratifiedKFold(folds, shuffle=True, random_state=random_state)
    else:
        splitter = StratifiedGroupKFold(folds, shuffle=True, random_state=random_state)
    for name in dict.fromkeys(group_values.tolist()):
        rows = np.flatnonzero(group_values == name)
        same = None if keys is None else keys[rows]
        for k, (train, test) in enumerate(splitter.split(np.zeros(len(rows)), values[rows], same)):
            trains[k].append(rows[train])
            tests[k].append(rows[test])
    splits = tuple(
        (np.sort(np.concatenate(trains[k])), np.sort(np.concatenate(tests[k])))
        for k in range(folds)
    )
    return ProbePlan(
        labels=values,
        groups=None if groups is None else group_values,
        folds=folds,
        random_state=random_state,
        splits=splits,
        baseline=majority_baseline(values, None if groups is None else group_values),
        notes=tuple(notes),
        texts=keys,
        duplicates=duplicates,
    )


FitPredict = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""``fit_predict(train_rows, train_labels, test_rows) -> predicted labels``; rows index the
caller's features."""


def fold_accuracies(plan: ProbePlan, fit_predict: FitPredict) -> np.ndarray:
    """Accuracy of each fold, ``(folds,)``: one model per fold and group via ``fit_predict``."""
    groups = plan.groups
    scores = np.empty(plan.folds)
    for k, (train, test) in enumerate(plan.splits):
        correct = 0
        for name in plan.group_names():
            if groups is None:
                train_g, test_g = train, test
            else:
                train_g, test_g = train[groups[train] == name], test[groups[test] == name]
            predicted = fit_predict(train_g, plan.labels[train_g], test_g)
            correct += int(np.sum(np.asarray(predicted, dtype=object) == plan.labels[test_g]))
        scores[k] = correct / len(test)
    return scores


def summary_row(scores: np.ndarray, plan: ProbePlan) -> dict[str, object]:
    """``accuracy_mean``, ``accuracy_std`` (over the ``(folds,)`` ``scores``), ``baseline``
    and ``fold_1`` … ``fold_k``: one row of a score table."""
    scores = np.asarray(scores, dtype=float)
    row: dict[str, object] = {
        "accuracy_mean": float(scores.mean()),
        "accuracy_std": float(scores.std()),
        "baseline": plan.baseline,
    }
    row.update({f"fold_{k + 1}": float(s) for k, s in enumerate(scores)})
    return row
