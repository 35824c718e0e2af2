"""Colouring a map by a column of the data: numbers or categories, and how much a numeric
column follows the map (checked against brute-force computations)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from explorer.data.columns import (
    EMPTY,
    categories,
    colour_column,
    numbers,
    text_lengths,
)
from explorer.maps import value_agreement, value_notice
from explorer.maps._columns import _amount, random_pair_difference


def test_numbers_read_strings_and_typed_cells_alike_with_empty_cells_as_nan():
    found = numbers(["3.5", " 2 ", "", "-1e3"])
    assert found[0] == 3.5 and found[1] == 2 and np.isnan(found[2]) and found[3] == -1000
    typed = numbers(np.array([3.5, 2.0, np.nan, -1000.0]))
    np.testing.assert_array_equal(np.isnan(typed), np.isnan(found))
    assert numbers([1, 2, None]) is not None


@pytest.mark.parametrize(
    "cells",
    [
        ["1", "two", "3"],  # a word among numbers
        ["1", "1", ""],  # one number only: a category
        ["1", "inf", "3"],  # not finite
        [True, False, True],  # booleans are categories
        ["", ""],
    ],
)
def test_what_is_not_a_numeric_column(cells):
    assert numbers(cells) is None
    assert colour_column("c", cells).kind == "categorical"


def test_categories_keep_the_commonest_and_fold_the_rest():
    cells = ["a"] * 5 + ["b"] * 4 + ["c"] * 3 + ["d", "e", ""]
    names, folded = categories(cells, most=4)
    assert folded == 3  # d, e and the empty cell
    assert set(names) == {"a", "b", "c", "(3 other values)"}
    names, folded = categories(cells, most=10)
    assert folded == 0 and names[-1] == EMPTY
    with pytest.raises(ValueError, match="at least 2"):
        categories(cells, most=1)


def test_colour_column_kinds_and_errors():
    numeric = colour_column("stars", ["1", "5", "3"])
    assert numeric.kind == "numeric" and numeric.values.tolist() == [1.0, 5.0, 3.0]
    assert len(numeric) == 3
    categorical = colour_column("topic", ["x", "y", "x"])
    assert categorical.kind == "categorical" and list(categorical.values) == ["x", "y", "x"]
    with pytest.raises(ValueError, match="no cells"):
        colour_column("empty", [])


def test_text_lengths_count_words():
    assert text_lengths(["one two  three", "", " x "]).tolist() == [3.0, 0.0, 1.0]


def test_random_pair_difference_is_the_mean_over_all_pairs():
    values = np.random.default_rng(0).normal(size=37)
    pairs = [abs(a - b) for a, b in itertools.permutations(values, 2)]
    assert random_pair_difference(values) == pytest.approx(np.mean(pairs), rel=1e-12)
    with pytest.raises(ValueError):
        random_pair_difference([1.0])


def test_value_agreement_against_brute_force_neighbours():
    rng = np.random.default_rng(1)
    coords = rng.normal(size=(60, 2))
    values = coords[:, 0] + 0.1 * rng.normal(size=60)
    values[[3, 7]] = np.nan
    near, far, n = value_agreement(coords, values, k=4)
    keep = ~np.isnan(values)
    c, v = coords[keep], values[keep]
    distances = ((c[:, None] - c[None]) ** 2).sum(-1)
    np.fill_diagonal(distances, np.inf)
    nearest = np.argsort(distances, axis=1)[:, :4]
    assert n == 58
    assert near == pytest.approx(np.abs(v[nearest] - v[:, None]).mean(), rel=1e-12)
    assert far == pytest.approx(random_pair_difference(v))
    with pytest.raises(ValueError, match="at least 3"):
        value_agreement(coords[:2], values[:2])
    with pytest.raises(ValueError, match="values"):
        value_agreement(coords, values[:5])


def test_value_notice_reads_the_numbers():
    rng = np.random.default_rng(2)
    coords = rng.normal(size=(200, 2))
    ordered = value_notice(coords, coords[:, 0], "x")
    assert "orders the points by “x”" in ordered
    spread = value_notice(coords, rng.normal(size=200), "noise")
    assert "“noise” is spread across the map" in spread
    near, far, _ = value_agreement(coords, coords[:, 0])
    assert f"{near:,.3g}" in ordered and f"{far:,.3g}" in ordered
    holes = coords[:, 0].copy()
    holes[:5] = np.nan
    assert "5 point(s) without a value are grey" in value_notice(coords, holes, "x")


def test_long_cells_are_cut_for_grouping_and_counted():
    """Issue 32: what one cell costs on a map is bounded (legend, hovers, the program)."""
    from explorer.data.columns import MAX_LABEL_CHARS, cut_labels

    long_a, long_b = "a" * 5_000, "a" * 4_000 + "b"
    cells = [long_a, "short", long_b, " ", long_a]
    column = colour_column("blob", cells)
    assert column.kind == "categorical" and column.cut == 3
    assert max(len(v) for v in column.values) == MAX_LABEL_CHARS
    assert column.values[0] == column.values[2] == "a" * (MAX_LABEL_CHARS - 1) + "…"
    assert column.values[1] == "short" and column.values[3] == EMPTY
    assert column.values.dtype == object
    assert cut_labels(["x" * 10, "y"], limit=5) == (["xxxx…", "y"], 1)
    said = value_notice(np.c_[np.arange(9.0), np.zeros(9)], np.arange(9.0), "#" * 10_000)
    assert 0 < said.count("#") <= 3 * 80  # the name, shortened, at most three times


def test_values_near_the_float_limits_give_finite_true_numbers():
    # issue 32, finding 9: "differ by inf on average, against inf ... (nan% of it)"
    rng = np.random.default_rng(3)
    coords = rng.normal(size=(300, 2))
    values = np.where(coords[:, 0] > 0, 1.79e308, -1.79e308) * rng.uniform(0.9, 1, 300)
    notice = value_notice(coords, values, "huge")
    assert "inf" not in notice and "nan" not in notice, notice
    small = value_notice(coords, values / 1e300, "huge")  # the same column in other units
    assert notice.split("(")[1] == small.split("(")[1]  # the same share and verdict
    assert "orders the points by “huge”" in notice
    near, far, n = value_agreement(coords, values)
    assert f"by {near:,.3g} on average, against {far:,.3g} between" in notice
    assert far == pytest.approx(random_pair_difference(values / 1e300) * 1e300, rel=1e-9)
    assert random_pair_difference(values) == pytest.approx(far, rel=1e-12)
    # a mean difference past the largest float is still printed as a number
    assert _amount(3.58, 1e308) == "3.58e+308" and _amount(0.5, 4.0) == "2"
    tiny = value_agreement(coords, values / 1e308 * 5e-324 * 3)  # subnormal values: no 0/0
    assert np.isfinite(tiny[1]) and tiny[1] > 0
