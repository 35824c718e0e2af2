"""Probes on a corpus store (:func:`explorer.open_corpus`): stored vectors, no forward pass.

A store keeps one pooled vector per text, pooling and *stored* layer (``explorer embed
--layers``), so a probe on it reads the vectors of a sample of rows and scores every stored
layer with the same folds and probe as any other data (:func:`~explorer.probing.scores.
score_layers`, with the real layer numbers). The label is the store's label column or any
other column of its input, when that column makes sense as classes:

* :func:`label_columns` says which columns can be probed (2 to :data:`MAX_CLASSES` classes,
  at least :data:`MIN_PER_CLASS` texts in each) and why the others cannot;
* :func:`probe_rows` keeps the rows that have a value and, beyond a limit, an honest random
  sample of them, stratified by label;
* :func:`stored_stack` reads those rows at every stored layer;
* :func:`store_layer_scores` does all three and probes (the notebook entry point).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from explorer.probing.datasets import MAX_ROWS
from explorer.probing.features import Progress
from explorer.probing.folds import plan_folds
from explorer.probing.scores import score_layers

MAX_CLASSES = 50
"""Most classes a probed column may have: more is an identifier or a number, not a label."""

MIN_PER_CLASS = 2
"""Fewest texts of every class: cross-validation trains on one and tests on another."""


@dataclass(frozen=True)
class LabelColumn:
    """One column of a store as a probe label: ``classes`` distinct values among the rows
    that have one, ``rarest`` texts in the smallest class, ``missing`` rows without a value;
    ``problem`` says why it cannot be probed (``None`` when it can)."""

    name: str
    classes: int
    rarest: int
    missing: int
    problem: str | None = None

    @property
    def usable(self) -> bool:
        return self.problem is None


def _as_values(values: Sequence[object]) -> np.ndarray:
    """Values as stripped strings, ``""`` for a missing one (None, NaN, blank): ``(n,)``."""
    series = pd.Series(list(values), dtype=object)
    text = series.astype(str).str.strip()
    text[series.isna()] = ""
    return text.to_numpy(dtype=object)


def check_label_column(name: str, values: Sequence[object]) -> LabelColumn:
    """Whether ``values`` (one per row) can be probed as classes, and why not."""
    labels = _as_values(values)
    present = labels[labels != ""]
    counts = pd.Series(present).value_counts()
    classes, rarest = len(counts), int(counts.iloc[-1]) if len(counts) else 0
    problem = None
    if classes < 2:
        problem = "no values" if classes == 0 else f"a single value ({counts.index[0]!r})"
    elif classes > MAX_CLASSES:
        problem = f"{classes:,} different values (a probe needs 2 to {MAX_CLASSES})"
    elif rarest < MIN_PER_CLASS:
        singles = int((counts < MIN_PER_CLASS).sum())
        problem = (
            f"{singles:,} of its {classes} values occur in a single text (every class needs at "
            f"least {MIN_PER_CLASS})"
        )
    return LabelColumn(str(name), classes, rarest, int(len(labels) - len(present)), problem)


def label_columns(corpus) -> list[LabelColumn]:
    """Every column of ``corpus`` (an opened store) but its texts, as probe labels: the label
    column first (when the store has one), then the other input columns in order."""
    columns = []
    if corpus.label_column is not None:
        columns.append(check_label_column(corpus.label_column, corpus.labels))
    metadata = corpus.metadata
    columns += [check_label_column(name, metadata[name].tolist()) for name in metadata.columns]
    return columns


def column_values(corpus, name: str) -> list:
    """The values of column ``name`` of ``corpus``: its label column or a metadata column.
    Raises ``ValueError`` naming the columns for any other name."""
    if name == corpus.label_column:
        return list(corpus.labels)
    if name in corpus.metadata.columns:
        return corpus.metadata[name].tolist()
    known = [c for c in (corpus.label_column, *corpus.metadata.columns) if c is not None]
    raise ValueError(f"The store has no column {name!r}; its columns: {', '.join(known)}.")


@dataclass(frozen=True)
class ProbeRows:
    """The rows a probe uses: ``rows (n,)`` sorted indices into the store, ``labels (n,)``
    their labels as text, of ``total`` rows in the store; ``missing`` rows had no value;
    ``note`` says what was left out (``None`` when nothing was)."""

    rows: np.ndarray
    labels: tuple[str, ...]
    total: int
    missing: int
    note: str | None = None

    @property
    def sampled(self) -> bool:
        return len(self.rows) < self.total - self.missing


def probe_rows(values: Sequence[object], limit: int = MAX_ROWS, seed: int = 0) -> ProbeRows:
    """The rows of ``values`` (one label per store row) a probe uses: those with a value, and
    beyond ``limit`` of them a random sample of about ``limit`` (reproducible with ``seed``),
    stratified by label: each class keeps its share, and at least :data:`MIN_PER_CLASS` rows
    (all of them when it has fewer). Raises ``ValueError`` for a ``limit`` below 2."""
    if isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 2:
        raise ValueError(f"limit must be a whole number of at least 2, not {limit!r}.")
    labels = _as_values(values)
    total = len(labels)
    present = np.flatnonzero(labels != "")
    missing = total - len(present)
    notes = []
    if missing:
        notes.append(f"{missing:,} of {total:,} rows have no value in this column: left out.")
    rows = present
    if len(present) > limit:
        rng = np.random.default_rng(seed)
        # an object array: a fixed-width one would give every label the longest one's width
        classes, inverse, counts = np.unique(
            labels[present], return_inverse=True, return_counts=True
        )
        share = counts * limit / len(present)
        quota = np.maximum(np.floor(share).astype(int), np.minimum(counts, MIN_PER_CLASS))
        spare = limit - int(quota.sum())
        for c in np.argsort(-(share - np.floor(share)), kind="stable")[: max(spare, 0)]:
            quota[c] = min(quota[c] + 1, counts[c])
        rows = np.sort(
            np.concatenate(
                [
                    rng.choice(present[inverse == c], size=int(quota[c]), replace=False)
                    for c in range(len(classes))
                ]
            )
        )
        notes.append(
            f"Probing {len(rows):,} of {len(present):,} rows, sampled at random (stratified "
            f"by label, seed {seed}): a probe on this page reads at most {limit:,} rows."
        )
    return ProbeRows(
        rows=rows.astype(np.int64),
        labels=tuple(labels[rows].tolist()),
        total=total,
        missing=missing,
        note=" ".join(notes) or None,
    )


def stored_stack(corpus, pooling: str, rows: Sequence[int]) -> tuple[tuple[int, ...], np.ndarray]:
    """``(layers, stack)``: the stored layer numbers and ``stack (len(layers), len(rows),
    dim)`` float32, row ``rows[i]``'s ``pooling`` vector at each stored layer (a pooling of
    :data:`explorer.POOLINGS` whose parts are stored; ``ValueError`` saying what to embed
    otherwise)."""
    rows = np.asarray(rows, dtype=np.int64)
    layers = tuple(int(layer) for layer in corpus.layers)
    return layers, np.stack([corpus.sentence(pooling, layer, rows=rows) for layer in layers])


def store_layer_scores(
    corpus,
    column: str | None = None,
    pooling: str = "mean",
    folds: int = 5,
    random_state: int = 0,
    limit: int = MAX_ROWS,
    progress: Progress | None = None,
    control: bool = False,
) -> pd.DataFrame:
    """Cross-validated linear-probe accuracy at every stored layer of ``corpus`` (an opened
    store), no forward pass: the label is column ``column`` (``None``: the store's label
    column), probed on :func:`probe_rows` (at most about ``limit`` rows, sampled with
    ``random_state``), with ``pooling``'s stored vectors.

    Returns :func:`~explorer.probing.scores.score_layers`'s table, ``layer`` holding the real
    layer numbers; ``attrs["rows"]`` is the :class:`ProbeRows` used. Identical texts (case and
    spacing ignored) share a fold; ``control`` adds the control task's columns
    (:func:`~explorer.probing.scores.score_layers`). Raises ``ValueError``
    for a store without that column, a column that cannot be probed (see
    :func:`check_label_column`) or a pooling that is not stored.
    """
    column = column or corpus.label_column
    if column is None:
        raise ValueError(
            "This store has no label column: name one of its other columns, or embed again "
            "with --label-column."
        )
    values = column_values(corpus, column)
    checked = check_label_column(column, values)
    if not checked.usable:
        raise ValueError(f"Column {column!r} cannot be probed: {checked.problem}.")
    chosen = probe_rows(values, limit, random_state)
    texts = corpus.texts
    plan = plan_folds(
        chosen.labels, None, folds, random_state, texts=[texts[i] for i in chosen.rows]
    )
    layers, stack = stored_stack(corpus, pooling, chosen.rows)
    scores = score_layers(stack, plan, progress, layers=layers, control=control)
    scores.attrs["rows"] = chosen
    return scores
