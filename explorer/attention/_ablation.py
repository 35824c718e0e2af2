"""What switching heads off changes (Michel, Levy and Neubig 2019): three measures of a model,
read with and without chosen heads (:func:`explorer.ablate_heads`), and a ranking of single
heads by how much removing each one moves a measure.

The measures: the **sense gap** of Word in context's built-in example (the last layer's mean
cosine of "bank" between sentences of the same sense minus between sentences of different
senses), the **cosine of two sentences** (mean of the last layer's token vectors, special
tokens included, as :func:`explorer.sentence_embeddings` pools by default), and the masked-LM
lens's **guess** for the first ``[MASK]`` (with the probability of the full model's guess, the
number the ranking uses) when the model has a masked-LM head.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from explorer.attention._lens import layer_predictions, masked_lm_of
from explorer.context.senses import pair_kinds, sense_gap
from explorer.context.sentences import DEFAULT_SENSES, DEFAULT_SENTENCES, DEFAULT_WORD
from explorer.context.similarity import pair_similarities
from explorer.embeddings import sentence_embeddings
from explorer.model.ablation import AblatedModel, ablate_heads, num_heads
from explorer.words import word_layer_vectors

ABLATION_MEASURES = {
    "gap": "sense gap (Word in context)",
    "cosine": "cosine of the two sentences",
    "guess": "probability of the masked-LM guess",
}
"""The measures a ranking can use, with their names on the page."""


def word_sense_gap(model) -> float:
    """The last layer's sense gap of Word in context's built-in "bank" sentences: same-sense
    minus different-sense mean cosine (:func:`explorer.context.sense_gap`)."""
    occurrences, vectors = word_layer_vectors(model, list(DEFAULT_SENTENCES), DEFAULT_WORD)
    table = sense_gap(pair_similarities(vectors), pair_kinds(occurrences, DEFAULT_SENSES))
    return float(table["gap"].iloc[-1])


def sentence_cosine(model, first: str, second: str) -> float:
    """Cosine of the mean-pooled last-layer vectors of two sentences."""
    a, b = sentence_embeddings(model, [first, second], "mean", "last").astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def lens_guess(model, masked: str, word: str | None = None) -> tuple[str, float, float]:
    """The model's top guess for the first mask of ``masked``, its probability, and the
    probability of ``word`` (default: the guess itself) when ``word`` is in the top 1,000
    (else 0). ``ValueError`` when the model has no masked-LM head."""
    lm = masked_lm_of(model)
    active = model.active() if isinstance(model, AblatedModel) else contextlib.nullcontext()
    with active:
        lens = layer_predictions(lm, masked, k=1000, max_masks=1)
    top, probabilities = lens.top_tokens[-1][0], lens.probabilities[-1][0]
    word = top[0] if word is None else word
    share = float(probabilities[top.index(word)]) if word in top else 0.0
    return top[0], float(probabilities[0]), share


@dataclass(frozen=True)
class Measurements:
    """The measures of one model (``heads``: ``{layer: heads}`` off, from 1; ``{}`` for the full
    model): ``gap``, ``cosine``, and ``guess`` ``(token, probability, probability of the full
    model's guess)`` or ``None`` without a masked-LM head."""

    heads: dict
    gap: float
    cosine: float
    guess: tuple[str, float, float] | None


def measure(
    model, heads: dict, first: str, second: str, masked: str | None, full_guess: str | None = None
) -> Measurements:
    """:class:`Measurements` of ``model`` with ``heads`` switched off (``masked``: the lens's
    sentence, ``None`` to skip; ``full_guess``: the full model's guess, whose probability is
    reported)."""
    ablated = ablate_heads(model, heads)
    guess = None if masked is None else lens_guess(ablated, masked, full_guess)
    return Measurements(
        ablated.heads, word_sense_gap(ablated), sentence_cosine(ablated, first, second), guess
    )


def value_of(measurements: Measurements, what: str) -> float:
    """The number of measure ``what`` (a key of :data:`ABLATION_MEASURES`)."""
    if what == "guess":
        if measurements.guess is None:
            raise ValueError("This model has no masked-LM head, so there is no guess to rank by.")
        return measurements.guess[2]
    return float(getattr(measurements, what))


def all_heads(model) -> list[tuple[int, int]]:
    """Every ``(layer, head)`` of ``model``, from 1, in layer order."""
    return [(layer, head) for layer in range(1, model.num_layers + 1)
            for head in range(1, num_heads(model) + 1)]  # fmt: skip


def spread_heads(model, limit: int) -> list[tuple[int, int]]:
    """At most ``limit`` of :func:`all_heads`, evenly spaced over them in layer order (every
    head when they are no more), so a capped ranking still reaches every layer."""
    every = all_heads(model)
    if limit >= len(every):
        return every
    picks = np.unique(np.linspace(0, len(every) - 1, max(1, limit)).round().astype(int))
    return [every[i] for i in picks]


def rank_heads(
    model,
    what: str,
    first: str,
    second: str,
    masked: str | None = None,
    heads: Sequence[tuple[int, int]] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Each head of ``heads`` (default :func:`all_heads`) switched off alone, one set of
    forward passes each: a table with ``layer``, ``head``, ``value`` (the measure ``what``
    without it), ``change`` (value minus the full model's) sorted by the size of the change,
    largest first. ``attrs["full"]`` holds the full model's value. ``ValueError`` for an
    unknown measure, or ``"guess"`` without a masked-LM head or ``masked`` sentence."""
    if what not in ABLATION_MEASURES:
        raise ValueError(f"Unknown measure {what!r}: choose one of {', '.join(ABLATION_MEASURES)}.")
    if what == "guess" and masked is None:
        raise ValueError("Ranking by the masked-LM guess needs a sentence with [MASK].")
    heads = all_heads(model) if heads is None else list(heads)
    compute = _one_measure(model, what, first, second, masked)
    full = compute({})
    rows = []
    for done, (layer, head) in enumerate(heads, 1):
        value = compute({layer: [head]})
        rows.append((layer, head, value, value - full))
        if progress is not None:
            progress(done, len(heads))
    table = pd.DataFrame(rows, columns=["layer", "head", "value", "change"])
    order = np.argsort(-table["change"].abs().to_numpy(), kind="stable")
    table = table.iloc[order].reset_index(drop=True)
    table.attrs["full"] = full
    return table


def _one_measure(model, what, first, second, masked) -> Callable[[dict], float]:
    if what == "gap":
        return lambda heads: word_sense_gap(ablate_heads(model, heads))
    if what == "cosine":
        return lambda heads: sentence_cosine(ablate_heads(model, heads), first, second)
    word = lens_guess(model, masked)[0]
    return lambda heads: lens_guess(ablate_heads(model, heads), masked, word)[2]
