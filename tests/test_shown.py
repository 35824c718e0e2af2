"""explorer._shown: numbers as figures show them, and the values that tie there."""

from __future__ import annotations

from explorer._shown import all_tie, extremes, join, shown


def test_values_that_show_the_same_tie_at_the_extremes() -> None:
    # 0.951 and 0.949 both show 0.95: both are "least change"; 0.80 stands alone
    assert extremes([0.80, 0.951, 0.949, 0.90]) == ([1, 2], [0])
    assert extremes([0.621, 0.618, 0.5], as_percent=True) == ([0, 1], [2])
    assert extremes([0.999, 1.0, 0.9996], digits=3) == ([1, 2], [0])


def test_all_tie_and_the_sign_of_zero() -> None:
    assert all_tie([0.9991, 0.9999, 1.0]) and not all_tie([0.994, 1.0])
    assert shown(-0.001) == "0.00" and shown(-0.01) == "-0.01"


def test_join_names_lists_as_a_sentence() -> None:
    assert join(["3"]) == "3" and join(["1", "2"]) == "1 and 2"
    assert join(["a", "b", "c"]) == "a, b and c"
