"""Marks drawn over a 2-D map: the inspected point and its nearest neighbours, and points
selected on another map of the same texts (linked selection). Each adds traces whose
``customdata`` are row indices, so clicking a mark selects that point."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go


def highlight_neighbours(
    figure: go.Figure, coords: np.ndarray, focus: int, rows: Sequence[int]
) -> go.Figure:
    """``figure`` with point ``focus`` marked by a star and ``rows`` (its nearest neighbours in
    the full space) by rings, in a legend group "Nearest in the full space" (2-D maps)."""
    coords = np.asarray(coords)
    rows = np.asarray(rows, dtype=np.int64)
    ring = {"symbol": "circle-open", "size": 17, "color": "#111111", "line": {"width": 2}}
    figure.add_trace(
        go.Scatter(
            x=coords[rows, 0],
            y=coords[rows, 1],
            mode="markers",
            name="Nearest in the full space",
            marker=ring,
            customdata=rows,
            hoverinfo="skip",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=coords[[focus], 0],
            y=coords[[focus], 1],
            mode="markers",
            name="Inspected point",
            marker={"symbol": "star", "size": 20, "color": "#111111"},
            customdata=[focus],
            hoverinfo="skip",
        )
    )
    return figure


def highlight_rows(
    figure: go.Figure, coords: np.ndarray, rows: Sequence[int], name: str
) -> go.Figure:
    """``figure`` (a 2-D map) with ``rows`` ringed in a legend entry ``name``: the same points
    selected on another map of the same texts (linked selection)."""
    coords = np.asarray(coords)
    rows = np.asarray(rows, dtype=np.int64)
    figure.add_trace(
        go.Scatter(
            x=coords[rows, 0],
            y=coords[rows, 1],
            mode="markers",
            name=name,
            marker={"symbol": "circle-open", "size": 15, "color": "#d62728", "line": {"width": 2}},
            customdata=rows,
            hoverinfo="skip",
        )
    )
    return figure
