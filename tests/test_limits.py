"""Request caps: tokens per request, occurrences of a word."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer import limits
from explorer.uploads import from_lists


def test_cap_tokens_keeps_a_prefix_with_its_labels_and_says_what_it_kept(bundled):
    texts = [f"Sentence number {i} is here." for i in range(50)]
    data = from_lists(texts, [str(i % 3) for i in range(50)])
    per_text = limits.token_counts(bundled, texts[:1])[0]
    kept = limits.cap_tokens(bundled, data, max_tokens=10 * per_text + 1)
    assert kept.data.texts == tuple(texts[:10]) and kept.data.labels == data.labels[:10]
    assert kept.total == 50 and kept.tokens <= 10 * per_text + 1
    assert "first 10 of 50 texts" in kept.note
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
    from explorer.projection import ProjectionParams

    umap_3d = ProjectionParams("umap", 3, n_neighbors=7)
    same, note = limits.cap_3d(umap_3d, limits.MAX_POINTS_3D)
    assert same == umap_3d and note is None
    flat, note = limits.cap_3d(umap_3d, limits.MAX_POINTS_3D + 1)
    assert flat == ProjectionParams("umap", 2, n_neighbors=7)
    assert "UMAP in 3-D draws at most 2,000 points" in note and "2,001" in note
    assert limits.cap_3d(ProjectionParams("tsne", 3), 50, limit=10)[0].n_components == 2
    for kept in (ProjectionParams("pca", 3), ProjectionParams("tsne", 2)):
        assert limits.cap_3d(kept, 10**6) == (kept, None)
