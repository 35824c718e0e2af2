"""explorer.compare.read_texts: the maps' sentence vectors and the CKA's word vectors from one
forward pass per model, with the numbers the two separate passes gave; and the Compare models
page reading each of its texts once per model for those two sections."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import explorer
from explorer.compare import (
    MAX_WORDS,
    align_words,
    cka_spans,
    cka_texts,
    cross_cka,
    cross_cka_matrix,
    curve_inputs,
    read_texts,
    texts_within,
    word_states,
)
from explorer.data import corpora
from explorer.model.encoder import Model
from explorer.server import limits

TEXTS = (
    "The bank robber, seen by the river, was fishing.",
    "She sat on the bank of the river.",
    "Embeddings cut words into pieces.",
    "A fourth text that only the map reads.",
)


@pytest.fixture(scope="module")
def other(other_tokenizer_path) -> explorer.Model:
    return explorer.load_model(other_tokenizer_path)


@pytest.fixture
def texts_read(monkeypatch) -> Counter:
    """Texts each model runs through its layers (by model name), counted batch by batch."""
    counts: Counter = Counter()
    original = Model.layer_states

    def counted(self, batch, *args, **kwargs):
        counts[self.name] += len(batch.indices)
        return original(self, batch, *args, **kwargs)

    monkeypatch.setattr(Model, "layer_states", counted)
    return counts


def test_one_pass_gives_the_maps_and_the_cka_numbers(bundled, other, texts_read):
    alignment = align_words(bundled, other, TEXTS[:3])  # the CKA reads the first three
    spans = cka_spans(alignment, MAX_WORDS)
    reading_a = read_texts(bundled, TEXTS, spans)
    reading_b = read_texts(other, TEXTS, spans)
    assert texts_read == {bundled.name: len(TEXTS), other.name: len(TEXTS)}  # once each

    texts_read.clear()
    for model, reading in ((bundled, reading_a), (other, reading_b)):
        corpus = explorer.embed_corpus(model, TEXTS)
        for name, pooled in corpus.pooled.items():
            np.testing.assert_allclose(reading.corpus.pooled[name], pooled, atol=1e-5)
        words = word_states(model, TEXTS[:3], spans)
        assert (
            reading.words.shape
            == words.shape
            == (model.num_layers + 1, alignment.shared, model.hidden_size)
        )
        np.testing.assert_allclose(reading.words, words, atol=1e-5)
    # before: the maps' pass and the CKA's pass each read the CKA's texts
    assert texts_read == {bundled.name: len(TEXTS) + 3, other.name: len(TEXTS) + 3}
    np.testing.assert_allclose(
        cross_cka_matrix(reading_a.words, reading_b.words),
        cross_cka(bundled, other, TEXTS[:3]),
        atol=1e-5,
    )


def test_the_cka_keeps_its_first_words_text_by_text(bundled, other):
    alignment = align_words(bundled, other, TEXTS)
    spans = cka_spans(alignment, 12)
    assert sum(len(s) for s in spans) == 12
    assert [s for s in spans if s] == [s for s in spans[: len([s for s in spans if s])]]
    reading = read_texts(other, TEXTS, spans)
    np.testing.assert_allclose(
        cross_cka_matrix(read_texts(bundled, TEXTS, spans).words, reading.words),
        cross_cka(bundled, other, TEXTS, max_words=12),
        atol=1e-5,
    )


def test_read_texts_refuses_spans_that_are_not_its_words(bundled, other):
    with pytest.raises(ValueError, match="not a word of"):
        read_texts(bundled, TEXTS[:1], [((0, 2),)])  # "Th" is half a word
    with pytest.raises(ValueError, match="word spans for 2"):
        read_texts(bundled, TEXTS[:1], [(), ()])


def test_the_page_reads_each_text_once_per_model(other_tokenizer_path, monkeypatch, texts_read):
    """Layers and maps share one pass: each model reads the maps' texts, the query and the
    curves' two corpora, and nothing more (before, the CKA's texts a second time)."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from explorer.ui import compare_models, compute
    from tests.app.conftest import APP, TIMEOUT

    monkeypatch.setenv("EXPLORER_MODELS", other_tokenizer_path)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["compare.model_b"] = f"{Path(other_tokenizer_path).name} (local)"
    at.run()
    compute.clear()
    texts_read.clear()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]

    a, b = explorer.load_model(), explorer.load_model(other_tokenizer_path)
    texts = compare_models.corpus_texts("topics")
    budget = limits.pair_tokens(a, b)
    maps = texts_within(a, b, texts, budget)
    used, _ = cka_texts(a, b, texts, budget)
    assert 2 <= len(used) <= maps
    senses, topics = curve_inputs(a, b, corpora.load_senses(), corpora.load_topics(), budget)
    expected = maps + 1 + len(senses) + len(topics)  # + the query
    assert texts_read == {a.name: expected, b.name: expected}
