"""How much a numeric column of the data follows a map: do points side by side on the map
have alike values? The sentence a map coloured by a number shows above it."""

from __future__ import annotations

import math

import numpy as np

from explorer._markup import shorten
from explorer.maps._quality import _map_neighbors

ORDERED_BELOW = 0.5
"""Neighbours differing by less than half what random pairs differ: the map orders by it."""
PARTLY_BELOW = 0.85
"""Less than 85 %: the column partly follows the map."""


def random_pair_difference(values: np.ndarray) -> float:
    """The mean ``|x_i - x_j|`` over all pairs ``i != j`` of ``values`` ``(n,)`` (n >= 2),
    exactly, in ``O(n log n)``: sorted, value ``i`` (0-based) is the larger of ``i`` pairs and
    the smaller of ``n - 1 - i``."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    n = len(x)
    if n < 2:
        raise ValueError("A mean difference between pairs needs at least 2 values.")
    scale = float(max(-x[0], x[-1])) or 1.0  # the largest |x|: no overflow near the limits
    weights = 2 * np.arange(n) - (n - 1)
    with np.errstate(over="ignore"):
        return float((weights * (x / scale)).sum() * 2 / (n * (n - 1)) * scale)


def value_agreement(
    coords: np.ndarray, values: np.ndarray, k: int = 5, max_points: int = 5_000
) -> tuple[float, float, int]:
    """``(neighbour difference, random difference, points)``: the mean ``|value - value of a
    neighbour|`` over each point's ``k`` nearest points on the map ``coords`` ``(n, 2|3)``,
    and the same between random pairs (:func:`random_pair_difference`), over the points whose
    value is a finite number (NaN and infinite values left out, with their points). Above
    ``max_points`` such points, the neighbour difference is estimated from a fixed random
    sample of them. Computed on the values divided by the largest ``|value|`` (no overflow
    near the float limits); a difference larger than the largest float comes back as ``inf``.
    Raises ``ValueError`` for fewer than 3 numbers or a length mismatch."""
    near, far, n, scale = _agreement(coords, values, k, max_points)
    with np.errstate(over="ignore"):
        return near * scale, far * scale, n


def _agreement(
    coords: np.ndarray, values: np.ndarray, k: int, max_points: int
) -> tuple[float, float, int, float]:
    """:func:`value_agreement`'s two differences in units of ``scale`` (the largest
    ``|value|``), the points, ``scale``."""
    coords = np.asarray(coords, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if coords.ndim != 2 or values.shape != (len(coords),):
        raise ValueError(f"Got {coords.shape} map coordinates but {values.shape} values.")
    keep = np.isfinite(values)
    coords, values = coords[keep], values[keep]
    n = len(values)
    if n < 3:
        raise ValueError("Comparing a column with the map needs at least 3 points with a value.")
    scale = float(np.abs(values).max()) or 1.0
    values = values / scale
    k = min(int(k), n - 1)
    rows = np.arange(n)
    if n > max_points:
        rows = np.sort(np.random.default_rng(0).choice(n, max_points, replace=False))
    found = _map_neighbors(coords, rows, k)
    near = float(np.abs(values[found] - values[rows][:, None]).mean())
    return near, random_pair_difference(values), n, scale


def value_notice(coords: np.ndarray, values: np.ndarray, name: str, k: int = 5) -> str:
    """One or two plain sentences (``name`` is user text: escape to show) on how much the
    column ``name`` with ``values`` ``(n,)`` follows the map ``coords``
    (:func:`value_agreement`), read from the numbers; a long name is shortened
    (:func:`explorer._markup.shorten`)."""
    near, far, n, scale = _agreement(coords, values, k, 5_000)
    name = shorten(name)
    if far == 0:
        return f"Every point with a value has the same “{name}”."
    ratio = near / far
    verdict = (
        f"the map orders the points by “{name}”"
        if ratio < ORDERED_BELOW
        else f"“{name}” partly follows the map"
        if ratio < PARTLY_BELOW
        else f"“{name}” is spread across the map: it is not what the map groups"
    )
    missing = len(values) - n
    return (
        f"On the map, a point and its {min(k, n - 1)} nearest points differ in “{name}” by "
        f"{_amount(near, scale)} on average, against {_amount(far, scale)} between two random "
        "points "
        f"({ratio:.0%} of it): {verdict}."
        + (f" {missing:,} point(s) without a value are grey." if missing else "")
    )


def _amount(scaled: float, scale: float) -> str:
    """``scaled * scale`` in three significant digits, also past the largest float."""
    with np.errstate(over="ignore"):
        value = scaled * scale
    if np.isfinite(value):
        return f"{value:,.3g}"
    exponent = math.log10(scaled) + math.log10(scale)
    whole = math.floor(exponent)
    mantissa = round(10 ** (exponent - whole), 2)
    if mantissa >= 10:
        mantissa, whole = mantissa / 10, whole + 1
    return f"{mantissa:.3g}e+{whole}"
