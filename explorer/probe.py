"""Which layer? Linear probes on every layer's vectors, scored by stratified cross-validation.

A probe is a logistic regression (features standardised first) that predicts a label from
one layer's vectors. If the probe does well on layer ``l``, the label is linearly readable
from that layer. Every layer is probed with the same folds, so the scores are comparable,
and the majority-class baseline says what guessing would score.

Two kinds of task:

* **sentence tasks** (``text, label``): one pooled vector per text and layer
  (:data:`explorer.pooling.POOLINGS`), all layers from one forward pass
  (:func:`explorer.embed_corpus`);
* **word tasks** (``text, word, label``): the vector of the first occurrence of ``word`` in
  each text, with its subwords combined by a mode of :data:`explorer.words.SUBWORD_MODES`.
  When the word differs between rows (the built-in word-sense set: bank, bat, ...), each
  word gets its own probe on its own rows (see :func:`plan_folds`): a probe trained on all
  words at once could score well just by recognising *which word* it sees, which even the
  static embedding layer can do.

Everything here is plain Python (no Streamlit); progress callbacks get ``(done, total)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from explorer.backend import Model
from explorer.embeddings import embed_corpus
from explorer.pooling import POOLINGS, validate_pooling
from explorer.uploads import read_csv
from explorer.words import SUBWORD_MODES, Occurrence, find_occurrences

Progress = Callable[[int, int], None]

MAX_ROWS = 5000
"""Most labelled rows a probe accepts (uploads included)."""

MAX_FOLDS = 10
TASKS = ("sentence", "word")
"""``sentence``: columns text, label. ``word``: columns text, word, label."""

SENTENCE_STRATEGIES = POOLINGS
WORD_STRATEGIES = SUBWORD_MODES


# -- folds and baseline ----------------------------------------------------------------------


@dataclass(frozen=True)
class ProbePlan:
    """Validated labels and the cross-validation folds every probe of one run shares.

    ``labels`` is ``(n,)`` str; ``groups`` is ``(n,)`` str or ``None`` (one probe per group,
    trained and tested on that group's rows only); ``splits`` holds ``folds`` pairs of index
    arrays ``(train, test)`` into the rows; ``baseline`` is the majority-class accuracy (per
    group, pooled over rows); ``notes`` are messages for the reader (folds lowered, ...).
    """

    labels: np.ndarray
    groups: np.ndarray | None
    folds: int
    random_state: int
    splits: tuple[tuple[np.ndarray, np.ndarray], ...]
    baseline: float
    notes: tuple[str, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.labels)

    def group_names(self) -> list[str]:
        """The groups in first-seen order (``[""]`` when there are none)."""
        if self.groups is None:
            return [""]
        return list(dict.fromkeys(self.groups.tolist()))


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
) -> ProbePlan:
    """Check the labels and build stratified ``folds``-fold splits shared by every probe.

    With ``groups``, each group is split on its own (stratified by its labels) and fold ``k``
    is the union of the groups' fold ``k``: one probe per group, accuracy pooled over all
    test rows of the fold. Raises ``ValueError`` for fewer than 2 classes (in any group), a
    class with a single example, more than :data:`MAX_ROWS` rows or ``folds`` outside
    2..:data:`MAX_FOLDS`. When the rarest class has fewer examples than ``folds`` (but at
    least 2), ``folds`` is lowered to that count and ``notes`` says so.
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
    rarest, rarest_where = None, ""
    for name in dict.fromkeys(group_values.tolist()):
        counts = pd.Series(values[group_values == name]).value_counts()
        where = f" for {name!r}" if name else ""
        if len(counts) < 2:
            only = counts.index[0]
            raise ValueError(
                f"Only one class{where} ({only!r}, {counts.iloc[0]} rows): a probe needs at "
                "least two different labels to tell apart."
            )
        if rarest is None or counts.iloc[-1] < rarest[1]:
            rarest, rarest_where = (counts.index[-1], int(counts.iloc[-1])), where
    assert rarest is not None
    notes = []
    if rarest[1] < 2:
        raise ValueError(
            f"Class {rarest[0]!r}{rarest_where} has a single example; cross-validation needs "
            "at least 2 examples of every class (one to train on, one to test)."
        )
    if rarest[1] < folds:
        notes.append(
            f"Class {rarest[0]!r}{rarest_where} has only {rarest[1]} examples, fewer than "
            f"{folds} folds: using {rarest[1]}-fold cross-validation instead."
        )
        folds = rarest[1]
    folds = int(folds)
    trains: list[list[np.ndarray]] = [[] for _ in range(folds)]
    tests: list[list[np.ndarray]] = [[] for _ in range(folds)]
    splitter = StratifiedKFold(folds, shuffle=True, random_state=random_state)
    for name in dict.fromkeys(group_values.tolist()):
        rows = np.flatnonzero(group_values == name)
        for k, (train, test) in enumerate(splitter.split(np.zeros(len(rows)), values[rows])):
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
    )


# -- the probe ---------------------------------------------------------------------------------


def make_probe(random_state: int = 0):
    """The linear probe: standardise features, then a multinomial logistic regression."""
    return make_pipeline(
        StandardScaler(), LogisticRegression(max_iter=2000, random_state=random_state)
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


def probe_accuracies(features: np.ndarray, plan: ProbePlan) -> np.ndarray:
    """Cross-validated accuracy of the linear probe on ``features (n, d)``: ``(folds,)``."""
    features = np.asarray(features, dtype=np.float32)
    if features.ndim != 2 or len(features) != len(plan):
        raise ValueError(f"Expected features of shape ({len(plan)}, d), got {features.shape}.")

    def fit_predict(train, train_labels, test):
        probe = make_probe(plan.random_state).fit(features[train], train_labels)
        return probe.predict(features[test])

    # Tiny problems: BLAS/OpenMP threads only add overhead here (50x on a busy 2-core box).
    with threadpool_limits(1):
        return fold_accuracies(plan, fit_predict)


def score_layers(
    stack: np.ndarray,
    plan: ProbePlan,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Probe every layer of ``stack (num_layers + 1, n, d)``.

    Returns one row per layer with ``layer``, ``accuracy_mean``, ``accuracy_std`` (over
    folds), ``baseline``, and ``fold_1`` … ``fold_k``; ``attrs`` holds ``baseline``,
    ``folds``, ``n`` and ``notes``.
    """
    stack = np.asarray(stack)
    if stack.ndim != 3:
        raise ValueError(f"Expected a (layers, n, d) stack, got shape {stack.shape}.")
    rows = []
    for layer in range(stack.shape[0]):
        scores = probe_accuracies(stack[layer], plan)
        rows.append(_score_row(layer, scores, plan))
        if progress is not None:
            progress(layer + 1, stack.shape[0])
    return _with_attrs(pd.DataFrame(rows), plan)


def compare_strategies(
    stacks: Mapping[str, np.ndarray],
    plan: ProbePlan,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Probe every layer under every strategy: ``stacks[name]`` is ``(layers + 1, n, d)``.

    Returns the rows of :func:`score_layers` with a leading ``strategy`` column, strategies
    in the order given; ``attrs`` as in :func:`score_layers`.
    """
    if not stacks:
        raise ValueError("No strategies to compare: choose at least one.")
    total = sum(np.shape(stack)[0] for stack in stacks.values())
    done = 0
    frames = []
    for name, stack in stacks.items():

        def step(layer_done: int, _total: int, offset: int = done) -> None:
            if progress is not None:
                progress(offset + layer_done, total)

        frame = score_layers(stack, plan, step)
        frames.append(frame.assign(strategy=name)[["strategy", *frame.columns]])
        done += np.shape(stack)[0]
    return _with_attrs(pd.concat(frames, ignore_index=True), plan)


def _score_row(layer: int, scores: np.ndarray, plan: ProbePlan) -> dict[str, object]:
    row: dict[str, object] = {
        "layer": layer,
        "accuracy_mean": float(scores.mean()),
        "accuracy_std": float(scores.std()),
        "baseline": plan.baseline,
    }
    row.update({f"fold_{k + 1}": float(s) for k, s in enumerate(scores)})
    return row


def _with_attrs(frame: pd.DataFrame, plan: ProbePlan) -> pd.DataFrame:
    frame.attrs.update(
        baseline=plan.baseline, folds=plan.folds, n=len(plan), notes=list(plan.notes)
    )
    return frame


def best_layers(scores: pd.DataFrame) -> pd.DataFrame:
    """The best layer of each strategy, best first (ties: the lower layer).

    ``scores`` comes from :func:`compare_strategies`; returns columns ``strategy``,
    ``layer``, ``accuracy_mean``, ``accuracy_std``, ``embedding_layer`` (layer-0 accuracy)
    and ``baseline``.
    """
    rows = []
    for name, frame in scores.groupby("strategy", sort=False):
        best = frame.sort_values(["accuracy_mean", "layer"], ascending=[False, True]).iloc[0]
        rows.append(
            {
                "strategy": name,
                "layer": int(best["layer"]),
                "accuracy_mean": float(best["accuracy_mean"]),
                "accuracy_std": float(best["accuracy_std"]),
                "embedding_layer": float(frame.loc[frame["layer"] == 0, "accuracy_mean"].iloc[0]),
                "baseline": float(best["baseline"]),
            }
        )
    return (
        pd.DataFrame(rows)
        .sort_values(["accuracy_mean", "layer"], ascending=[False, True])
        .reset_index(drop=True)
    )


# -- features ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WordFeatures:
    """Vectors of one word occurrence per text, at every layer, under every subword mode.

    ``vectors[mode]`` is ``(num_layers + 1, n_texts, hidden)`` float32; ``occurrences[i]``
    is the occurrence used for text ``i`` (the first one); ``num_split`` counts the
    occurrences made of more than one token (when it is 0 every mode gives the same vectors).
    """

    vectors: dict[str, np.ndarray]
    occurrences: tuple[Occurrence, ...]
    num_split: int


def _per_row_words(texts: Sequence[str], word: str | Sequence[str]) -> list[str]:
    if isinstance(word, str):
        return [word] * len(texts)
    words = [str(w) for w in word]
    if len(words) != len(texts):
        raise ValueError(f"Got {len(texts)} texts but {len(words)} words.")
    return words


def first_occurrences(
    model: Model, texts: Sequence[str], word: str | Sequence[str]
) -> list[Occurrence]:
    """The first occurrence of each text's word (one word for all, or one per text).

    Raises ``ValueError`` saying how many texts (and which rows) lack their word: a probe
    over silently dropped rows would answer a different question.
    """
    texts = list(texts)
    words = _per_row_words(texts, word)
    found: list[Occurrence | None] = [None] * len(texts)
    for target in dict.fromkeys(w.strip() for w in words):
        rows = [i for i, w in enumerate(words) if w.strip() == target]
        for occurrence in find_occurrences(model, [texts[i] for i in rows], target):
            row = rows[occurrence.text_index]
            if found[row] is None:
                found[row] = Occurrence(
                    row,
                    occurrence.token_start,
                    occurrence.token_end,
                    occurrence.char_start,
                    occurrence.char_end,
                    occurrence.surface,
                )
    missing = [i for i, o in enumerate(found) if o is None]
    if missing:
        shown = "; ".join(f"row {i + 1}: {words[i]!r} in {texts[i][:50]!r}" for i in missing[:3])
        raise ValueError(
            f"{len(missing)} of {len(texts)} texts do not contain their word as a whole word "
            f"({shown}{'; …' if len(missing) > 3 else ''}). Fix or remove those rows."
        )
    return found  # type: ignore[return-value]


def word_features(
    model: Model,
    texts: Sequence[str],
    word: str | Sequence[str],
    modes: Sequence[str] = SUBWORD_MODES,
    progress: Progress | None = None,
) -> WordFeatures:
    """One forward pass over ``texts``; the vector of each text's word at every layer.

    ``word`` is one word for all texts or one per text. Returns :class:`WordFeatures` with
    ``vectors[mode]`` ``(num_layers + 1, n_texts, hidden)`` for every subword ``mode``.
    Texts are batched, so memory grows with the number of texts, not their tokens.
    """
    for mode in modes:
        if mode not in SUBWORD_MODES:
            raise ValueError(f"Unknown subword mode {mode!r}; choose one of {SUBWORD_MODES}")
    texts = list(texts)
    occurrences = first_occurrences(model, texts, word)
    encoded = model.encode_batch(texts)
    shape = (model.num_layers + 1, len(texts), model.hidden_size)
    vectors = {mode: np.empty(shape, dtype=np.float32) for mode in modes}
    done = 0
    for batch in model.batches(encoded):
        hidden = model.forward(batch).numpy()
        for b, i in enumerate(batch.indices):
            occurrence = occurrences[i]
            span = hidden[:, b, occurrence.token_start : occurrence.token_end]
            for mode in modes:
                vectors[mode][:, i] = _aggregate(span, mode)
        done += len(batch.indices)
        if progress is not None:
            progress(done, len(texts))
    num_split = sum(o.num_tokens > 1 for o in occurrences)
    return WordFeatures(vectors, tuple(occurrences), num_split)


def _aggregate(span: np.ndarray, mode: str) -> np.ndarray:
    """``(layers, k, hidden)`` subword vectors -> ``(layers, hidden)``."""
    if mode == "first":
        return span[:, 0]
    if mode == "last":
        return span[:, -1]
    return {"mean": np.mean, "max": np.max, "sum": np.sum}[mode](span, axis=1)


def layer_scores(
    model: Model,
    texts: Sequence[str],
    labels: Sequence[object],
    word: str | Sequence[str] | None = None,
    pooling: str = "mean",
    folds: int = 5,
    random_state: int = 0,
    *,
    subwords: str = "mean",
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Cross-validated linear-probe accuracy at every layer, from one forward pass per text.

    Sentence task (``word=None``): each text is pooled with ``pooling`` (cls, mean, max,
    mean_max). Word task: the first occurrence of ``word`` in each text, its subwords
    combined with ``subwords``; ``word`` may be one string or one word per text, and then
    each word is probed on its own rows (one probe per word, accuracy pooled).

    Returns one row per layer (0 = embeddings … L) with ``layer``, ``accuracy_mean``,
    ``accuracy_std``, ``baseline`` (majority class) and ``fold_1`` …; ``attrs["baseline"]``,
    ``attrs["folds"]`` (after any lowering, see :func:`plan_folds`) and ``attrs["notes"]``.
    Raises ``ValueError`` for mismatched lengths, bad labels, unknown strategies and texts
    without their word.
    """
    if isinstance(texts, str):
        raise ValueError("Pass a list of texts, not a single string.")
    texts = list(texts)
    if len(texts) != len(labels):
        raise ValueError(f"Got {len(texts)} texts but {len(labels)} labels.")
    groups = None if word is None or isinstance(word, str) else _per_row_words(texts, word)
    plan = plan_folds(labels, groups, folds, random_state)
    if word is None:
        validate_pooling(pooling)
        stack = embed_corpus(model, texts).per_layer(pooling)
    else:
        stack = word_features(model, texts, word, (subwords,)).vectors[subwords]
    return score_layers(stack, plan, progress)


# -- labelled tables ---------------------------------------------------------------------------


def labelled_table(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Check an uploaded table and return ``(rows, task)``.

    ``frame`` needs columns ``text`` and ``label`` (sentence task) and optionally ``word``
    (word task); names are matched case-insensitively. Returns a fresh frame with columns
    ``text``, ``label`` (and ``word``), all strings, and ``"sentence"`` or ``"word"``.
    Raises ``ValueError`` for missing columns, empty cells, no rows or too many rows.
    """
    columns = {str(c).strip().lower(): c for c in frame.columns}
    missing = [c for c in ("text", "label") if c not in columns]
    if missing:
        found = ", ".join(repr(str(c)) for c in frame.columns) or "none"
        raise ValueError(
            f"The table has no {' or '.join(repr(c) for c in missing)} column (found: {found}). "
            "Use 'text,label' for sentence tasks or 'text,word,label' for word senses."
        )
    task = "word" if "word" in columns else "sentence"
    keep = ["text", "word", "label"] if task == "word" else ["text", "label"]
    rows = pd.DataFrame(
        {name: frame[columns[name]].fillna("").astype(str).str.strip() for name in keep}
    )
    if rows.empty:
        raise ValueError("The table has no rows.")
    if len(rows) > MAX_ROWS:
        raise ValueError(
            f"The table has {len(rows):,} rows; the limit is {MAX_ROWS:,}. Sample it down first."
        )
    for name in keep:
        empty = np.flatnonzero((rows[name] == "").to_numpy())
        if len(empty):
            where = ", ".join(str(i + 1) for i in empty[:5])
            raise ValueError(f"{len(empty)} row(s) have an empty {name!r} (rows {where}).")
    return rows.reset_index(drop=True), task


def read_labelled_csv(data: bytes) -> tuple[pd.DataFrame, str]:
    """Parse CSV bytes (:func:`explorer.uploads.read_csv`) and check them with
    :func:`labelled_table`."""
    return labelled_table(read_csv(data, max_rows=MAX_ROWS))
