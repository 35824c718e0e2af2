"""Measures of both models over relative depth (layer / number of layers): the sense gap of
Word in context, self-similarity and the anisotropy baseline of How contextual?, and the
probe accuracy of Which layer?, each from the single-model function those pages use."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from explorer.context import pair_kinds, pair_similarities, sense_gap
from explorer.explain import classic_measures
from explorer.model import Model
from explorer.probing import layer_scores
from explorer.subwords import aggregate_subwords
from explorer.words import find_occurrences, word_layer_vectors

MEASURES = {
    "sense_gap": "Sense gap (same − different sense cosine)",
    "self_similarity": "Self-similarity",
    "anisotropy": "Anisotropy baseline (random tokens' cosine)",
    "probe": "Probe accuracy (topic)",
}
"""The measures :func:`depth_curves` gives, by key, with their titles."""

COLUMNS = ["model", "layer", "depth", "measure", "value"]


def interleaved(frame: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """``frame``'s rows taken in turn from each group of ``by`` (the first row of every group,
    then the second, ...), so that any first rows hold every group: a cap on the built-in
    corpora then keeps every topic, and every sense of every word."""
    turn = frame.groupby(list(by), sort=False).cumcount()
    return frame.iloc[np.argsort(turn.to_numpy(), kind="stable")]


def pooled_sense_gap(
    model: Model, senses: pd.DataFrame, states: Sequence[np.ndarray] | None = None
) -> pd.Series:
    """Same-sense minus different-sense cosine at every layer over the labelled sentences
    ``senses`` (columns ``word``, ``sense``, ``text``): each word's occurrence pairs as Word in
    context forms them (:func:`explorer.context.pair_similarities`, uncentred), all words'
    pairs pooled into one :func:`explorer.context.sense_gap`. ``states``: the sentences'
    hidden states in the rows' order when already computed (one ``(L+1, tokens, H)`` array
    each, :meth:`explorer.model.Model.hidden_states_batch`), so no forward pass runs here;
    without them each word's sentences are read (:func:`explorer.words.word_layer_vectors`)."""
    senses = senses.reset_index(drop=True)
    if states is not None and len(states) != len(senses):
        raise ValueError(f"Got {len(senses)} sentences but hidden states for {len(states)}.")
    similarities, kinds = [], []
    for word, rows in senses.groupby("word", sort=False):
        if states is None:
            occurrences, vectors = word_layer_vectors(model, rows["text"].tolist(), str(word))
        else:
            occurrences = find_occurrences(model, rows["text"].tolist(), str(word))
            if not occurrences:
                raise ValueError(f"{str(word).strip()!r} does not occur in its sentences.")
            vectors = np.stack(
                [
                    aggregate_subwords(
                        states[rows.index[o.text_index]][:, o.token_start : o.token_end], "mean"
                    )
                    for o in occurrences
                ],
                axis=1,
            )
        similarities.append(pair_similarities(vectors))
        kinds += pair_kinds(occurrences, rows["sense"].tolist())
    return sense_gap(np.concatenate(similarities, axis=1), kinds)["gap"]


def model_curves(
    model: Model,
    senses: pd.DataFrame,
    texts: Sequence[str],
    labels: Sequence[object],
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """One model's measures by layer, long: ``layer``, ``depth`` (layer / num_layers),
    ``measure`` (a key of :data:`MEASURES`), ``value``. The sense sentences run through the
    model once, for the sense gap, self-similarity and the anisotropy baseline together.
    ``progress(done, total)`` over the sense sentences then the probe's layers."""
    total = len(senses) + model.num_layers + 1

    def step(offset: int) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        return lambda done, _total: progress(min(total, offset + done), total)

    sentences = senses["text"].tolist()
    states = model.hidden_states_batch(sentences, progress=step(0))  # one pass, both measures
    classic = classic_measures(model, sentences, states=states)
    gap = pooled_sense_gap(model, senses, states)
    del states
    probe = layer_scores(model, list(texts), list(labels), progress=step(len(senses)))
    values = {
        "sense_gap": gap.to_numpy(),
        "self_similarity": classic["self_similarity"].to_numpy(),
        "anisotropy": classic["baseline_cosine"].to_numpy(),
        "probe": probe["accuracy_mean"].to_numpy(),
    }
    layers = np.arange(model.num_layers + 1)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "layer": layers,
                    "depth": layers / model.num_layers,
                    "measure": key,
                    "value": np.asarray(column, dtype=np.float64),
                }
            )
            for key, column in values.items()
        ],
        ignore_index=True,
    )


def depth_curves(
    model_a: Model,
    model_b: Model,
    senses: pd.DataFrame,
    texts: Sequence[str],
    labels: Sequence[object],
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """:func:`model_curves` of both models, one long table with ``model`` ``"A"`` or ``"B"``
    (columns :data:`COLUMNS`). ``progress(done, total)`` over both models' work.
    ``ValueError`` (from the single-model functions) when the texts are too few to measure."""
    frames = []
    for index, (name, model) in enumerate((("A", model_a), ("B", model_b))):
        report = None
        if progress is not None:
            report = lambda done, total, index=index: progress(index * total + done, 2 * total)  # noqa: E731
        frame = model_curves(model, senses, texts, labels, report)
        frame.insert(0, "model", name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def depth_notice(curves: pd.DataFrame, label_a: str, label_b: str) -> str:
    """What to notice: where each model's sense gap and probe accuracy peak in relative depth,
    read from ``curves`` (:func:`depth_curves`): the first layer at the peak, and how many
    layers reach it when several do (a probe's accuracy often holds 1.00 over many)."""
    parts = []
    for key, what in (("sense_gap", "sense gap"), ("probe", "probe accuracy")):
        peaks = []
        for name, label in (("A", label_a), ("B", label_b)):
            rows = curves[(curves["model"] == name) & (curves["measure"] == key)]
            if rows.empty:
                continue
            best = rows.loc[rows["value"].idxmax()]
            reach = int(np.sum(rows["value"].to_numpy() >= best["value"] - 1e-9))
            tied = f"; {reach} of its {len(rows)} layers reach it" if reach > 1 else ""
            peaks.append(
                f"{label} at layer {int(best['layer'])} ({best['depth']:.0%} deep, "
                f"{best['value']:.2f}{tied})"
            )
        if peaks:
            parts.append(f"The {what} peaks for " + " and for ".join(peaks) + ".")
    return " ".join(parts)
