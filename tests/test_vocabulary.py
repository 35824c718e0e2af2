"""The vocabulary map: kinds of pieces, the PCA of the input embedding table, static
neighbours, against hand computations."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import vocabulary


@pytest.mark.parametrize(
    "piece, special, kind",
    [
        ("[CLS]", True, "special"),
        ("##ing", False, "continuation"),
        ("##9", False, "number"),
        ("1984", False, "number"),
        (",", False, "punctuation"),
        ("$", False, "punctuation"),
        ("bank", False, "whole word"),
        ("Ġbank", False, "whole word"),
    ],
)
def test_piece_kind(piece, special, kind):
    assert vocabulary.piece_kind(piece, special) == kind


def test_map_is_the_pca_of_the_table_and_cached(tiny):
    frame = vocabulary.vocabulary_map(tiny)
    assert vocabulary.vocabulary_map(tiny) is frame
    table = vocabulary.embedding_table(tiny).astype(np.float64)
    assert len(frame) == len(table) == tiny.vocab_size
    assert set(frame["kind"]) <= set(vocabulary.KINDS)
    row = frame.set_index("piece")
    assert row.loc["[CLS]", "kind"] == "special" and row.loc["##s", "kind"] == "continuation"
    centred = table - table.mean(axis=0)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    np.testing.assert_allclose(
        frame.attrs["variance"], singular[:2] ** 2 / (singular**2).sum(), rtol=1e-6
    )
    for column, axis in (("x", 0), ("y", 1)):
        by_hand = centred @ vt[axis]
        ours = frame[column].to_numpy(np.float64)
        sign = np.sign(by_hand @ ours)
        np.testing.assert_allclose(ours, sign * by_hand, atol=1e-4)
    assert frame["x"].var() >= frame["y"].var()


def test_static_neighbours_by_hand(tiny):
    table = vocabulary.embedding_table(tiny).astype(np.float64)
    vocab = tiny.tokenizer.get_vocab()
    found = vocabulary.static_neighbours(tiny, "bank", 5)
    target = table[vocab["bank"]]
    with np.errstate(invalid="ignore"):  # the padding row is all zeros
        cosines = table @ target / (np.linalg.norm(table, axis=1) * np.linalg.norm(target))
    cosines[vocab["bank"]] = -np.inf
    best = np.argsort(-cosines)[:5]
    assert [vocab[p] for p, _ in found] == best.tolist()
    np.testing.assert_allclose([c for _, c in found], cosines[best], atol=1e-5)
    with pytest.raises(ValueError, match="not a piece"):
        vocabulary.static_neighbours(tiny, "notapiece!!", 5)
    with pytest.raises(ValueError, match="positive integer"):
        vocabulary.static_neighbours(tiny, "bank", 0)


def test_contextual_neighbours_by_hand(tiny):
    text = "The bank robber fished on the river bank."
    frame = vocabulary.contextual_neighbours(tiny, text, "bank", 4)
    tokens = tiny.tokenize(text)
    at = tokens.tokens.index("bank")
    states = tiny.hidden_states(text)[-1].astype(np.float64)
    table = vocabulary.embedding_table(tiny).astype(np.float64)
    assert len(frame) == 4 and at not in set(frame["position"])
    assert not any(tokens.special[p] for p in frame["position"])
    for position, token, contextual, static in frame.itertuples(index=False):
        a, b = states[position], states[at]
        assert token == tokens.tokens[position]
        assert contextual == pytest.approx(a @ b / np.linalg.norm(a) / np.linalg.norm(b), abs=1e-5)
        c, d = table[tokens.ids[position]], table[tokens.ids[at]]
        assert static == pytest.approx(c @ d / np.linalg.norm(c) / np.linalg.norm(d), abs=1e-5)
    assert (np.diff(frame["contextual"].to_numpy()) <= 0).all()
    with pytest.raises(ValueError, match="not among the text's pieces: the, bank"):
        vocabulary.contextual_neighbours(tiny, text, "vault", 4)
