"""Map quality point by point: the neighbour inspector and neighbourhood preservation."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.mapquality import describe_trustworthiness, inspect_point, preservation


def _brute(vectors: np.ndarray, row: int, k: int) -> list[int]:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    scores = unit @ unit[row]
    scores[row] = -np.inf
    return np.lexsort((np.arange(len(scores)), -scores))[:k].tolist()


def test_inspection_lists_full_space_neighbours_and_counts_those_the_map_keeps():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(60, 16)).astype(np.float32)
    coords = vectors[:, :2] * 0 + rng.normal(size=(60, 2))  # a map unrelated to the vectors
    found = inspect_point(vectors, coords, 7, k=5)
    assert found.indices.tolist() == _brute(vectors, 7, 5)
    assert 7 not in found.indices and 7 not in found.on_map
    assert found.kept == len(set(found.indices) & set(found.on_map))
    assert "keeps" in found.summary() and f"{found.kept} of these 5" in found.summary()


def test_a_faithful_map_keeps_every_neighbourhood_and_a_shuffled_one_loses_them():
    rng = np.random.default_rng(1)
    coords = rng.normal(size=(200, 2))
    vectors = np.hstack([coords, np.ones((200, 1)) * 50]).astype(np.float32)  # cosine ~ map
    kept = preservation(vectors, coords, k=5)
    shuffled = preservation(vectors, coords[rng.permutation(200)], k=5)
    assert kept.shape == (200,) and kept.dtype == np.float32
    assert kept.mean() > 0.8 and shuffled.mean() < 0.15
    assert inspect_point(vectors, coords, 3, k=5).kept == round(kept[3] * 5)


def test_small_maps_lower_k_and_bad_input_is_a_clear_error():
    vectors = np.eye(3, dtype=np.float32)
    assert inspect_point(vectors, vectors[:, :2], 0, k=10).k == 2
    with pytest.raises(ValueError, match="same points"):
        preservation(vectors, np.zeros((4, 2)))
    with pytest.raises(ValueError, match="No point 5"):
        inspect_point(vectors, vectors[:, :2], 5)
    with pytest.raises(ValueError, match="k must be"):
        preservation(vectors, vectors[:, :2], k=0)


def test_trustworthiness_is_read_in_plain_words():
    assert "almost every point" in describe_trustworthiness(0.97, 5)
    assert "read clusters with care" in describe_trustworthiness(0.7, 5)
