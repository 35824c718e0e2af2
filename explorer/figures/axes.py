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


def axes_notice(x: np.ndarray, labels: Sequence[str] | None, ends: tuple[str, str]) -> str:
    """What to notice along a custom x axis from ``ends[0]`` to ``ends[1]`` (``x``: each
    point's coordinate, higher = nearer ``ends[1]``): with two labels or more, the labels
    whose points lie furthest toward each end on average, and the gap between those means;
    otherwise how far the points spread. Plain text (the page escapes it)."""
    x = np.asarray(x, dtype=np.float64)
    start, stop = ends
    if labels is None or len(set(labels)) < 2:
        return (
            f"Along x the points spread from {x.min():.2f} (nearest “{start}”) to "
            f"{x.max():.2f} (nearest “{stop}”); colour them by a label to see which group "
            "leans which way."
        )
    means: dict[str, list[float]] = {}
    for value, label in zip(x.tolist(), labels, strict=True):
        means.setdefault(str(label), []).append(value)
    ranked = sorted((float(np.mean(v)), name) for name, v in means.items())
    (low, low_name), (high, high_name) = ranked[0], ranked[-1]
    return (
        f"Along x, from “{start}” to “{stop}”, the points labelled “{high_name}” lie furthest "
        f"toward “{stop}” (mean {high:.2f}) and those labelled “{low_name}” furthest toward "
        f"“{start}” (mean {low:.2f}): {high - low:.2f} apart."
    )
