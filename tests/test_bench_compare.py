"""bench.compare's counter of forward passes: every text and token a model reads, once."""

from __future__ import annotations

from bench.compare import Reads, count_reads


def test_count_reads_counts_every_text_and_token(tiny):
    texts = ["The bank.", "A river bank in spring, with water.", "Bats fly."]
    reads = Reads()
    count_reads(tiny, reads)  # an attribute of this instance, over the class's method
    try:
        states = tiny.hidden_states_batch(texts, max_batch_size=2)
    finally:
        del tiny.layer_states
    assert reads.texts == len(texts)
    assert reads.tokens == sum(s.shape[1] for s in states)  # padding not counted
    assert reads.active == 0 and reads.seconds > 0
