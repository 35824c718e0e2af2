"""Request caps: tokens per request, occurrences of a word."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.data.uploads import from_lists
from explorer.server import limits


def test_cap_tokens_keeps_a_prefix_with_its_labels_and_says_what_it_kept(bundled):
    texts = [f"Sentence number {i} is here." for i in range(50)]
    data = from_lists(texts, [str(i % 3) for i in range(50)])
    per_text = limits.token_counts(bundled, texts[:1])[0]
    kept = limits.cap_tokens(bundled, data, max_tokens=10 * per_text + 1)
    assert kept.data.texts == tuple(texts[:10]) and kept.data.labels == data.labels[:10]
    assert kept.total == 50 and kept.tokens <= 10 * per_text + 1
    assert "first 10 of 50 texts" in kept.note
    with_columns = from_lists(texts, None, {"n": range(50)})
    cut = limits.cap_tokens(bundled, with_columns, max_tokens=10 * per_text + 1).data
    assert cut.columns == (("n", tuple(str(i) for i in range(10))),)  # cut with the texts
    untouched = limits.cap_tokens(bundled, data)
    assert untouched.data is data and untouched.note is None


def test_cap_tokens_keeps_at_least_one_text_and_rejects_a_silly_budget(bundled):
    kept = limits.cap_tokens(bundled, from_lists(["a long sentence " * 100, "b"]), max_tokens=5)
    assert len(kept.data) == 1
    with pytest.raises(ValueError, match="at least 1"):
        limits.cap_tokens(bundled, from_lists(["a"]), max_tokens=0)


def test_word_vectors_are_capped_before_the_forward_pass(bundled):
    texts = ["bank " * 30] * 5  # 150 occurrences
    occurrences, vectors, note = limits.word_layer_vectors(bundled, texts, "bank", limit=40)
    assert len(occurrences) == 40 and vectors.shape == (bundled.num_layers + 1, 40, 384)
    assert "occurs 150 times" in note and "first 40" in note
    _, full = explorer.word_layer_vectors(bundled, texts[:2], "bank")
    np.testing.assert_allclose(vectors, full[:, :40], atol=1e-5)
    _, _, none = limits.word_layer_vectors(bundled, texts, "bank", limit=150)
    assert none is None


def test_maps_sample_beyond_the_point_cap_and_say_so():
    rows, note = limits.sample_points(35_000)
    assert len(rows) == 20_000 and len(set(rows.tolist())) == 20_000
    assert np.all(np.diff(rows) > 0) and rows.max() < 35_000
    assert note == "Showing 20,000 of 35,000 points, a random sample (seed 0)."
    again, _ = limits.sample_points(35_000)
    np.testing.assert_array_equal(rows, again)
    everything, none = limits.sample_points(500)
    assert none is None and everything.tolist() == list(range(500))


def test_cap_3d_draws_large_nonlinear_3d_maps_in_2d_and_leaves_the_rest():
    from explorer.maps import ProjectionParams

    umap_3d = ProjectionParams("umap", 3, n_neighbors=7)
    same, note = limits.cap_3d(umap_3d, limits.MAX_POINTS_3D)
    assert same == umap_3d and note is None
    flat, note = limits.cap_3d(umap_3d, limits.MAX_POINTS_3D + 1)
    assert flat == ProjectionParams("umap", 2, n_neighbors=7)
    assert "UMAP in 3-D draws at most 2,000 points" in note and "2,001" in note
    assert limits.cap_3d(ProjectionParams("tsne", 3), 50, limit=10)[0].n_components == 2
    for kept in (ProjectionParams("pca", 3), ProjectionParams("tsne", 2)):
        assert limits.cap_3d(kept, 10**6) == (kept, None)


@pytest.fixture(scope="module")
def bert_base(bert_base_path):
    return explorer.load_model(bert_base_path)


def test_costs_are_measured_from_the_architecture(bundled, bert_base, tiny):
    assert limits.work_factor(bundled) == 1.0 and limits.memory_factor(bundled) == 1.0
    assert 7.9 < limits.work_factor(bert_base) < 8.1  # issue 24: "about 8x per token"
    assert 3.6 < limits.memory_factor(bert_base) < 3.8  # 13 x 768 over 7 x 384
    assert limits.work_factor(tiny) == 1.0  # smaller models keep the bundled budget
    assert limits.scaled(bert_base, 80_000) == int(80_000 / limits.work_factor(bert_base))
    assert limits.scaled(bert_base, 4_000, "memory") == 1_076


def test_a_bert_base_sized_request_is_capped_at_fewer_tokens_with_a_note(bundled, bert_base):
    texts = [f"Sentence number {i} is here." for i in range(200)]
    data = from_lists(texts)
    per_text = limits.token_counts(bundled, texts[:1])[0]
    budget = 100 * per_text
    small = limits.cap_tokens(bundled, data, budget)
    assert len(small.data) == 100 and "times slower" not in small.note
    big = limits.cap_tokens(bert_base, data, budget)
    assert len(big.data) == 100 // 8 and big.tokens <= budget / 8
    assert "about 8 times slower than the bundled all-MiniLM-L6-v2" in big.note
    memory = limits.cap_tokens(bert_base, data, budget, "memory")
    assert len(memory.data) == int(budget / limits.memory_factor(bert_base)) // per_text
    assert "about 4 times the bundled all-MiniLM-L6-v2's memory" in memory.note


def test_a_probe_of_a_bert_base_sized_model_reads_fewer_rows_and_tokens(bundled, bert_base):
    from explorer.probing.sample import probe_sample

    texts = [f"Text {i} about topic {i % 2}." for i in range(1_000)]
    labels = [i % 2 for i in range(1_000)]
    small = probe_sample(bundled, texts, labels)
    big = probe_sample(bert_base, texts, labels)
    assert len(small.rows) == limits.MAX_PROBE_TEXTS
    assert len(big.rows) == limits.scaled(bert_base, limits.MAX_PROBE_TEXTS, "memory")
    assert "about 8 times slower" in big.note and "about 4 times its memory" in big.note
    assert "times slower" not in small.note
