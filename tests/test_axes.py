"""explorer.maps._axes: custom axes are plain dot products with unit directions."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.maps._axes import Axes, custom_axes, text_vector, word_vector


def _data(n=30, d=8, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal(d), rng.standard_normal(d)


def test_x_is_the_dot_product_with_the_unit_direction():
    X, a, b = _data()
    axes = custom_axes(X, a, b, x_names=("money", "river"))
    assert isinstance(axes, Axes)
    u = (b - a) / np.linalg.norm(b - a)
    np.testing.assert_allclose(axes.x_direction, u)
    np.testing.assert_allclose(axes.coords[:, 0], np.dot(X, u))
    assert axes.labels[0] == "money → river"
    assert axes.coords.shape == (30, 2)


def test_y_from_a_pair_is_orthogonalised_against_x():
    X, a, b = _data()
    c, e = np.random.default_rng(5).standard_normal((2, 8))
    axes = custom_axes(X, a, b, c, e, y_names=("cold", "hot"))
    u, v = axes.x_direction, axes.y_direction
    raw = (e - c) / np.linalg.norm(e - c)
    expected = raw - (raw @ u) * u
    np.testing.assert_allclose(v, expected / np.linalg.norm(expected))
    assert abs(u @ v) < 1e-12 and np.linalg.norm(v) == pytest.approx(1)
    np.testing.assert_allclose(axes.coords[:, 1], np.dot(X, v))
    assert axes.y_from_pair and axes.xy_cosine == pytest.approx(raw @ u)
    assert axes.labels[1].startswith("cold → hot")


def test_y_without_a_pair_is_the_first_principal_component_of_the_rest():
    X, a, b = _data()
    axes = custom_axes(X, a, b)
    u, v = axes.x_direction, axes.y_direction
    rest = X - np.outer(X @ u, u)
    rest -= rest.mean(axis=0)
    top = np.linalg.svd(rest)[2][0]
    assert abs(v @ top) == pytest.approx(1, abs=1e-9)
    assert abs(u @ v) < 1e-9
    np.testing.assert_allclose(axes.coords[:, 1], np.dot(X, v))
    assert not axes.y_from_pair and axes.xy_cosine is None
    # the sign is fixed: the same map every time
    np.testing.assert_allclose(custom_axes(X, a, b).y_direction, v)


def test_project_places_more_vectors_on_the_same_axes():
    X, a, b = _data()
    axes = custom_axes(X, a, b)
    np.testing.assert_allclose(axes.project(X), axes.coords)
    ends = axes.project(np.stack([a, b]))
    assert ends[1, 0] - ends[0, 0] == pytest.approx(np.linalg.norm(b - a))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("same", "same vector"),
        ("narrow", "width"),
        ("nan", "NaN"),
        ("parallel", "same way"),
        ("half", "both ends"),
    ],
)
def test_bad_input(args, message):
    X, a, b = _data()
    call = {
        "same": lambda: custom_axes(X, a, a.copy()),
        "narrow": lambda: custom_axes(X, a[:5], b),
        "nan": lambda: custom_axes(X, a, np.full(8, np.nan)),
        "parallel": lambda: custom_axes(X, a, b, a, 2 * b - a),
        "half": lambda: custom_axes(X, a, b, a, None),
    }[args]
    with pytest.raises(ValueError, match=message):
        call()


def test_one_point_needs_a_second_pair():
    X, a, b = _data(n=1)
    with pytest.raises(ValueError, match="at least 2 points"):
        custom_axes(X, a, b)
    c, e = np.eye(8)[:2]
    assert custom_axes(X, a, b, c, e).coords.shape == (1, 2)


@pytest.mark.slow
def test_text_and_word_vectors_match_the_maps_points(bundled):
    import explorer

    expected = explorer.sentence_embeddings(bundled, ["money"], "mean", "last")[0]
    np.testing.assert_allclose(text_vector(bundled, "money", "mean", "last"), expected, atol=1e-5)
    _, words = explorer.word_vectors(bundled, ["river"], "river", "last")
    np.testing.assert_allclose(word_vector(bundled, "river", "last"), words[0], atol=1e-5)
    with pytest.raises(ValueError, match="empty"):
        text_vector(bundled, "  ")


@pytest.mark.slow
def test_money_to_river_orders_the_senses_of_bank(bundled):
    import explorer

    texts = [
        "The bank approved the loan.",
        "She deposited money at the bank.",
        "We sat on the river bank.",
        "The boat reached the muddy bank of the river.",
    ]
    _, vectors = explorer.word_vectors(bundled, texts, "bank", "last")
    axes = custom_axes(
        vectors, word_vector(bundled, "money", "last"), word_vector(bundled, "river", "last")
    )
    assert axes.coords[2:, 0].min() > axes.coords[:2, 0].max()
