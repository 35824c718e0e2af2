"""Projections in Words mode: a rerun that changes nothing runs no forward pass, even when
every layer of the occurrences' vectors is too large for the results pool (issue 32, 5b:
with a BERT-base-sized model every rerun recomputed them, 15-18 s)."""

from __future__ import annotations

import pytest

from explorer.server import limits
from explorer.ui import compute


def test_a_words_map_reruns_without_a_forward_pass_when_every_layer_is_too_large(page, monkeypatch):
    passes: list[str] = []
    real = limits.word_layer_vectors

    def counted(model, texts, word, subwords="mean", limit=limits.MAX_OCCURRENCES):
        passes.append(word)
        return real(model, texts, word, subwords, limit)

    monkeypatch.setattr(limits, "word_layer_vectors", counted)
    words = compute.BUDGETS["words"]
    compute.clear()
    at = page("projections")
    at.radio(key="projections.level").set_value("words").run()
    assert not at.exception, [e.message for e in at.exception]
    assert passes, "the words map ran no forward pass"
    # Every layer of the occurrences, as one result: make it too large for the memo (as
    # BERT-base's 200 MB are for the pool beside its weights), then start afresh.
    every_layer = [size for key, (_, size, _) in words._items.items() if key[0] != "layer choice"]
    assert every_layer
    monkeypatch.setattr(words, "max_bytes", max(every_layer) - 1)
    compute.clear()
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert all(key[0] == "layer choice" for key in words._items)  # what the map needs stays
    before = len(passes)
    at.run()  # nothing changed
    assert len(passes) == before
    at.radio(key="projections.method").set_value("tsne").run()  # another method
    assert not at.exception, [e.message for e in at.exception]
    assert len(passes) == before


pytestmark = pytest.mark.slow
