"""The custom-axes figure: points placed by their dot products with two named directions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from explorer._markup import escape_plotly
from explorer.figures.projections import projection_figure

COORDINATES = "x %{x:.3f} · y %{y:.3f}<br>"


def axes_figure(
    coords: np.ndarray,
    texts: Sequence[str],
    labels: Sequence[str] | None = None,
    *,
    x_title: str,
    y_title: str,
    spans: Sequence[tuple[int, int] | None] | None = None,
    title: str = "",
    legend_title: str = "Label",
    ends: Mapping[str, Sequence[float]] | None = None,
) -> go.Figure:
    """Scatter of ``coords`` ``(n, 2)`` (from :func:`explorer.maps._axes.custom_axes`), one trace
    per label as on the Projections map (``customdata`` = row index, escaped hovers), with
    each point's two coordinates in its hover and the axis titles ``x_title``/``y_title``
    (plain text, e.g. "money → river": escaped here). ``ends`` maps a name (a word or text
    that defines an axis) to its ``(x, y)`` on the same axes, drawn as a labelled star.
    """
    coords = np.asarray(coords, dtype=np.float64)
    if coords.ndim != 2 or coords.shape[1] != 2:
        raise ValueError(f"Expected (n, 2) coordinates, got shape {coords.shape}.")
    figure = projection_figure(
        coords,
        texts,
        labels,
        spans=spans,
        title=title,
        axes=(escape_plotly(x_title), escape_plotly(y_title)),
        legend_title=legend_title,
    )
    for trace in figure.data:
        template = trace.hovertemplate or ""
        trace.hovertemplate = template.replace("%{text}", COORDINATES + "%{text}", 1)
    if ends:
        names = list(ends)
        points = np.array([ends[name] for name in names], dtype=np.float64).reshape(-1, 2)
        escaped = [escape_plotly(name) for name in names]
        figure.add_trace(
            go.Scatter(
                x=points[:, 0],
                y=points[:, 1],
                mode="markers+text",
                name="Axis ends",
                text=escaped,
                textposition="top center",
                marker={"symbol": "star", "size": 16, "color": "#111111"},
                hovertemplate="<b>%{text}</b> (axis end)<br>x %{x:.3f} · y %{y:.3f}<extra></extra>",
            )
        )
    return figure
