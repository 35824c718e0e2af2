"""A map's points coloured by a number per point: a share in 0-1 (how many of a point's
neighbours the map kept: red to green, in per cent) or any numeric column of the data (a
continuous scale over the column's range, its name on the colour bar). Points without a
value (an empty cell) are drawn grey in a trace of their own, so the scale only spans real
values. Pure: NumPy and Plotly only."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer._markup import escape_plotly

NO_VALUE = "no value"
"""The legend entry of points whose cell is empty."""

NUMBER_SCALE = "Viridis"
"""The numeric columns' colour scale: ordered by lightness, readable when printed grey."""


def _number(value: float) -> str:
    return f"{value:,.4g}"


def value_traces(
    coords: np.ndarray,
    hovers: Sequence[str],
    labels: Sequence[str] | None,
    values: np.ndarray,
    title: str,
    *,
    share: bool,
    size: int,
    webgl: bool,
) -> list[go.BaseTraceType]:
    """The points of ``coords`` ``(n, 2 or 3)`` coloured by ``values`` ``(n,)``: with
    ``share``, values in 0-1 on a red-yellow-green scale in per cent; else the values' own
    range on :data:`NUMBER_SCALE`, NaN values as a grey :data:`NO_VALUE` trace. Each point's
    hover says ``title`` and its value, then its label (if any) and ``hovers[i]``; its
    ``customdata`` is its row. ``title`` and labels are escaped for plotly and shortened
    (:func:`explorer._markup.escape_plotly`). ``webgl`` draws 2-D points with ``Scattergl``."""
    coords = np.asarray(coords)
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (len(coords),):
        raise ValueError(f"Got {len(coords)} points but {values.shape} values.")
    if share and not np.isfinite(values).all():
        raise ValueError("Shares must all be numbers from 0 to 1.")
    if labels is not None:
        hovers = [
            f"<i>{escape_plotly(label)}</i><br>{h}" for label, h in zip(labels, hovers, strict=True)
        ]
    name = escape_plotly(title)
    shown = _number if not share else "{:.0%}".format
    text = np.empty(len(coords), dtype=object)
    text[:] = [
        f"{name}: {shown(v) if np.isfinite(v) else NO_VALUE}<br>{h}"
        for v, h in zip(values, hovers, strict=True)
    ]
    rows = np.flatnonzero(np.isfinite(values))
    if share:
        scale = {"colorscale": "RdYlGn", "cmin": 0.0, "cmax": 1.0}
        bar = {"title": {"text": name}, "tickformat": ".0%"}
    else:
        scale = {"colorscale": NUMBER_SCALE, "cmin": values[rows].min(), "cmax": values[rows].max()}
        bar = {"title": {"text": name}}
    marker = {"size": size, "color": values[rows], **scale, "colorbar": bar, "opacity": 0.9}
    traces = [_scatter(coords, rows, text, marker, webgl, name=name, showlegend=False)]
    empty = np.flatnonzero(~np.isfinite(values))
    if len(empty):
        grey = {"size": size, "color": "rgb(190,190,190)", "opacity": 0.7}
        traces.append(_scatter(coords, empty, text, grey, webgl, name=NO_VALUE, showlegend=True))
    return traces


def _scatter(coords, rows, text, marker, webgl: bool, *, name: str, showlegend: bool):
    common = {
        "mode": "markers",
        "name": name,
        "customdata": rows,
        "text": text[rows],
        "hovertemplate": "%{text}<extra></extra>",
        "showlegend": showlegend,
        "marker": marker,
    }
    if coords.shape[1] == 3:
        return go.Scatter3d(x=coords[rows, 0], y=coords[rows, 1], z=coords[rows, 2], **common)
    scatter = go.Scattergl if webgl else go.Scatter
    return scatter(x=coords[rows, 0], y=coords[rows, 1], **common)
