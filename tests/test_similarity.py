"""Cosine similarity for vectors and matrices."""

from __future__ import annotations

import numpy as np
import pytest

from explorer import cosine_similarity


def test_vectors():
    assert cosine_similarity(np.array([1.0, 0.0]), np.array([0.0, 2.0])) == pytest.approx(0.0)
    assert cosine_similarity(np.array([1.0, 1.0]), np.array([2.0, 2.0])) == pytest.approx(1.0)
    assert cosine_similarity(np.array([1.0, 0.0]), np.array([-3.0, 0.0])) == pytest.approx(-1.0)


def test_matrices_and_self_similarity():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 16)), rng.normal(size=(3, 16))
    cross = cosine_similarity(a, b)
    assert cross.shape == (4, 3)
    own = cosine_similarity(a)
    np.testing.assert_allclose(np.diag(own), 1.0, atol=1e-6)
    np.testing.assert_allclose(own, own.T, atol=1e-7)
    assert np.all(np.abs(cross) <= 1.0)


def test_zero_vector_is_zero_similar():
    assert cosine_similarity(np.zeros(3), np.ones(3)) == 0.0


def test_mismatched_dimensions():
    with pytest.raises(ValueError, match="different sizes"):
        cosine_similarity(np.ones(3), np.ones(4))
