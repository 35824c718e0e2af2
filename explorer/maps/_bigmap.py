"""Every row of a saved map in a browser: the data a WebGL map of up to a million points needs,
as compact arrays, and the questions the server answers about all of them.

The browser receives every point's coordinates once, as float32 pairs in a *draw order*
(:func:`draw_order`): a permutation whose every prefix is a density-aware sample of the map. A
zoomed-out view draws the first :data:`OVERVIEW_POINTS` of that order; a zoomed-in one walks
the order and draws the points inside the view, up to :data:`VIEW_POINTS`, so once the view
holds fewer than that every point in it is drawn. Colours travel as one byte per point
(:func:`colour_codes`), the optional density layer as a small grid (:func:`density_grid`).
What the person selects comes back as geometry (a box or a lasso polygon in the map's
coordinates), counted over every row (:func:`rows_in_box`, :func:`rows_in_lasso`), not only
over the points drawn. NumPy (and pandas' ``factorize`` for a column of text).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

OVERVIEW_POINTS = 80_000
"""Points drawn while the whole map is in view: the first of the draw order. Measured in
``bench.bigmap``: plotly's WebGL scatter on software rendering drew 200,000 points in 4.5 s and
1,000,000 in 12.4 s (issue 38), so a first draw of about 2 s needs a sample of this size."""
VIEW_POINTS = 100_000
"""Most points drawn in a zoomed-in view: the draw order's points inside it, so every point in
a view that holds fewer than this. The view is redrawn at once with the points it had; these
are drawn in after it (at about 20 µs a point on software rendering, issue 38's figures)."""
CELLS = 128
"""Grid cells along each axis over which :func:`draw_order` spreads its sample."""
DENSITY_POWER = 0.5
"""A cell holding ``c`` points gives a prefix of the draw order about ``t * c ** 0.5`` of them
(all when fewer): dense regions stay denser, while sparse ones and outliers keep a far larger
share than in a random sample of the same size."""
MAX_CATEGORIES = 20
"""Colours of a categorical column: its most frequent values, the rest one grey "other"."""
NUMERIC_LEVELS = 255
"""A numeric column's values are coded 0..254 on a linear scale; code 255 is a missing value."""
MISSING = 255


def _check_coords(coords: np.ndarray) -> np.ndarray:
    coords = np.asarray(coords)
    if coords.ndim != 2 or coords.shape[1] != 2:
        raise ValueError(f"A map needs (n, 2) coordinates, not {coords.shape}.")
    return coords


def draw_order(
    coords: np.ndarray, cells: int = CELLS, power: float = DENSITY_POWER, seed: int = 0
) -> np.ndarray:
    """A permutation ``(n,)`` int64 of the rows of ``coords`` ``(n, 2)`` whose every prefix is
    a density-aware sample: points are binned on a ``cells`` × ``cells`` grid, the ``j``-th
    point (at random) of a cell holding ``c`` gets the key ``(j + u) / c ** power`` (``u``
    uniform in [0, 1)), and rows are sorted by key. ``power`` 1 samples each cell in
    proportion (as a random sample does), 0 takes one point per cell in turn;
    :data:`DENSITY_POWER` keeps clusters denser than the sparse space around them while a
    prefix still holds the outliers a random sample would drop.
    Reproducible with ``seed``."""
    coords = _check_coords(coords)
    n = len(coords)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # Working arrays in int32 (rows, cells) where int64 was not needed and freed as soon as
    # done: a million points peaked at +93 MB; the order is the same.
    rng = np.random.default_rng(seed)
    low, high = coords.min(axis=0), coords.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    cell = np.zeros(n, dtype=np.int32)
    for axis, weight in ((0, cells), (1, 1)):
        scaled = (coords[:, axis] - low[axis]) / span[axis] * cells
        cell += np.clip(scaled.astype(np.int32), 0, cells - 1) * np.int32(weight)
        del scaled
    shuffled = rng.permutation(n).astype(np.int32)
    by_cell = shuffled[np.argsort(cell[shuffled], kind="stable")]
    del shuffled
    sorted_cells = cell[by_cell]
    del cell
    starts = np.flatnonzero(np.r_[True, sorted_cells[1:] != sorted_cells[:-1]])
    del sorted_cells
    sizes = np.diff(np.r_[starts, n])
    step = np.repeat(sizes, sizes)
    rank = np.arange(n, dtype=np.int32)
    rank -= np.repeat(starts.astype(np.int32), sizes)
    key = np.empty(n, dtype=np.float64)
    key[by_cell] = (rank + rng.random(n)) / step.astype(np.float64) ** power
    del by_cell, rank, step
    return np.argsort(key, kind="stable")


def pack_coords(coords: np.ndarray, order: np.ndarray) -> bytes:
    """The coordinates ``(n, 2)`` in ``order`` as little-endian float32 ``x0 y0 x1 y1 ...``:
    ``8 * n`` bytes (:func:`unpack_coords` reads them back)."""
    coords = _check_coords(coords)
    return np.ascontiguousarray(coords[order], dtype="<f4").tobytes()


def unpack_coords(data: bytes) -> np.ndarray:
    """``(n, 2)`` float32 coordinates from :func:`pack_coords`'s bytes."""
    return np.frombuffer(data, dtype="<f4").reshape(-1, 2)


@dataclass(frozen=True)
class Colours:
    """One byte per point (``codes``, in the map's row order) and what the codes mean: for a
    category, ``names[code]`` (the last "other" when the column has more than
    :data:`MAX_CATEGORIES` values); for a number, ``low`` and ``high`` (code ``c`` <
    :data:`MISSING` stands for ``low + c / 254 * (high - low)``)."""

    codes: np.ndarray
    names: tuple[str, ...] | None = None
    low: float | None = None
    high: float | None = None

    @property
    def numeric(self) -> bool:
        return self.names is None


def colour_codes(values: Sequence | np.ndarray) -> Colours:
    """:class:`Colours` of a column ``(n,)``: numbers (a numeric dtype) on a linear scale of
    :data:`NUMERIC_LEVELS` levels (NaN: :data:`MISSING`), anything else by category, the most
    frequent first (ties by the text), each value as text (``str``); a pandas ``Categorical``
    by its categories (a missing value as ``"None"``, as ``str(None)``), without a value per
    row."""
    if hasattr(values, "categories") and hasattr(values, "codes"):
        codes = np.asarray(values.codes)
        names, inverse, counts = _coded(codes, np.asarray(values.categories, dtype=object))
        return _ranked(names, inverse, counts)
    array = np.asarray(values)
    if array.dtype.kind in "iuf" and array.dtype != bool:
        numbers = array.astype(np.float64)
        finite = np.isfinite(numbers)
        codes = np.full(len(numbers), MISSING, dtype=np.uint8)
        if not finite.any():
            return Colours(codes, low=0.0, high=0.0)
        low, high = float(numbers[finite].min()), float(numbers[finite].max())
        scale = (NUMERIC_LEVELS - 1) / (high - low) if high > low else 0.0
        codes[finite] = np.rint((numbers[finite] - low) * scale).astype(np.uint8)
        return Colours(codes, low=low, high=high)
    return _ranked(*_categories(array.reshape(-1)))


def _ranked(names: np.ndarray, inverse: np.ndarray, counts: np.ndarray) -> Colours:
    ranked = np.argsort(-counts, kind="stable")
    code_of = np.empty(len(names), dtype=np.int64)
    code_of[ranked] = np.minimum(np.arange(len(names)), MAX_CATEGORIES)
    kept = [str(names[i]) for i in ranked[:MAX_CATEGORIES]]
    if len(names) > MAX_CATEGORIES:
        kept.append("other")
    return Colours(code_of[inverse.reshape(-1)].astype(np.uint8), names=tuple(kept))


def _categories(array: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(array.astype(str), return_inverse=True, return_counts=True)``: the distinct
    values as text (sorted), each row's index among them and their counts. A column of text
    is hashed as it is (pandas' ``factorize``) and only its distinct values sorted: turning a
    million labels into one fixed-width array of the longest and sorting it took 138 MB
    (16 MB now), and that grows with the longest value."""
    import pandas as pd

    if array.dtype.kind != "U" and pd.api.types.infer_dtype(array, skipna=False) != "string":
        return np.unique(array.astype(str), return_inverse=True, return_counts=True)
    codes, distinct = pd.factorize(array, size_hint=256)  # grows as it needs
    return _coded(codes, np.asarray(distinct, dtype=object))


def _coded(codes: np.ndarray, distinct: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_categories` of the values ``distinct[codes]`` (code -1: ``None``)."""
    if len(codes) and codes.min() < 0:
        distinct = np.append(distinct, None)
        codes = np.where(codes < 0, len(distinct) - 1, codes)
    names, place = np.unique(distinct.astype(str), return_inverse=True)
    inverse = place.reshape(-1)[codes]
    return names, inverse, np.bincount(inverse, minlength=len(names))


def density_grid(coords: np.ndarray, bins: int = 160) -> tuple[np.ndarray, tuple[float, ...]]:
    """How many of ``coords`` ``(n, 2)`` fall in each cell of a ``bins`` × ``bins`` grid over
    their extent, as ``(uint8 (bins, bins) with y along the first axis: 0 empty, else 1 + the
    log count scaled to 254, bounds (x0, x1, y0, y1))``."""
    coords = _check_coords(coords)
    if not len(coords):
        raise ValueError("A density layer needs at least one point.")
    low, high = coords.min(axis=0).astype(np.float64), coords.max(axis=0).astype(np.float64)
    high = np.where(high > low, high, low + 1.0)
    counts, _, _ = np.histogram2d(
        coords[:, 1], coords[:, 0], bins=bins, range=[[low[1], high[1]], [low[0], high[0]]]
    )
    logs = np.log1p(counts)
    top = logs.max() or 1.0
    grid = np.where(counts > 0, 1 + np.rint(logs / top * 253), 0).astype(np.uint8)
    return grid, (float(low[0]), float(high[0]), float(low[1]), float(high[1]))


def rows_in_box(coords: np.ndarray, x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """Positions ``(m,)`` (sorted) of the rows of ``coords`` ``(n, 2)`` inside the box
    spanning ``x`` (two numbers, either order) and ``y``, edges included."""
    coords = _check_coords(coords)
    (x0, x1), (y0, y1) = sorted(map(float, x)), sorted(map(float, y))
    inside = (coords[:, 0] >= x0) & (coords[:, 0] <= x1)
    inside &= (coords[:, 1] >= y0) & (coords[:, 1] <= y1)
    return np.flatnonzero(inside)


def rows_in_lasso(coords: np.ndarray, x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """Positions ``(m,)`` (sorted) of the rows of ``coords`` ``(n, 2)`` inside the polygon with
    vertices ``x``, ``y`` (closed implicitly; the even-odd rule, as plotly's lasso). Each edge
    tests only the points in its band of heights (points sorted by y once), so a lasso of a few
    hundred vertices over a million points takes a fraction of a second."""
    coords = _check_coords(coords)
    px, py = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if px.shape != py.shape or px.ndim != 1 or len(px) < 3:
        raise ValueError("A lasso needs at least three vertices, as many x as y.")
    box = (coords[:, 0] >= px.min()) & (coords[:, 0] <= px.max())
    box &= (coords[:, 1] >= py.min()) & (coords[:, 1] <= py.max())
    candidates = np.flatnonzero(box)
    if not len(candidates):
        return candidates
    order = np.argsort(coords[candidates, 1], kind="stable")
    cx = coords[candidates[order], 0].astype(np.float64)
    cy = coords[candidates[order], 1].astype(np.float64)
    inside = np.zeros(len(cx), dtype=bool)
    for (ax, ay), (bx, by) in zip(
        zip(px, py, strict=True), zip(np.roll(px, -1), np.roll(py, -1), strict=True), strict=True
    ):
        if ay == by:
            continue
        low, high = (ay, by) if ay < by else (by, ay)
        # half-open band [low, high): a vertex shared by two edges counts once
        begin, end = np.searchsorted(cy, low, "left"), np.searchsorted(cy, high, "left")
        if begin == end:
            continue
        band_y = cy[begin:end]
        cross = ax + (band_y - ay) * (bx - ax) / (by - ay)
        inside[begin:end] ^= cx[begin:end] < cross
    return np.sort(candidates[order][inside])


def map_neighbors(coords: np.ndarray, position: int, k: int) -> np.ndarray:
    """Positions ``(k,)`` of the ``k`` rows of ``coords`` ``(n, 2)`` nearest to row
    ``position`` on the map (itself left out), nearest first, ties by position."""
    coords = _check_coords(coords)
    if not 0 <= position < len(coords):
        raise ValueError(f"No point {position}: the map has points 0 to {len(coords) - 1}.")
    k = min(k, len(coords) - 1)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    # A float32 pass over every row keeps the candidates (a margin above the k-th smallest
    # float32 gap covers its rounding); float64 orders them (a click on a million points).
    x, y = coords[:, 0].astype(np.float32), coords[:, 1].astype(np.float32)
    dx, dy = x - x[position], y - y[position]
    rough = dx * dx + dy * dy
    rough[position] = np.inf
    limit = np.partition(rough, k - 1)[k - 1]
    near = np.flatnonzero(rough <= limit * (1 + 1e-4) + np.finfo(np.float32).tiny)
    near = near[near != position]
    gap = ((coords[near].astype(np.float64) - coords[position].astype(np.float64)) ** 2).sum(1)
    return near[np.lexsort((near, gap))][:k].astype(np.int64)
