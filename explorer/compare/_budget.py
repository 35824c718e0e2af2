"""What one comparison reads: the first texts both models read within a budget of tokens each
(the server's :func:`explorer.server.limits.pair_tokens`, passed in), for the cross-model CKA
and for the curves over relative depth.

A first visit to the Compare models page runs every section, so the budget is shared out: the
maps read up to the whole budget, the CKA up to :data:`CKA_SHARE` of it (the first of the
maps' texts, read in the same pass: :func:`explorer.compare.read_texts`) and each corpus of
the curves :data:`CURVES_SHARE` (the sense sentences and the topic texts, each read once),
about 1.7 budgets in all (2.2 when the CKA read its texts on its own)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from explorer.compare._cka import MAX_WORDS
from explorer.compare._curves import interleaved
from explorer.compare._words import WordAlignment, align_words
from explorer.model import Model

CKA_SHARE = 0.5
"""Share of the pair's tokens the cross-model CKA reads at most."""

CURVES_SHARE = 1 / 3
"""Share of the pair's tokens each corpus of the curves (sense sentences, topic texts) reads."""


def pair_token_counts(model_a: Model, model_b: Model, texts: Sequence[str]) -> np.ndarray:
    """Tokens each text costs the pair: the larger of the two models' counts (special tokens
    included, truncated to each model's ``max_length``), ``(len(texts),)`` int."""
    texts = list(texts)
    if not texts:
        return np.zeros(0, dtype=np.int64)
    counts = [[len(row["input_ids"]) for row in m.encode_batch(texts)] for m in (model_a, model_b)]
    return np.maximum(*np.asarray(counts, dtype=np.int64))


def texts_within(model_a: Model, model_b: Model, texts: Sequence[str], tokens: int) -> int:
    """How many first ``texts`` both models read within ``tokens`` tokens each (at least 1:
    one text is always read, truncated to the model's length)."""
    if tokens < 1:
        raise ValueError(f"tokens must be at least 1, not {tokens}.")
    counts = pair_token_counts(model_a, model_b, texts)
    return max(1, int(np.searchsorted(np.cumsum(counts), tokens, side="right")))


def cka_texts(
    model_a: Model,
    model_b: Model,
    texts: Sequence[str],
    tokens: int,
    max_words: int = MAX_WORDS,
) -> tuple[list[str], WordAlignment]:
    """The texts :func:`explorer.compare.cross_cka` reads and the alignment of their words: the
    first ``texts`` whose words both tokenizers read alike make up ``max_words``, fewer when
    they would take more than :data:`CKA_SHARE` of ``tokens`` (the pair's budget) through
    each model (tokenization only)."""
    texts = list(texts)
    total, used = 0, len(texts)
    for index, spans in enumerate(align_words(model_a, model_b, texts).spans):
        total += len(spans)
        if total >= max_words:
            used = index + 1
            break
    share = max(1, int(tokens * CKA_SHARE))
    used = min(used, texts_within(model_a, model_b, texts[:used], share))
    return texts[:used], align_words(model_a, model_b, texts[:used])


def curve_inputs(
    model_a: Model, model_b: Model, senses: pd.DataFrame, topics: pd.DataFrame, tokens: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sense sentences (columns ``word``, ``sense``, ``text``) and topic texts (``text``,
    ``topic``) :func:`explorer.compare.depth_curves` reads, each corpus taken in turn from
    every word's sense and every topic (:func:`interleaved`, so a cap keeps them all) within
    :data:`CURVES_SHARE` of ``tokens`` (the pair's budget) through each model. Rows renumbered
    from 0."""
    share = max(1, int(tokens * CURVES_SHARE))
    senses = interleaved(senses, ["word", "sense"])
    topics = interleaved(topics, ["topic"])
    kept_senses = texts_within(model_a, model_b, senses["text"].tolist(), share)
    kept_topics = texts_within(model_a, model_b, topics["text"].tolist(), share)
    return (
        senses.head(kept_senses).reset_index(drop=True),
        topics.head(kept_topics).reset_index(drop=True),
    )
