"""A density layer: where many points of a map lie, binned on the server, drawn under the points.

A saved map of a million rows cannot be sent as a million markers (tens of megabytes, a frozen
browser). :func:`density_trace` counts them on a grid instead (``numpy.histogram2d``) and draws
the counts as a grey heatmap on a log scale, so the figure stays the same size whatever the
number of rows. Pure: NumPy and Plotly only.
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
