"""Density under a map's points: a layer of where many rows lie, and contours of where the drawn
points crowd, both computed on the server and drawn under the points.

A saved map of a million rows cannot be sent as a million markers (tens of megabytes, a frozen
browser). :func:`density_trace` counts them on a grid instead (``numpy.histogram2d``) and draws
the counts as a grey heatmap on a log scale, so the figure stays the same size whatever the
number of rows. :func:`contour_trace` smooths the drawn points' counts (a Gaussian kernel
estimate on a grid) into filled contours, the same size for 20 points or 20,000. Pure: NumPy,
SciPy and Plotly only.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

BINS = 160
"""Grid cells along each axis."""


def density_counts(coords: np.ndarray, bins: int = BINS, chunk: int = 1_000_000):
    """``(counts (bins, bins) with x along the second axis, x edges, y edges)`` of ``coords``
    ``(n, 2)``, read ``chunk`` rows at a time (``coords`` may be memory-mapped). Raises
    ``ValueError`` for an empty or non-finite input."""
    coords = np.asarray(coords) if not isinstance(coords, np.memmap) else coords
    if coords.ndim != 2 or coords.shape[1] != 2 or len(coords) == 0:
        raise ValueError(f"A density layer needs (n, 2) coordinates, not {coords.shape}.")
    low = np.full(2, np.inf)
    high = np.full(2, -np.inf)
    for start in range(0, len(coords), chunk):
        part = np.asarray(coords[start : start + chunk], dtype=np.float64)
        if not np.isfinite(part).all():
            raise ValueError("The saved coordinates hold NaN or infinite values.")
        low, high = np.minimum(low, part.min(axis=0)), np.maximum(high, part.max(axis=0))
    high = np.where(high > low, high, low + 1.0)
    x_edges = np.linspace(low[0], high[0], bins + 1)
    y_edges = np.linspace(low[1], high[1], bins + 1)
    counts = np.zeros((bins, bins), dtype=np.int64)
    for start in range(0, len(coords), chunk):
        part = np.asarray(coords[start : start + chunk], dtype=np.float64)
        found, _, _ = np.histogram2d(part[:, 0], part[:, 1], bins=(x_edges, y_edges))
        counts += found.astype(np.int64)
    return counts.T, x_edges, y_edges


def density_trace(coords: np.ndarray, bins: int = BINS, name: str = "All rows") -> go.Heatmap:
    """A grey heatmap of how many of ``coords`` ``(n, 2)`` fall in each cell (log scale, empty
    cells transparent), hover showing the count; meant as the first trace of a map."""
    counts, x_edges, y_edges = density_counts(coords, bins)
    shade = np.where(counts > 0, np.log10(np.maximum(counts, 1)) + 1, np.nan)
    return go.Heatmap(
        z=shade.astype(np.float32),
        x=((x_edges[:-1] + x_edges[1:]) / 2).astype(np.float32),
        y=((y_edges[:-1] + y_edges[1:]) / 2).astype(np.float32),
        customdata=counts.astype(np.int64),
        colorscale=[[0.0, "rgb(235,235,235)"], [1.0, "rgb(90,90,90)"]],
        showscale=False,
        name=name,
        hovertemplate="%{customdata:,} rows here<extra>" + name + "</extra>",
        hoverongaps=False,
    )


def add_density(figure: go.Figure, coords: np.ndarray, bins: int = BINS) -> go.Figure:
    """``figure`` (a 2-D map) with :func:`density_trace` of ``coords`` under its points."""
    figure.add_trace(density_trace(coords, bins))
    figure.data = (figure.data[-1], *figure.data[:-1])
    return figure


CONTOUR_BINS = 80
"""Grid cells along each axis of the contours' density estimate."""

CONTOUR_LEVELS = 6
"""Filled contour levels, evenly spaced from a tenth of the peak density to the peak."""


def density_grid(coords: np.ndarray, bins: int = CONTOUR_BINS):
    """A smoothed estimate of where the points ``coords`` ``(n, 2)`` lie: ``(z (bins, bins)
    with x along the second axis, x centres (bins,), y centres (bins,))``, ``z`` in points per
    cell. The counts of a grid are smoothed by a Gaussian of Scott's bandwidth per axis
    (``n ** (-1 / 6)`` standard deviations, the rule for two dimensions), and the grid reaches
    three bandwidths past the outermost points so every contour closes. Raises ``ValueError``
    for fewer than 2 points or non-finite coordinates."""
    from scipy.ndimage import gaussian_filter

    coords = np.asarray(coords, dtype=np.float64)
    if coords.ndim != 2 or coords.shape[1] != 2 or len(coords) < 2:
        raise ValueError(
            f"Density contours need (n, 2) coordinates of 2 or more points, not {coords.shape}."
        )
    if not np.isfinite(coords).all():
        raise ValueError("The map's coordinates hold NaN or infinite values.")
    spread = coords.std(axis=0)
    spread = np.where(spread > 0, spread, 1.0)
    bandwidth = spread * len(coords) ** (-1 / 6)
    low = coords.min(axis=0) - 3 * bandwidth
    high = coords.max(axis=0) + 3 * bandwidth
    x_edges = np.linspace(low[0], high[0], bins + 1)
    y_edges = np.linspace(low[1], high[1], bins + 1)
    counts, _, _ = np.histogram2d(coords[:, 0], coords[:, 1], bins=(x_edges, y_edges))
    cell = (high - low) / bins
    sigma = bandwidth / cell  # in cells, per axis (x first, as histogram2d's rows)
    z = gaussian_filter(counts, sigma=tuple(sigma), mode="constant")
    return z.T, (x_edges[:-1] + x_edges[1:]) / 2, (y_edges[:-1] + y_edges[1:]) / 2


def contour_trace(coords: np.ndarray, bins: int = CONTOUR_BINS, levels: int = CONTOUR_LEVELS):
    """Filled contours of :func:`density_grid` of ``coords`` ``(n, 2)``, pale blue and
    darker where more points lie, without hover (the points keep theirs); meant to be drawn
    under the points (:func:`add_contours`)."""
    z, x, y = density_grid(coords, bins)
    peak = float(z.max())
    step = 0.9 * peak / levels
    return go.Contour(
        z=z.astype(np.float32),
        x=x.astype(np.float32),
        y=y.astype(np.float32),
        contours={"start": 0.1 * peak, "end": peak, "size": step, "coloring": "fill"},
        colorscale=[[0.0, "rgba(31,119,180,0)"], [1.0, "rgba(31,119,180,0.45)"]],
        line={"width": 0.6, "color": "rgba(31,119,180,0.6)"},
        showscale=False,
        hoverinfo="skip",
        name="Density",
        showlegend=False,
    )


def add_contours(figure: go.Figure, coords: np.ndarray, bins: int = CONTOUR_BINS) -> go.Figure:
    """``figure`` (a 2-D map) with :func:`contour_trace` of ``coords`` under its points."""
    figure.add_trace(contour_trace(coords, bins))
    figure.data = (figure.data[-1], *figure.data[:-1])
    return figure
