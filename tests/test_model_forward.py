"""One forward loop: every batched pass goes through forward_batches."""

from __future__ import annotations

import numpy as np

from explorer.model import encoder
from explorer.model.forward import forward_batches
from tests.conftest import TUTORIAL


def test_hidden_states_batch_runs_through_forward_batches(tiny, monkeypatch):
    calls = []

    def counting(model, batches, handle, *args, **kwargs):
        calls.append(len(batches))
        return forward_batches(model, batches, handle, *args, **kwargs)

    monkeypatch.setattr(encoder, "forward_batches", counting)
    texts = [TUTORIAL, "Short.", "A third, somewhat longer sentence about a bat."]
    states = tiny.hidden_states_batch(texts, max_batch_size=2)
    assert calls == [2]
    for text, one in zip(texts, states, strict=True):
        assert one.flags.c_contiguous and one.dtype == np.float32
        np.testing.assert_allclose(one, tiny.hidden_states(text), atol=1e-5)
