"""Which layer? Linear-probe accuracy at every layer, under one or several feature choices.

:func:`layer_scores` runs the whole thing for one task (features, folds, a probe per layer);
:func:`score_layers` and :func:`compare_features` score stacks of features already built
(the page caches the forward pass and rescores), :func:`best_layers` summarises.

In the score tables the ``features`` column says how the features were made: a pooling
(:data:`explorer.pooling.POOLINGS`) for a sentence task, a subword mode
(:data:`explorer.subwords.SUBWORD_MODES`) for a word task.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from explorer._shown import extremes, join, lowered, shown
from explorer.choice import VectorChoice, vector_choice
from explorer.embeddings import embed_corpus
from explorer.model import Model
from explorer.probing.control import control_plan
from explorer.probing.features import Progress, word_features
from explorer.probing.folds import ProbePlan, plan_folds, summary_row
from explorer.probing.linear import probe_accuracies
from explorer.words import words_per_text


def score_layers(
    stack: np.ndarray,
    plan: ProbePlan,
    progress: Progress | None = None,
    *,
    layers: Sequence[int] | None = None,
    control: bool = False,
) -> pd.DataFrame:
    """Probe every layer of ``stack (num_layers + 1, n, d)``.

    ``layers`` numbers the stack's rows when they are not ``0 … num_layers`` (a corpus store
    keeping only some layers: ``(0, 3, 6)``). Returns one row per layer with ``layer``,
    ``accuracy_mean``, ``accuracy_std`` (over folds), ``baseline``, and ``fold_1`` …
    ``fold_k``; ``attrs`` holds ``baseline``, ``folds``, ``n`` and ``notes``.
    ``progress(layers_done, layers_total)`` after each layer. With ``control``, the same
    probe on the same folds also learns the control task
    (:func:`explorer.probing.control.control_labels`) and each row gains ``control_mean``,
    ``control_std`` and ``selectivity`` (``accuracy_mean - control_mean``); twice the work.
    """
    stack = np.asarray(stack)
    if stack.ndim != 3:
        raise ValueError(f"Expected a (layers, n, d) stack, got shape {stack.shape}.")
    numbers = list(range(stack.shape[0])) if layers is None else [int(i) for i in layers]
    if len(numbers) != stack.shape[0]:
        raise ValueError(f"Got {len(numbers)} layer numbers for a stack of {stack.shape[0]}.")
    rows = []
    controlled = control_plan(plan) if control else None
    for index, layer in enumerate(numbers):
        scores = probe_accuracies(stack[index], plan)
        rows.append({"layer": layer, **summary_row(scores, plan)})
        if controlled is not None:
            chance = probe_accuracies(stack[index], controlled)
            rows[-1].update(
                control_mean=float(chance.mean()),
                control_std=float(chance.std()),
                selectivity=float(scores.mean() - chance.mean()),
            )
        if progress is not None:
            progress(index + 1, stack.shape[0])
    return _with_attrs(pd.DataFrame(rows), plan)


def compare_features(
    stacks: Mapping[str, np.ndarray],
    plan: ProbePlan,
    progress: Progress | None = None,
    control: bool = False,
) -> pd.DataFrame:
    """Probe every layer of every kind of features: ``stacks[name]`` is ``(L + 1, n, d)``.

    ``name`` is a pooling (sentence task) or a subword mode (word task). Returns the rows
    of :func:`score_layers` (with ``control``, its control columns) with a leading
    ``features`` column (the names, in the order given); ``attrs`` as in :func:`score_layers`.
    """
    if not stacks:
        raise ValueError("No features to compare: choose at least one pooling or subword mode.")
    total = sum(np.shape(stack)[0] for stack in stacks.values())
    done = 0
    frames = []
    for name, stack in stacks.items():

        def step(layer_done: int, _total: int, offset: int = done) -> None:
            if progress is not None:
                progress(offset + layer_done, total)

        frame = score_layers(stack, plan, step, control=control)
        frames.append(frame.assign(features=name)[["features", *frame.columns]])
        done += np.shape(stack)[0]
    return _with_attrs(pd.concat(frames, ignore_index=True), plan)


def _with_attrs(frame: pd.DataFrame, plan: ProbePlan) -> pd.DataFrame:
    frame.attrs.update(
        baseline=plan.baseline, folds=plan.folds, n=len(plan), notes=list(plan.notes)
    )
    return frame


def best_layers(scores: pd.DataFrame) -> pd.DataFrame:
    """The best layer of each kind of features, best first (ties: the lower layer).

    ``scores`` comes from :func:`compare_features`; returns columns ``features``,
    ``layer``, ``within_noise`` (:func:`layers_within_noise` as text, e.g. ``"3–6"``),
    ``accuracy_mean``, ``accuracy_std``, ``embedding_layer`` (layer-0 accuracy, NaN when
    layer 0 was not probed) and ``baseline``; with control columns in ``scores``, also the
    best layer's ``control_mean`` and ``selectivity``.
    """
    rows = []
    for name, frame in scores.groupby("features", sort=False):
        best = frame.sort_values(["accuracy_mean", "layer"], ascending=[False, True]).iloc[0]
        embedding = frame.loc[frame["layer"] == 0, "accuracy_mean"]
        rows.append(
            {
                "features": name,
                "layer": int(best["layer"]),
                "within_noise": layer_ranges(layers_within_noise(frame)),
                "accuracy_mean": float(best["accuracy_mean"]),
                "accuracy_std": float(best["accuracy_std"]),
                "embedding_layer": float(embedding.iloc[0]) if len(embedding) else float("nan"),
                "baseline": float(best["baseline"]),
            }
        )
        if "selectivity" in frame.columns:
            rows[-1].update(
                control_mean=float(best["control_mean"]),
                selectivity=float(best["selectivity"]),
            )
    return (
        pd.DataFrame(rows)
        .sort_values(["accuracy_mean", "layer"], ascending=[False, True])
        .reset_index(drop=True)
    )


def layers_within_noise(scores: pd.DataFrame) -> list[int]:
    """The layers of one kind of features' ``scores`` (columns ``layer``, ``accuracy_mean``,
    ``accuracy_std``) that cannot be told apart from the best one: their error bars (mean ±
    one standard deviation over folds) overlap the best layer's. Which single layer comes out
    best flips between runs within that band; the band is what to report."""
    best = scores.sort_values(["accuracy_mean", "layer"], ascending=[False, True]).iloc[0]
    floor = float(best["accuracy_mean"]) - float(best["accuracy_std"])
    reach = scores["accuracy_mean"] + scores["accuracy_std"].fillna(0)
    return sorted(int(layer) for layer in scores.loc[reach >= floor, "layer"])


def layer_gaps(layers: Sequence[int]) -> list[int]:
    """The layers missing between the first and the last of ``layers``: ``[1, 3, 4]`` ->
    ``[2]``."""
    present = set(layers)
    return [k for k in range(min(present), max(present)) if k not in present] if present else []


def layer_ranges(layers: Sequence[int]) -> str:
    """Layer numbers as ranges: ``[1, 3, 4, 5]`` -> ``"1, 3–5"``."""
    parts: list[list[int]] = []
    for layer in sorted(layers):
        if parts and layer == parts[-1][-1] + 1:
            parts[-1].append(layer)
        else:
            parts.append([layer])
    return ", ".join(str(p[0]) if len(p) == 1 else f"{p[0]}–{p[-1]}" for p in parts)


def layer_scores(
    model: Model,
    texts: Sequence[str],
    labels: Sequence[object],
    word: str | Sequence[str] | None = None,
    pooling: VectorChoice | str = "mean",
    folds: int = 5,
    random_state: int = 0,
    *,
    subwords: str | None = None,
    progress: Progress | None = None,
    control: bool = False,
) -> pd.DataFrame:
    """Cross-validated linear-probe accuracy at every layer, from one forward pass per text.

    ``pooling`` is a :class:`explorer.VectorChoice` (its layers are ignored: every layer is
    probed) or a pooling name, with ``subwords`` beside it (default ``mean``). Sentence task
    (``word=None``): each text is pooled with the pooling (cls, mean, max, mean_max). Word
    task: the first occurrence of ``word`` in each text, its subwords combined with the
    subword mode; ``word`` may be one string or one word per text, and then
    each word is probed on its own rows (one probe per word, accuracy pooled).
    ``progress(layers_done, layers_total)`` while probing.

    Returns one row per layer (0 = embeddings … L) with ``layer``, ``accuracy_mean``,
    ``accuracy_std``, ``baseline`` (majority class) and ``fold_1`` …; ``attrs["baseline"]``,
    ``attrs["folds"]`` (after any lowering, see :func:`plan_folds`) and ``attrs["notes"]``
    (how many rows repeat a text, among others: identical texts, ignoring case and spacing,
    always share a fold). With ``control``, also ``control_mean``, ``control_std`` and
    ``selectivity`` (accuracy minus control accuracy; :mod:`explorer.probing.control`).
    Raises ``ValueError`` for mismatched lengths, bad labels, an unknown pooling or subword
    mode and texts without their word.
    """
    if isinstance(texts, str):
        raise ValueError("Pass a list of texts, not a single string.")
    texts = list(texts)
    if len(texts) != len(labels):
        raise ValueError(f"Got {len(texts)} texts but {len(labels)} labels.")
    groups = None if word is None or isinstance(word, str) else words_per_text(texts, word)
    choice = vector_choice(pooling, subwords=subwords)
    plan = plan_folds(labels, groups, folds, random_state, texts=texts)
    if word is None:
        stack = embed_corpus(model, texts).per_layer(choice)
    else:
        stack = word_features(model, texts, word, (choice.subwords,)).vectors[choice.subwords]
    return score_layers(stack, plan, progress, control=control)


def probe_notice(
    best: pd.DataFrame, labels: Mapping[str, str] | None = None, what: str = "label"
) -> str:
    """What the "Which layer?" page shows, in one or two plain sentences (plain text; escape
    to show): where the ``what`` (``"label"``, ``"word's sense"``) is read best and by how much
    over guessing, and what the embedding layer (before any context) already gets.

    ``best`` comes from :func:`best_layers` (best features first); ``labels`` names the
    poolings or subword modes (e.g. :data:`explorer.pooling.POOLING_LABELS`). Raises ``ValueError``
    when it is empty.
    """
    if best.empty:
        raise ValueError("No probe scores to describe: probe at least one pooling or subword mode.")
    labels = labels or {}
    top = best.iloc[0]
    name = lowered(labels.get(top["features"], top["features"]))
    accuracy, spread = float(top["accuracy_mean"]), float(top["accuracy_std"])
    baseline, embedding = float(top["baseline"]), float(top["embedding_layer"])
    band = str(top["within_noise"])
    layers = f"layer{'s' if '–' in band or ',' in band else ''} {band}"
    dips = layer_gaps(_expand(band)) if re.search(r"\d", band) else []
    if dips:
        layers += (
            f" (layer{'s' if len(dips) > 1 else ''} {layer_ranges(dips)} in between "
            f"{'dip' if len(dips) > 1 else 'dips'} lower)"
        )
    if accuracy - spread <= baseline:
        first = (
            f"No layer reads the {what} clearly better than always guessing the most common one "
            f"({baseline:.2f}): the best, {layers} with {name}, scores {accuracy:.2f} ± "
            f"{spread:.2f}."
        )
    else:
        first = (
            f"The {what} is read best at {layers} with {name}: {accuracy:.2f} ± {spread:.2f}, "
            f"{accuracy - baseline:+.2f} over always guessing the most common one ({baseline:.2f})."
        )
    gain = accuracy - baseline
    if np.isnan(embedding):
        second = "The embedding layer (0) was not probed: the data keep only some layers."
    elif gain > 0 and embedding - baseline >= 0.8 * gain:
        second = (
            f"The embedding layer (0), before any context, already reaches {embedding:.2f}: "
            "most of it is in the words themselves."
        )
    else:
        second = (
            f"The embedding layer (0), before any context, reaches {embedding:.2f}; the "
            f"context-mixing layers add {accuracy - embedding:+.2f}."
        )
    if len(best) > 1:
        second += _other_choices(best, labels)
    return f"{first} {second}"


def _other_choices(best: pd.DataFrame, labels: Mapping[str, str]) -> str:
    """The strategies after the best one in ``best`` (best first), read at the two decimals
    shown: those whose peak ties the best's, and the weakest (every one tied there), or that
    they all tie."""
    names = [lowered(labels.get(s, s)) for s in best["features"]]
    peaks = [float(v) for v in best["accuracy_mean"]]
    high, low = extremes(peaks)
    text = ""
    if len(high) > 1:
        text += (
            f" The peak is the same ({shown(peaks[0])}) with {join([names[i] for i in high[1:]])}."
        )
    if len(high) == len(best):
        return text
    weakest, peak = join([names[i] for i in low]), shown(peaks[low[0]])
    if len(low) == 1:
        return text + f" The weakest choice, {weakest}, peaks at {peak}."
    return text + f" The weakest choices, {weakest}, peak at {peak} each."


def _expand(band: str) -> list[int]:
    """``"1, 3–5"`` -> ``[1, 3, 4, 5]`` (the inverse of :func:`layer_ranges`)."""
    layers: list[int] = []
    for part in band.split(","):
        ends = [int(k) for k in part.split("–")]
        layers.extend(range(ends[0], ends[-1] + 1))
    return layers
