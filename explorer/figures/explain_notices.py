"""What to notice on the explanation views: one or two sentences derived from the numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer._shown import extremes, join, shown
from explorer.explain import MAX_CONTEXTS, REFERENCES, Explanation


def explanation_notice(explained: Explanation) -> str:
    """What stands out in a cosine's split: which pair gives most, how much the special
    tokens (named as the model writes them: ``[CLS]``, ``<s>``, ...) and identical tokens give,
    how concentrated the parts are; for ``cls``, what the words add over a text of the model's
    padding tokens and the completeness gap."""
    if explained.pairs is None:
        added = [explained.explained(side) for side in ("a", "b")]
        first = explained.tokens_a[0] if explained.special_a and explained.special_a[0] else "first"
        return (
            f"With {first} pooling the cosine is {explained.score:.3f}. Replacing every word by "
            f"{explained.baseline_name().removesuffix('s')} leaves "
            f"{explained.baseline_scores[0]:.3f} (first text) and "
            f"{explained.baseline_scores[1]:.3f} (second text): the words add {added[0]:+.3f} "
            f"and {added[1]:+.3f}, shared among them as shaded (integrated gradients, "
            f"{explained.steps} steps, gap {explained.gap:.1e})."
        )
    score, pairs = explained.score, explained.pairs
    parts = []
    i, j, value = explained.top_pairs(1)[0]
    parts.append(
        f"The cosine is {score:.3f}; the largest part, {value / score:.0%} of it, comes from "
        f"{explained.tokens_a[i]!r} with {explained.tokens_b[j]!r}."
        if abs(score) > 1e-9
        else f"The cosine is about 0; the largest pair is {explained.tokens_a[i]!r} with "
        f"{explained.tokens_b[j]!r} ({value:+.3f})."
    )
    if abs(score) > 1e-9:
        special = np.array(explained.special_a)[:, None] | np.array(explained.special_b)[None, :]
        special_share = pairs[special].sum() / score
        same = np.array(explained.tokens_a)[:, None] == np.array(explained.tokens_b)[None, :]
        same_share = pairs[same & ~special].sum() / score
        if special_share >= 0.15:
            parts.append(
                f"Pairs with a special token ({', '.join(explained.special_tokens())}) give "
                f"{special_share:.0%}: part of "
                "the similarity is the texts' shared frame, not their words."
            )
        if same_share >= 0.25:
            parts.append(
                f"The same token in both texts gives {same_share:.0%}: shared words weigh "
                "heavily in this cosine."
            )
        size = pairs.size
        top = np.sort(pairs, axis=None)[::-1][: max(1, size // 10)].sum() / score
        parts.append(
            f"The top tenth of the {size} pairs gives {top:.0%} of the cosine"
            + (": a few pairs decide it." if top >= 0.5 else ": it is spread over many pairs.")
        )
    return " ".join(parts)


def cka_notice(trained: np.ndarray, random: np.ndarray | None = None) -> str:
    """Where the representation changes most (the neighbouring layers with the lowest CKA)
    and, with the random-weights matrix, how training changed the layers' likeness."""
    trained = np.asarray(trained)
    steps = np.diag(trained, k=1)
    where = extremes(steps)[1]  # the lowest CKA as shown: every step that ties there
    between = join([f"between layer {w} and layer {w + 1}" for w in where])
    first_last = f"the first and last layers have CKA {shown(trained[0, -1])}."
    if len(steps) > 1 and len(where) == len(steps):  # every step shows the same CKA
        sentence = (
            f"Neighbouring layers are equally alike at the precision shown (CKA "
            f"{shown(steps[0])} at each step): no step stands out; " + first_last
        )
    else:
        sentence = (
            f"The representation changes most {between} (CKA {shown(steps[where[0]])}"
            f"{' each' if len(where) > 1 else ''}); " + first_last
        )
    if random is not None:
        off = ~np.eye(len(trained), dtype=bool)
        mean_trained, mean_random = trained[off].mean(), np.asarray(random)[off].mean()
        if mean_random > mean_trained + 0.05:
            verdict = "training made the layers differ from one another"
        elif mean_random < mean_trained - 0.05:
            verdict = "training made the layers more alike"
        else:
            verdict = "training changed the layers' likeness little"
        sentence += (
            f" With random weights the mean CKA between layers is {mean_random:.2f}, trained "
            f"{mean_trained:.2f}: {verdict}."
        )
    return sentence


ANISOTROPIC = 0.1
"""A mean cosine of random tokens at least this large counts as a shared direction
(anisotropy); below it, a layer's vectors are nearly isotropic."""

CHANGE = 0.05
"""A change of an adjusted measure across the layers smaller than this counts as none."""

ABOVE_CHANCE = 0.1
"""Sense accuracy this far above chance (or above the embedding layer) counts as a gain."""


def _layers(index) -> str:
    """``"layer 3"``, ``"layers 0 and 6"``, ``"layers 1, 2 and 5"``."""
    names = [str(int(i)) for i in index]
    if len(names) == 1:
        return f"layer {names[0]}"
    return f"layers {', '.join(names[:-1])} and {names[-1]}"


def _anisotropy(measures: pd.DataFrame) -> str:
    cosine = measures["baseline_cosine"]
    source = REFERENCES["anisotropy"].source.split(",")[0]
    spread = f"Random tokens of different sentences have a mean cosine of {cosine.min():.2f} to "
    low = cosine[cosine < ANISOTROPIC]
    if low.empty:
        return (
            spread + f"{cosine.max():.2f} (highest at "
            f"{_layers(cosine.index[extremes(cosine)[0]])}): the vectors "
            f"share a common direction in every layer, as {source} found for BERT-base."
        )
    return (
        spread + f"{cosine.max():.2f}; under {ANISOTROPIC} at {_layers(low.index)}: nearly no "
        f"common direction there, unlike the anisotropy {source} found in every layer of "
        "BERT-base."
    )


def _self_similarity(measures: pd.DataFrame) -> str:
    adjusted = measures["self_similarity_adjusted"]
    first, last = adjusted.index[min(1, len(adjusted) - 1)], adjusted.index[-1]
    change = adjusted.loc[last] - adjusted.loc[first]
    sentence = (
        f"Self-similarity (adjusted) goes from {adjusted.loc[first]:.2f} at layer {first} to "
        f"{adjusted.loc[last]:.2f} at layer {last}: "
    )
    if change <= -CHANGE:
        verdict = "a word's vectors differ more from sentence to sentence in the upper layers, "
        verdict += "which are more context-specific, as the paper found for BERT-base"
    elif change >= CHANGE:
        verdict = "the upper layers are less context-specific, unlike the paper's BERT-base"
    else:
        verdict = "about as context-specific at the top as at the bottom, unlike the paper's "
        verdict += "BERT-base, whose upper layers are more context-specific"
    return sentence + verdict + f"; source: {REFERENCES['self_similarity'].source}."


def _intra_sentence(measures: pd.DataFrame) -> str:
    adjusted = measures["intra_sentence_similarity_adjusted"]
    first, last = adjusted.index[min(1, len(adjusted) - 1)], adjusted.index[-1]
    change = adjusted.loc[last] - adjusted.loc[first]
    return (
        f"Intra-sentence similarity (adjusted) goes from {adjusted.loc[first]:.2f} at layer "
        f"{first} to {adjusted.loc[last]:.2f} at layer {last}: "
        + (
            "the words of one sentence grow more alike toward the top."
            if change >= CHANGE
            else "the words of one sentence grow less alike toward the top."
            if change <= -CHANGE
            else "the words of one sentence stay about as alike at every layer."
        )
    )


def _mev_range(mev: pd.Series) -> str:
    """``"highest 78% at layer 0, lowest 14% at layer 12"``: the range with its layers, so it
    does not read as rising when it falls (``"14% to 78%"`` did)."""
    if f"{mev.min():.0%}" == f"{mev.max():.0%}":
        return f"{mev.min():.0%} in every layer"
    highest, lowest = extremes(mev, as_percent=True)
    return (
        f"highest {mev.max():.0%} at {_layers(mev.index[highest])}, lowest {mev.min():.0%} at "
        f"{_layers(mev.index[lowest])}"
    )


def _mev(measures: pd.DataFrame) -> str:
    mev = measures["mev_adjusted"]
    bound = REFERENCES["mev"].value
    above = int((mev > bound).sum())
    sentence = f"Maximum explainable variance (adjusted): {_mev_range(mev)}; "
    if above:
        sentence += (
            f"above the paper's under-{bound:.0%} for BERT-base in {above} of {len(mev)} layers: "
            "one static vector explains more of a word's vectors here. MEV is higher when a word "
            f"has fewer contexts (at most {MAX_CONTEXTS} here), so compare its shape across "
            "layers more than its level"
        )
    else:
        sentence += f"under {bound:.0%} in every layer, as the paper found for BERT-base"
    return sentence + f"; source: {REFERENCES['mev'].source}."


def _senses(senses: pd.DataFrame) -> str:
    accuracy, chance = senses["accuracy"], float(senses["chance"].iloc[0])
    best, first = accuracy.index[extremes(accuracy, as_percent=True)[0]], int(accuracy.index[0])
    numbers = (
        f"Word senses by nearest centroid: {accuracy.loc[first]:.0%} at the embedding layer, "
        f"best {accuracy.max():.0%} at {_layers(best)} (chance {chance:.0%}): "
    )
    if accuracy.max() - chance < ABOVE_CHANCE:
        verdict = "barely above chance, so unlike BERT-base's, this model's vectors do not "
        verdict += "separate the senses"
    elif accuracy.max() - accuracy.loc[first] < ABOVE_CHANCE:
        verdict = "the word alone already tells the senses apart about as well, so the context "
        verdict += "adds little here, unlike BERT-base, whose context-mixing layers separate them"
    else:
        verdict = "the context-mixing layers separate the senses, as they do in BERT-base"
    return numbers + verdict + f"; source: {REFERENCES['sense'].source}."


def classic_notice(measures: pd.DataFrame, senses: pd.DataFrame | None = None) -> list[str]:
    """What the model in use does, measure by measure, and whether the papers found the same
    for BERT-base (:data:`explorer.explain._classic.REFERENCES`): one sentence each for
    anisotropy, self-similarity, intra-sentence similarity, maximum explainable variance and
    (with ``senses``) word senses. Thresholds: :data:`ANISOTROPIC`, :data:`CHANGE`,
    :data:`ABOVE_CHANCE`."""
    notes = [
        _anisotropy(measures),
        _self_similarity(measures),
        _intra_sentence(measures),
        _mev(measures),
    ]
    if senses is not None:
        notes.append(_senses(senses))
    return notes


def classic_random_notice(
    trained: tuple[pd.DataFrame, pd.DataFrame], random: tuple[pd.DataFrame, pd.DataFrame]
) -> str:
    """What training changed: the ``(measures, senses)`` of the model against those of the
    same architecture with random weights (self-similarity's change across the layers, the
    best sense accuracy)."""

    def change(measures: pd.DataFrame) -> float:
        adjusted = measures["self_similarity_adjusted"]
        return float(adjusted.iloc[-1] - adjusted.iloc[min(1, len(adjusted) - 1)])

    best_trained, best_random = trained[1]["accuracy"].max(), random[1]["accuracy"].max()
    chance = float(trained[1]["chance"].iloc[0])
    sentence = (
        f"With random weights, self-similarity (adjusted) changes by {change(random[0]):+.2f} "
        f"from layer 1 to the top (trained: {change(trained[0]):+.2f}) and the senses are "
        f"told apart at best {best_random:.0%} of the time (trained: {best_trained:.0%}, "
        f"chance {chance:.0%}): "
    )
    if best_trained - best_random >= ABOVE_CHANCE:
        return sentence + "the separation of senses is learned, not the architecture's."
    return sentence + "training adds little to the separation of senses here."


def classic_table(measures: pd.DataFrame, senses: pd.DataFrame | None = None) -> pd.DataFrame:
    """The papers' findings on BERT-base beside the model in use: one row per entry of
    :data:`~explorer.explain._classic.REFERENCES` (``senses`` needed for the last) with
    ``measurement``, ``this model`` (its numbers), ``BERT-base in the paper`` and
    ``source``."""
    last = int(measures.index[-1])
    cosine, mev = measures["baseline_cosine"], measures["mev_adjusted"]
    self_sim = measures["self_similarity_adjusted"]
    ours = {
        "anisotropy": f"random tokens' mean cosine {cosine.min():.2f} to {cosine.max():.2f}",
        "self_similarity": f"adjusted {self_sim.iloc[min(1, last)]:.2f} at layer "
        f"{min(1, last)}, {self_sim.iloc[-1]:.2f} at layer {last}",
        "mev": f"adjusted: {_mev_range(mev)}",
    }
    names = {
        "anisotropy": "Anisotropy",
        "self_similarity": "Self-similarity",
        "mev": "Maximum explainable variance",
        "sense": "Word senses by nearest centroid",
    }
    if senses is not None:
        accuracy = senses["accuracy"]
        ours["sense"] = (
            f"best {accuracy.max():.0%} at "
            f"{_layers(accuracy.index[extremes(accuracy, as_percent=True)[0]])} (chance "
            f"{float(senses['chance'].iloc[0]):.0%})"
        )
    return pd.DataFrame(
        [
            {
                "measurement": names[key],
                "this model": ours[key],
                "BERT-base in the paper": REFERENCES[key].finding,
                "source": REFERENCES[key].source,
            }
            for key in REFERENCES
            if key in ours
        ]
    )
