"""What to notice on the explanation views: one or two sentences derived from the numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer.explain import Explanation
from explorer.explain._classic import REFERENCES


def explanation_notice(explained: Explanation) -> str:
    """What stands out in a cosine's split: which pair gives most, how much the special
    tokens and identical tokens give, how concentrated the parts are; for ``cls``, what the
    words add over a text of [PAD]s and the completeness gap."""
    if explained.pairs is None:
        added = [explained.explained(side) for side in ("a", "b")]
        return (
            f"With [CLS] pooling the cosine is {explained.score:.3f}. Replacing every word by "
            f"[PAD] leaves {explained.baseline_scores[0]:.3f} (first text) and "
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
                f"Pairs with a special token ([CLS], [SEP]) give {special_share:.0%}: part of "
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
    where = int(np.argmin(steps))
    sentence = (
        f"The representation changes most between layer {where} and layer {where + 1} "
        f"(CKA {steps[where]:.2f}); the first and last layers have CKA {trained[0, -1]:.2f}."
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


def classic_notice(measures: pd.DataFrame, senses: pd.DataFrame | None = None) -> list[str]:
    """What the model in use does, measure by measure, beside the papers' findings on
    BERT-base (:data:`explorer.explain._classic.REFERENCES`)."""
    last = measures.index[-1]
    notes = []
    anisotropy = measures["baseline_cosine"]
    peak = int(anisotropy.idxmax())
    notes.append(
        f"Anisotropy: random tokens of different sentences have a mean cosine of "
        f"{anisotropy.min():.2f} to {anisotropy.max():.2f} (highest at layer {peak}). "
        f"{REFERENCES['anisotropy'].source}: {REFERENCES['anisotropy'].finding}"
    )
    self_sim = measures["self_similarity_adjusted"]
    falls = self_sim.loc[last] < self_sim.loc[1] if len(self_sim) > 2 else False
    notes.append(
        f"Self-similarity (adjusted) goes from {self_sim.loc[1]:.2f} at layer 1 to "
        f"{self_sim.loc[last]:.2f} at layer {last}: "
        + (
            "lower at the top, as the paper found: the upper layers are more context-specific."
            if falls
            else "not lower at the top, unlike the paper's BERT-base."
        )
        + f" ({REFERENCES['self_similarity'].source})"
    )
    mev = measures["mev_adjusted"]
    bound = REFERENCES["mev"].value
    above = int((mev > bound).sum())
    notes.append(
        f"Maximum explainable variance (adjusted): {mev.min():.0%} to {mev.max():.0%}; "
        + (
            f"in {above} of {len(mev)} layers above the paper's under-{bound:.0%} for "
            "BERT-base: one static vector explains more of a word's vectors here. MEV depends "
            "on how many contexts a word has (at most 30 sentences here), so compare its shape "
            "across layers more than its level."
            if above
            else f"under {bound:.0%} in every layer, as the paper found for BERT-base."
        )
        + f" ({REFERENCES['mev'].source})"
    )
    if senses is not None:
        accuracy, chance = senses["accuracy"], float(senses["chance"].iloc[0])
        best = int(accuracy.idxmax())
        notes.append(
            f"Word senses by nearest centroid: {accuracy.loc[0]:.0%} at the embedding layer "
            f"(chance {chance:.0%}), best {accuracy.max():.0%} at layer {best}. "
            f"{REFERENCES['sense'].source}: {REFERENCES['sense'].finding}"
        )
    return notes
