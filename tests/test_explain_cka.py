"""linear_cka against its formula (HSIC with the centring matrix) and its invariances."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ortho_group

import explorer
from explorer.explain import layer_cka, linear_cka
from explorer.explain._cka import cka_matrix


def _hsic_cka(x, y):
    """Kornblith et al.'s definition: HSIC(K, L) / sqrt(HSIC(K, K) HSIC(L, L)), H = I - 11^T/n."""
    n = len(x)
    h = np.eye(n) - np.ones((n, n)) / n
    k, m = x @ x.T, y @ y.T

    def hsic(a, b):
        return np.trace(a @ h @ b @ h)

    return hsic(k, m) / np.sqrt(hsic(k, k) * hsic(m, m))


@pytest.mark.parametrize(("n", "p", "q"), [(40, 5, 7), (6, 20, 30), (25, 25, 3)])
def test_cka_matches_its_formula(n, p, q):
    rng = np.random.default_rng(n + p)
    x = rng.normal(size=(n, p))
    y = x[:, :1] @ rng.normal(size=(1, q)) + rng.normal(size=(n, q))
    assert linear_cka(x, y) == pytest.approx(_hsic_cka(x, y), abs=1e-10)
    assert linear_cka(x, y) == pytest.approx(linear_cka(y, x), abs=1e-12)
    assert 0 <= linear_cka(x, y) <= 1


def test_cka_invariances():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 8)) * np.arange(1, 9)
    y = np.tanh(x @ rng.normal(size=(8, 6)))
    base = linear_cka(x, y)
    rotation = ortho_group.rvs(8, random_state=1)
    assert linear_cka(x @ rotation, y) == pytest.approx(base, abs=1e-10)
    assert linear_cka(3.7 * x, y) == pytest.approx(base, abs=1e-10)
    assert linear_cka(x + 5.0, y) == pytest.approx(base, abs=1e-10)  # centred
    assert linear_cka(x, x) == pytest.approx(1.0)
    assert linear_cka(x, 2 * x @ rotation) == pytest.approx(1.0)
    # Not invariant to any invertible linear map: stretching one axis changes it.
    stretch = np.diag([1, 1, 1, 1, 1, 1, 1, 50.0])
    assert abs(linear_cka(x @ stretch, y) - base) > 1e-3


def test_cka_refuses_mismatched_or_tiny_inputs():
    with pytest.raises(ValueError, match="same ones"):
        linear_cka(np.ones((4, 2)), np.ones((5, 2)))
    with pytest.raises(ValueError, match="at least 2"):
        linear_cka(np.ones((1, 2)), np.ones((1, 2)))
    assert linear_cka(np.ones((4, 2)), np.random.default_rng(0).normal(size=(4, 2))) == 0.0


@pytest.mark.parametrize("n", [10, 60])
def test_cka_matrix_is_pairwise_cka(n):
    rng = np.random.default_rng(n)
    states = np.cumsum(rng.normal(size=(5, n, 16)), axis=0)  # layers drift apart
    matrix = cka_matrix(states)
    expected = np.array([[linear_cka(a, b) for b in states] for a in states])
    np.testing.assert_allclose(matrix, expected, atol=1e-10)
    np.testing.assert_allclose(np.diag(matrix), 1.0)


def test_layer_cka_on_a_model(tiny):
    texts = ["The bank approved the loan.", "We sat on the river bank."]
    matrix = layer_cka(tiny, texts)
    assert matrix.shape == (tiny.num_layers + 1, tiny.num_layers + 1)
    np.testing.assert_allclose(matrix, matrix.T)
    np.testing.assert_allclose(np.diag(matrix), 1.0)
    states = explorer.context.content_token_states(tiny, texts)
    assert matrix[0, -1] == pytest.approx(linear_cka(states[0], states[-1]))
    capped = layer_cka(tiny, texts, max_tokens=5)
    assert capped[0, 1] == pytest.approx(linear_cka(states[0, :5], states[1, :5]))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_is_refused(bad):
    # issue 32, finding 13: NaN came back for NaN or inf, and cka_matrix made a NaN layer 0
    x = np.random.default_rng(0).normal(size=(10, 4))
    y = x.copy()
    y[3, 1] = bad
    with pytest.raises(ValueError, match="Y holds NaN or infinite values"):
        linear_cka(x, y)
    states = np.stack([x, x * 2, y])
    with pytest.raises(ValueError, match="Layer 2 holds NaN or infinite values"):
        cka_matrix(states)
    with pytest.raises(ValueError, match="Layer 2 holds NaN"):
        cka_matrix(np.stack([x.T[:, 2:5], x.T[:, 2:5], y.T[:, 2:5]]))  # fewer tokens than features


@pytest.mark.parametrize("scale", [1e-100, 1e-300, 1e-310, 1e100, 1e300])
def test_cka_is_scale_invariant_near_the_float_limits(scale):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(30, 6))
    y = np.tanh(x @ rng.normal(size=(6, 9)))
    assert linear_cka(x * scale, x) == pytest.approx(1.0, abs=1e-9)
    assert linear_cka(x * scale, y) == pytest.approx(linear_cka(x, y), abs=1e-9)
    matrix = cka_matrix(np.stack([x, x * scale, x[:, ::-1] * 7.0]))
    np.testing.assert_allclose(matrix, np.ones((3, 3)), atol=1e-9)


def test_constant_inputs_give_zero_as_documented():
    # 0.1 is not exact in binary: the mean of a constant column missed it by an ulp, and two
    # constant inputs compared their rounding errors (1.0)
    constant = np.full((7, 3), 0.1)
    assert linear_cka(constant, constant) == 0.0
    assert linear_cka(constant, np.random.default_rng(2).normal(size=(7, 3))) == 0.0
    assert np.array_equal(cka_matrix(np.stack([constant, constant])), np.eye(2) * 0)
