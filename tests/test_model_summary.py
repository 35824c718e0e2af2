"""The Home page's sentence about the model in use."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from explorer.model.summary import model_notice


def test_model_notice_counts_from_the_models_numbers():
    small = SimpleNamespace(num_layers=6, hidden_size=384, vocab_size=30522, max_length=512)
    text = model_notice(small, "all-MiniLM-L6-v2")
    assert text.startswith("all-MiniLM-L6-v2 cuts a text into at most 512 tokens")
    assert "vocabulary of 30,522" in text and "7 vectors of 384 numbers" in text
    assert "10 × 7 × 384 = 26,880 numbers" in text
    base = SimpleNamespace(num_layers=12, hidden_size=768, vocab_size=30522, max_length=512)
    assert "10 × 13 × 768 = 99,840 numbers" in model_notice(base, "bert-base-uncased")


def test_model_notice_of_the_bundled_model(bundled):
    assert f"{bundled.num_layers + 1} vectors of {bundled.hidden_size}" in model_notice(
        bundled, "x"
    )


def test_model_notice_rejects_a_model_without_layers():
    with pytest.raises(ValueError, match="at least one layer"):
        model_notice(SimpleNamespace(num_layers=0, hidden_size=8, vocab_size=5, max_length=8), "x")
