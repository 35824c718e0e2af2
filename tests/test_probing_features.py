"""Probe features: word vectors through :mod:`explorer.words`, token sequences for the CNN,
both from the one batched forward loop (progress reported as ``(texts_done, total)``)."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.probing.features import token_sequences, word_features


def test_word_features_one_pass_all_modes(tiny):
    texts = ["An embeddings model.", "Word embeddings again, embeddings."]
    features = word_features(tiny, texts, "embeddings")
    assert set(features.vectors) == set(explorer.SUBWORD_MODES)
    assert features.vectors["mean"].shape == (tiny.num_layers + 1, 2, tiny.hidden_size)
    assert [o.text_index for o in features.occurrences] == [0, 1]
    assert features.occurrences[1].char_start == 5  # the first occurrence of the second text
    assert features.num_split == 2  # "embeddings" is several WordPiece tokens
    _, expected = explorer.word_layer_vectors(tiny, texts, "embeddings", "max")
    np.testing.assert_allclose(features.vectors["max"], expected[:, [0, 1]], atol=1e-5)
    assert not np.allclose(features.vectors["first"], features.vectors["last"])


def test_word_features_match_each_text_alone_and_report_progress(tiny):
    texts = [f"The {w} is near the bank." for w in ("river", "money", "fish")]
    texts += ["A bat and a bank.", "bat"]
    words = ["bank"] * 4 + ["bat"]
    seen = []
    features = word_features(
        tiny, texts, words, ("first", "sum"), lambda done, total: seen.append((done, total))
    )
    assert set(features.vectors) == {"first", "sum"}
    assert seen[-1] == (5, 5) and all(total == 5 for _, total in seen)
    assert features.occurrences[3].char_start == 12  # "bank", not the "bat" of another row
    for i, (text, o) in enumerate(zip(texts, features.occurrences, strict=True)):
        span = tiny.hidden_states(text)[:, o.token_start : o.token_end]
        np.testing.assert_allclose(features.vectors["first"][:, i], span[:, 0], atol=1e-5)
        np.testing.assert_allclose(features.vectors["sum"][:, i], span.sum(axis=1), atol=1e-5)


def test_token_sequences_match_hidden_states(tiny):
    texts = ["A short one.", "A somewhat longer sentence with more tokens in it."]
    sequences, mask = token_sequences(tiny, texts, layer=-1)
    lengths = [len(tiny.tokenize(t)) for t in texts]
    assert sequences.shape == (2, max(lengths), tiny.hidden_size)
    assert mask.sum(axis=1).tolist() == lengths
    np.testing.assert_allclose(
        sequences[0, : lengths[0]], tiny.hidden_states(texts[0])[-1], atol=1e-5
    )
    assert not sequences[0, lengths[0] :].any()
    cut, cut_mask = token_sequences(tiny, texts, layer=-1, max_tokens=4)
    assert cut.shape[1] == 4 and cut_mask.all()
    # The model reads the cut text only: its first 3 tokens and the closing [SEP].
    tokens = tiny.tokenizer(texts[1])["input_ids"]
    read = tiny.tokenizer.decode(tokens[1:3])
    np.testing.assert_allclose(cut[1], tiny.hidden_states(read)[-1], atol=1e-5)
    with pytest.raises(ValueError, match="out of range"):
        token_sequences(tiny, texts, layer=tiny.num_layers + 1)


def test_token_sequences_report_progress_over_every_text(tiny):
    texts = [f"Sentence number {i} {'is longer ' * i}." for i in range(6)]
    seen = []
    token_sequences(tiny, texts, layer=1, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (6, 6) and all(total == 6 for _, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_token_sequences_refuse_more_values_than_asked_before_running(tiny):
    texts = ["A short one.", "A somewhat longer sentence with more tokens in it."]
    with pytest.raises(ValueError, match="too many for the CNN head"):
        token_sequences(tiny, texts, layer=1, max_values=10 * tiny.hidden_size)
