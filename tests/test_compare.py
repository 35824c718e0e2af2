"""explorer.compare: cross-model CKA, word alignment, neighbour agreement, token statistics and
Procrustes alignment, on the bundled model against a tiny random BERT with its own tokenizer."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.compare import (
    align_map,
    align_words,
    best_matches,
    cross_cka,
    cross_cka_matrix,
    neighbour_agreement,
    paired_maps,
    token_stats,
    word_states,
)
from explorer.explain import layer_cka, linear_cka

TEXTS = (
    "The bank robber, seen by the river, was fishing.",
    "She sat on the bank of the river.",
    "Embeddings cut words into pieces.",
)


@pytest.fixture(scope="module")
def other(other_tokenizer_path) -> explorer.Model:
    """3 layers x 32, a cased whitespace-split WordPiece of its own."""
    return explorer.load_model(other_tokenizer_path)


def _hsic_cka(x: np.ndarray, y: np.ndarray) -> float:
    """CKA from its definition: HSIC with the centring matrix H, HSIC(K,L) = tr(K H L H)."""
    n = len(x)
    h = np.eye(n) - np.ones((n, n)) / n
    k, m = x @ x.T, y @ y.T
    hsic = lambda a, b: np.trace(a @ h @ b @ h)  # noqa: E731
    return hsic(k, m) / np.sqrt(hsic(k, k) * hsic(m, m))


def test_cross_cka_matrix_is_cka_of_every_pair_by_hand():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 12, 5))
    b = rng.normal(size=(4, 12, 7))
    turn = np.linalg.qr(rng.normal(size=(7, 5)))[0].T  # orthonormal rows: keeps inner products
    b[2] = a[1] @ turn * 3.0  # a rotated, scaled layer of A
    matrix = cross_cka_matrix(a, b)
    assert matrix.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            assert matrix[i, j] == pytest.approx(_hsic_cka(a[i], b[j]), abs=1e-5)
            assert matrix[i, j] == pytest.approx(linear_cka(a[i], b[j]), abs=1e-5)
    assert matrix[1, 2] == pytest.approx(1.0, abs=1e-5)
    assert best_matches(matrix)[1] == 2


def test_cross_cka_matrix_refuses_different_examples():
    with pytest.raises(ValueError, match="same ones"):
        cross_cka_matrix(np.zeros((2, 5, 3)), np.zeros((2, 6, 3)))


def test_a_against_a_is_the_layers_pages_cka_over_one_token_words(bundled):
    texts = ["the bank was closed on sunday .", "she sat by the river and read a book ."]
    for text in texts:  # the identity needs every word to be one token
        assert all(end - start == 1 for start, end, *_ in bundled.tokenize(text).words())
    assert np.allclose(cross_cka(bundled, bundled, texts), layer_cka(bundled, texts), atol=1e-5)


def test_a_against_a_is_symmetric_with_ones_on_the_diagonal(bundled):
    matrix = cross_cka(bundled, bundled, TEXTS)
    size = bundled.num_layers + 1
    assert matrix.shape == (size, size)
    assert np.allclose(np.diag(matrix), 1.0, atol=1e-5)
    assert np.allclose(matrix, matrix.T, atol=1e-5)
    assert list(best_matches(matrix)) == list(range(size))


def test_words_are_the_mean_of_their_pieces(bundled):
    text = "Embeddings cut words."
    alignment = align_words(bundled, bundled, [text])
    states = word_states(bundled, [text], alignment.spans)
    hidden = bundled.hidden_states(text)
    start, end, a, b = bundled.tokenize(text).words()[0]
    assert (a, b, end - start) == (0, 10, 4)  # em ##bed ##ding ##s
    assert np.allclose(states[:, 0], hidden[:, start:end].mean(axis=1), atol=1e-6)
    assert states.shape == (bundled.num_layers + 1, 4, bundled.hidden_size)


def test_words_two_tokenizers_cut_differently_are_dropped_and_counted(bundled, other):
    text = "The bank robber, ran."
    # Bundled: The | bank | robber | , | ran | .   Other (whitespace): The | bank | robber, | ran.
    alignment = align_words(bundled, other, [text])
    assert alignment.spans == (((0, 3), (4, 8)),)
    assert (alignment.only_a, alignment.only_b, alignment.shared) == (4, 2, 2)
    assert "6 words differently" in alignment.note()
    assert align_words(bundled, bundled, [text]).note() is None


def test_cross_cka_across_tokenizers(bundled, other):
    matrix = cross_cka(bundled, other, TEXTS)
    assert matrix.shape == (bundled.num_layers + 1, other.num_layers + 1)
    assert np.all((matrix >= 0) & (matrix <= 1))
    flipped = cross_cka(other, bundled, TEXTS)
    assert np.allclose(flipped, matrix.T, atol=1e-5)
    assert not np.allclose(matrix, matrix[0, 0])  # the layers differ


def test_cross_cka_keeps_the_first_words_and_reports_progress(bundled, other):
    calls = []
    few = cross_cka(bundled, other, TEXTS, max_words=4, progress=lambda d, t: calls.append((d, t)))
    alignment = align_words(bundled, other, TEXTS)
    spans = (alignment.spans[0][:4],)
    by_hand = cross_cka_matrix(
        word_states(bundled, TEXTS[:1], spans), word_states(other, TEXTS[:1], spans)
    )
    assert np.allclose(few, by_hand, atol=1e-6)
    assert calls[-1] == (2, 2)  # one text through each model


def test_cross_cka_needs_two_shared_words(bundled, other):
    with pytest.raises(ValueError, match="at least 2 words"):
        cross_cka(bundled, other, ["Hello."])  # other: "Hello." is one word, bundled two


def _circle(degrees, dims=2):
    angles = np.radians(degrees)
    points = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    return np.hstack([points, np.zeros((len(points), dims - 2))])


def test_neighbour_agreement_against_sets_counted_by_hand():
    a = _circle([0, 10, 30, 90, 100])  # k=2: {1,2} {0,2} {1,0} {4,2} {3,2}
    b = _circle([0, 10, 95, 90, 100], dims=3) * [[1], [5], [2], [1], [3]]  # lengths do not count
    # b's neighbours: {1,3} {0,3} {3,4} {2,4} {2,3}
    assert np.allclose(neighbour_agreement(a, b, k=2), [0.5, 0.5, 0.0, 1.0, 1.0])
    assert np.allclose(neighbour_agreement(a, a, k=3), 1.0)


def test_neighbour_agreement_refuses_bad_input():
    with pytest.raises(ValueError, match="k must be"):
        neighbour_agreement(np.eye(3), np.eye(3), k=3)
    with pytest.raises(ValueError, match="same texts"):
        neighbour_agreement(np.eye(3), np.eye(4), k=1)


def test_token_stats_counted_by_hand(bundled, other):
    stats = token_stats(bundled, ["Embeddings are fun, zebra."])
    # embeddings: em ##bed ##ding ##s; are; fun; zebra (punctuation not counted)
    assert (stats.words, stats.tokens, stats.split, stats.unknown) == (4, 7, 1, 0)
    assert stats.fertility == pytest.approx(7 / 4)
    assert stats.split_share == pytest.approx(1 / 4)
    assert other.tokenize("Quokka").tokens[1:-1] == ["[UNK]"]  # no "Q" in its vocabulary
    stats = token_stats(other, ["The Quokka"])
    assert (stats.words, stats.unknown) == (2, 1)
    assert stats.unknown_share == pytest.approx(1 / stats.tokens)


def test_align_map_undoes_a_rotation_reflection_scale_and_shift():
    rng = np.random.default_rng(1)
    reference = rng.normal(size=(20, 2))
    turn = np.array([[0.0, 1.0], [1.0, 0.0]]) @ np.array([[0.6, -0.8], [0.8, 0.6]])
    other = reference @ turn * 7.0 + [3.0, -2.0]
    assert np.allclose(align_map(reference, other), reference, atol=1e-9)
    noisy = other + rng.normal(scale=0.5, size=other.shape)
    aligned = align_map(reference, noisy)
    assert np.linalg.norm(aligned - reference) < np.linalg.norm(noisy - reference)


def test_the_library_face_names_them():
    assert explorer.cross_cka is cross_cka
    assert explorer.neighbour_agreement is neighbour_agreement
    assert explorer.token_stats is token_stats
    assert explorer.align_map is align_map


def test_paired_maps_put_a_rotated_copy_on_top_of_the_original():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(30, 6)) * [5, 3, 1, 0.5, 0.2, 0.1]
    b = a @ np.linalg.qr(rng.normal(size=(6, 6)))[0] * 2.0  # the same texts, turned and scaled
    map_a, map_b = paired_maps(a, b)
    assert map_a.shape == map_b.shape == (30, 2)
    assert np.allclose(map_a, map_b, atol=1e-8)
    spread = map_a - map_a.mean(axis=0)
    assert np.var(spread[:, 0]) > np.var(spread[:, 1])  # the first component spreads most
