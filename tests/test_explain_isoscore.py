"""IsoScore (Rudman et al. 2022) against hand computations and its invariants."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.explain._isoscore import axis_variances, dimensions_used, isoscore


def axes_cloud(lengths, dimensions: int | None = None) -> np.ndarray:
    """Two points ``+a e_i`` and ``-a e_i`` for every axis ``i`` (``a`` from ``lengths``): mean
    0, covariance diagonal with variances ``2 a_i^2 / (m - 1)``, so proportional to ``a_i^2``."""
    lengths = np.asarray(lengths, dtype=np.float64)
    n = dimensions or len(lengths)
    points = np.zeros((2 * len(lengths), n))
    for i, a in enumerate(lengths):
        points[2 * i, i], points[2 * i + 1, i] = a, -a
    return points


def turned(points: np.ndarray, seed: int = 0) -> np.ndarray:
    """``points`` rotated at random, scaled and moved far from the origin."""
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.normal(size=(points.shape[1],) * 2))
    return 3.5 * points @ rotation + rng.normal(10, 1, size=points.shape[1])


def test_isoscore_by_hand():
    # Variances in the ratio 4 : 2 : 1 : 1 (axis lengths 2, sqrt 2, 1, 1). By hand, with n = 4:
    # normalised diagonal v = 2 (4, 2, 1, 1) / sqrt(22); |v - 1|^2 = 8 - 16 / sqrt(22) * 2,
    # so delta^2 (n - sqrt n) = 4 - 16 / sqrt(22); n - that = 16 / sqrt(22);
    # n phi = 256 / 22 / 4 = 32 / 11; IsoScore = (32 / 11 - 1) / 3 = 7 / 11.
    points = axes_cloud([2.0, np.sqrt(2.0), 1.0, 1.0])
    assert isoscore(points) == pytest.approx(7 / 11)
    # Neither a rotation, nor a scale, nor a shift away from the origin changes it (the
    # average cosine of the shifted cloud would be near 1).
    assert isoscore(turned(points)) == pytest.approx(7 / 11)
    # In 2-D the steps come down to 2 a b / (a^2 + b^2) for axis variances a and b: 0.8 for 2 : 1.
    assert isoscore(turned(axes_cloud([np.sqrt(2.0), 1.0]), seed=1)) == pytest.approx(0.8)


@pytest.mark.parametrize("n", [2, 5, 12])
def test_k_of_n_equal_directions_score_k_minus_1_over_n_minus_1(n):
    for k in range(1, n + 1):
        points = turned(axes_cloud(np.ones(k), n), seed=k)
        assert isoscore(points) == pytest.approx((k - 1) / (n - 1), abs=1e-9)
        assert dimensions_used(isoscore(points), n) == pytest.approx(k)


def test_isotropic_gaussian_near_1_and_one_direction_near_0():
    rng = np.random.default_rng(0)
    assert isoscore(rng.normal(size=(20_000, 10))) > 0.99
    line = rng.normal(size=(500, 1)) * rng.normal(size=(1, 30)) + rng.normal(size=30)
    assert isoscore(line) == pytest.approx(0.0, abs=1e-9)
    # One strong direction over a little isotropic noise: near 0, not 0.
    noisy = line + 0.01 * rng.normal(size=line.shape)
    assert 0 < isoscore(noisy) < 0.01


def test_fewer_points_than_dimensions():
    # 6 points span at most 5 directions of 40: IsoScore at most (6 - 2) / 39, and the
    # variances agree with the singular values of the centred points.
    rng = np.random.default_rng(1)
    points = rng.normal(size=(6, 40))
    assert 0 < isoscore(points) <= 4 / 39 + 1e-12
    for x in (points, rng.normal(size=(50, 7))):
        singular = np.linalg.svd(x - x.mean(axis=0), compute_uv=False)
        expected = np.zeros(x.shape[1])
        expected[: len(singular)] = singular**2 / (len(x) - 1)
        np.testing.assert_allclose(axis_variances(x), expected, atol=1e-10)


def test_refuses_what_it_cannot_score():
    with pytest.raises(ValueError, match="at least 2 points"):
        isoscore(np.ones((1, 5)))
    with pytest.raises(ValueError, match="2 dimensions"):
        isoscore(np.arange(5.0)[:, None])
    with pytest.raises(ValueError, match="2-D"):
        isoscore(np.ones(5))
    with pytest.raises(ValueError, match="NaN"):
        isoscore(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="the same"):
        isoscore(np.tile([1.0, 2.0, 3.0], (4, 1)))


def test_exported_from_the_package():
    assert explorer.isoscore is isoscore
    assert "isoscore" in explorer.__all__ and "isoscore" in dir(explorer)
