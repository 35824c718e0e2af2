"""explorer.compare's budgets: the first texts one comparison reads within a pair's tokens, the
CKA's share and the curves' corpora (each read once, every topic and sense kept)."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.compare import (
    MAX_WORDS,
    align_words,
    cka_texts,
    curve_inputs,
    pair_token_counts,
    texts_within,
)
from explorer.compare._budget import CKA_SHARE, CURVES_SHARE
from explorer.data import corpora


@pytest.fixture(scope="module")
def other(other_tokenizer_path) -> explorer.Model:
    return explorer.load_model(other_tokenizer_path)


TEXTS = [
    "The bank robber, seen by the river, was fishing.",
    "She sat on the bank of the river.",
    "Embeddings cut words into pieces.",
    "A bat flew out of the cave at dusk.",
]


def test_pair_counts_are_the_larger_tokenization_of_each_text(tiny, other):
    counts = pair_token_counts(tiny, other, TEXTS)
    for text, count in zip(TEXTS, counts, strict=True):
        assert count == max(len(tiny.tokenize(text)), len(other.tokenize(text)))
    assert pair_token_counts(tiny, other, []).shape == (0,)


def test_texts_within_keeps_the_first_texts_that_fit(tiny, other):
    counts = pair_token_counts(tiny, other, TEXTS)
    assert texts_within(tiny, other, TEXTS, int(counts.sum())) == len(TEXTS)
    assert texts_within(tiny, other, TEXTS, int(counts[:2].sum())) == 2
    assert texts_within(tiny, other, TEXTS, int(counts[:2].sum()) - 1) == 1
    assert texts_within(tiny, other, TEXTS, 1) == 1  # one text is always read
    with pytest.raises(ValueError, match="at least 1"):
        texts_within(tiny, other, TEXTS, 0)


def test_cka_texts_stop_at_max_words_or_at_their_share_of_tokens(tiny, other):
    used, alignment = cka_texts(tiny, other, TEXTS, tokens=10_000, max_words=8)
    shared = [len(s) for s in align_words(tiny, other, TEXTS).spans]
    first = int(np.searchsorted(np.cumsum(shared), 8)) + 1  # the text that reaches 8 words
    assert used == TEXTS[:first]
    assert alignment == align_words(tiny, other, used)
    counts = pair_token_counts(tiny, other, TEXTS)
    # a budget whose CKA share holds only the first text
    tokens = int(np.ceil(counts[0] / CKA_SHARE))
    used, alignment = cka_texts(tiny, other, TEXTS, tokens=tokens, max_words=MAX_WORDS)
    assert used == TEXTS[:1] and alignment.shared == shared[0]


def test_curve_inputs_keep_every_sense_and_topic_within_their_share(bundled, other):
    senses, topics = corpora.load_senses(), corpora.load_topics()
    tokens = 3_000
    kept_senses, kept_topics = curve_inputs(bundled, other, senses, topics, tokens)
    share = int(tokens * CURVES_SHARE)
    for kept, full, groups in (
        (kept_senses, senses, ["word", "sense"]),
        (kept_topics, topics, ["topic"]),
    ):
        assert 0 < len(kept) < len(full)
        assert pair_token_counts(bundled, other, kept["text"].tolist()).sum() <= share
        assert list(kept.index) == list(range(len(kept)))
        # taken in turn: every group is there
        assert len(kept.groupby(groups)) == len(full.groupby(groups))
    everything = curve_inputs(bundled, other, senses, topics, 10**7)
    assert len(everything[0]) == len(senses) and len(everything[1]) == len(topics)
