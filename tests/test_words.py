"""Finding words in context and taking their vectors."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.subwords import aggregate_subwords
from explorer.words import (
    first_occurrences,
    occurrence_layer_vectors,
    words_in,
    words_per_text,
)
from tests.conftest import TUTORIAL

PAIR = ["The man was accused of robbing a bank.", "The man went fishing by the bank of the river."]


def test_three_banks_in_the_tutorial(bundled):
    found = explorer.find_occurrences(bundled, [TUTORIAL], "bank")
    assert [(o.token_start, o.token_end) for o in found] == [(6, 7), (10, 11), (19, 20)]
    assert all(o.surface == "bank" and o.text_index == 0 for o in found)


def test_case_insensitive_for_uncased_models(bundled):
    found = explorer.find_occurrences(bundled, ["Bank holidays. The BANK is shut."], "bAnK")
    assert [o.surface for o in found] == ["Bank", "BANK"]


def test_whole_words_only(bundled):
    texts = ["The banks and the banker bank on embankments.", "bank"]
    found = explorer.find_occurrences(bundled, texts, "bank")
    assert [(o.text_index, o.surface) for o in found] == [(0, "bank"), (1, "bank")]


def test_multi_subword_and_multi_word_targets(bundled):
    text = "Contextual embeddings beat static embeddings near the river bank."
    split = explorer.find_occurrences(bundled, [text], "embeddings")
    assert [o.num_tokens for o in split] == [4, 4]
    phrase = explorer.find_occurrences(bundled, [text], "river bank")
    assert len(phrase) == 1 and phrase[0].surface == "river bank"
    tokens = bundled.tokenize(text).tokens
    assert tokens[phrase[0].token_start : phrase[0].token_end] == ["river", "bank"]


def test_word_vectors_match_token_vectors(bundled):
    occurrences, vectors = explorer.word_vectors(bundled, [TUTORIAL], "bank", layers="last")
    assert vectors.shape == (3, 384)
    tokens = explorer.token_vectors(bundled, TUTORIAL, "last")
    np.testing.assert_allclose(vectors, tokens[[6, 10, 19]], atol=1e-5)


def test_subword_modes(bundled):
    text = "I study embeddings."
    tokens = explorer.token_vectors(bundled, text, "last")
    [occurrence] = explorer.find_occurrences(bundled, [text], "embeddings")
    pieces = tokens[occurrence.token_start : occurrence.token_end]
    expected = {
        "first": pieces[0],
        "last": pieces[-1],
        "mean": pieces.mean(0),
        "max": pieces.max(0),
        "sum": pieces.sum(0),
    }
    for mode, vector in expected.items():
        _, got = explorer.word_vectors(bundled, [text], "embeddings", "last", subwords=mode)
        np.testing.assert_allclose(got[0], vector, atol=1e-4)


def test_polysemy_separates_senses(bundled):
    _, vectors = explorer.word_vectors(bundled, PAIR + [TUTORIAL], "bank", layers="last")
    similarity = explorer.cosine_similarity(vectors)
    finance, river = 0, 1
    # the robbed bank is closer to the bank vault (index 2) than to the river bank
    assert similarity[finance, 2] > similarity[finance, river]


def test_layer_vectors_serve_every_layer_choice(bundled):
    occurrences, per_layer = explorer.word_layer_vectors(bundled, PAIR, "bank")
    assert per_layer.shape == (7, 2, 384)
    for layers in explorer.LAYER_CHOICES:
        _, direct = explorer.word_vectors(bundled, PAIR, "bank", layers=layers)
        np.testing.assert_allclose(explorer.combine_layers(per_layer, layers), direct, atol=1e-5)


def test_word_vectors_take_a_vector_choice(bundled):
    """One VectorChoice carries the layers and the subword mode (issue 34): the same vectors as
    the names, a layer this depth lacks refused, and no second subword mode beside it."""
    choice = explorer.VectorChoice(layers=2, subwords="max")
    occurrences, vectors = explorer.word_vectors(bundled, PAIR, "bank", choice)
    _, by_names = explorer.word_vectors(bundled, PAIR, "bank", 2, subwords="max")
    np.testing.assert_array_equal(vectors, by_names)
    assert len(occurrences) == 2
    with pytest.raises(ValueError, match="not both"):
        explorer.word_vectors(bundled, PAIR, "bank", choice, subwords="mean")
    with pytest.raises(ValueError, match="layer"):
        explorer.word_vectors(bundled, PAIR, "bank", explorer.VectorChoice(layers=40))


def test_missing_word_lists_the_words_there(bundled):
    assert explorer.find_occurrences(bundled, PAIR, "zebra") == []
    with pytest.raises(ValueError, match="does not occur.*robbing"):
        explorer.word_vectors(bundled, PAIR, "zebra")


@pytest.mark.parametrize("word", ["", "   ", None])
def test_empty_word(bundled, word):
    with pytest.raises(ValueError, match="empty"):
        explorer.find_occurrences(bundled, PAIR, word)


def test_bad_modes(bundled):
    with pytest.raises(ValueError, match="subword mode"):
        explorer.word_vectors(bundled, PAIR, "bank", subwords="median")
    with pytest.raises(ValueError, match="layer choice"):
        explorer.word_vectors(bundled, PAIR, "bank", layers="first")
    with pytest.raises(ValueError, match="subword mode"):
        aggregate_subwords(np.ones((2, 3)), "avg")


def test_words_in_lists_distinct_words(bundled):
    assert words_in(bundled, ["The bank, the BANK."]) == ["the", "bank"]


def test_aggregate_subwords_over_every_layer_at_once():
    span = np.random.default_rng(0).normal(size=(4, 3, 5)).astype(np.float32)  # (layers, k, dim)
    for mode in explorer.SUBWORD_MODES:
        together = aggregate_subwords(span, mode)
        assert together.shape == (4, 5) and together.dtype == np.float32
        one_by_one = np.stack([aggregate_subwords(layer, mode) for layer in span])
        np.testing.assert_allclose(together, one_by_one, rtol=1e-6)
    with pytest.raises(ValueError, match="k >= 1"):
        aggregate_subwords(np.ones((4, 0, 5)))


def test_occurrence_layer_vectors_match_each_text_alone(tiny):
    texts = ["Word embeddings and more embeddings.", "No word here.", "Embeddings!"]
    occurrences = explorer.find_occurrences(tiny, texts, "embeddings")
    seen = []
    vectors = occurrence_layer_vectors(
        tiny, texts, occurrences, progress=lambda done, total: seen.append((done, total))
    )
    assert set(vectors) == set(explorer.SUBWORD_MODES)
    assert vectors["mean"].shape == (tiny.num_layers + 1, 3, tiny.hidden_size)
    assert seen[-1] == (2, 2)  # only the texts holding an occurrence run through the model
    for j, o in enumerate(occurrences):
        span = tiny.hidden_states(texts[o.text_index])[:, o.token_start : o.token_end]
        np.testing.assert_allclose(vectors["first"][:, j], span[:, 0], atol=1e-5)
        np.testing.assert_allclose(vectors["max"][:, j], span.max(axis=1), atol=1e-5)
        np.testing.assert_allclose(vectors["mean"][:, j], span.mean(axis=1), atol=1e-5)
    with pytest.raises(ValueError, match="subword mode"):
        occurrence_layer_vectors(tiny, texts, occurrences, ("middle",))


def test_first_occurrences_one_word_per_text(tiny):
    texts = ["The bank and the bank.", "A bat, a bank.", "bat"]
    found = first_occurrences(tiny, texts, ["bank", "bank", "bat"])
    assert [(o.text_index, o.char_start) for o in found] == [(0, 4), (1, 9), (2, 0)]
    with pytest.raises(ValueError, match=r"1 of 3 texts.*row 3"):
        first_occurrences(tiny, texts, "bank")
    assert words_per_text(["a", "b"], "w") == ["w", "w"]
    with pytest.raises(ValueError, match="2 texts but 1 words"):
        words_per_text(["a", "b"], ["w"])


def test_occurrence_points_one_per_occurrence():
    from explorer.words import Occurrence, occurrence_points

    texts = ["the bank and the bank", "a river bank"]
    found = [
        Occurrence(0, 2, 3, 4, 8, "bank"),
        Occurrence(0, 5, 6, 17, 21, "bank"),
        Occurrence(1, 3, 4, 8, 12, "bank"),
    ]
    point_texts, spans, labels = occurrence_points(found, texts)
    assert point_texts == [texts[0], texts[0], texts[1]]
    assert [t[a:b] for t, (a, b) in zip(point_texts, spans, strict=True)] == ["bank"] * 3
    assert labels == ["Sentence 1", "Sentence 1", "Sentence 2"]
    _, _, labelled = occurrence_points(found, texts, ["money", "river"])
    assert labelled == ["money", "money", "river"]
    assert occurrence_points([], texts) == ([], [], [])
