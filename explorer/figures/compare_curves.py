"""Two models' measures over relative depth: one subplot per measure, model A solid and model B
dashed, on a shared 0-to-1 axis of depth (layer / number of layers)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

COLOURS = {"A": "#1f77b4", "B": "#d62728"}
DASHES = {"A": "solid", "B": "dash"}


LEGEND_GAP = 40
"""Pixels between the top of the plots and the legend's bottom: room for a subplot title."""


CHANCE_NAME = "always the most common topic"
"""Legend name of the probe's chance line."""


def depth_curves_figure(
    curves: pd.DataFrame,
    titles: Mapping[str, str],
    label_a: str,
    label_b: str,
    chance: float | None = None,
) -> go.Figure:
    """``curves`` (:func:`explorer.compare.depth_curves`: ``model``, ``layer``, ``depth``,
    ``measure``, ``value``) as one subplot per measure of ``titles`` (key → title, in order),
    a line per model: A (``label_a``) solid, B dashed; with ``chance`` (the share of the most
    common topic), a dotted grey line at that accuracy in the ``probe`` subplot, so a probe
    at or below it reads as one that found nothing. ``ValueError`` on missing columns."""
    missing = {"model", "layer", "depth", "measure", "value"} - set(curves.columns)
    if missing:
        raise ValueError(f"The curves lack the columns {', '.join(sorted(missing))}.")
    keys = [key for key in titles if (curves["measure"] == key).any()]
    columns = 2 if len(keys) > 1 else 1
    rows = max(1, -(-len(keys) // columns))
    figure = make_subplots(
        rows=rows, cols=columns, subplot_titles=[titles[k] for k in keys], vertical_spacing=0.16
    )
    labels = {"A": f"A: {label_a}", "B": f"B: {label_b}"}
    for index, key in enumerate(keys):
        row, col = index // columns + 1, index % columns + 1
        for name in ("A", "B"):
            rows_of = curves[(curves["measure"] == key) & (curves["model"] == name)]
            figure.add_trace(
                go.Scatter(
                    x=rows_of["depth"],
                    y=rows_of["value"],
                    customdata=rows_of["layer"],
                    mode="lines+markers",
                    name=labels[name],
                    legendgroup=name,
                    showlegend=index == 0,
                    line={"color": COLOURS[name], "dash": DASHES[name]},
                    hovertemplate=f"{labels[name]}<br>layer %{{customdata}} "
                    "(depth %{x:.0%})<br>%{y:.3f}<extra></extra>",
                ),
                row=row,
                col=col,
            )
        if key == "probe" and chance is not None:
            figure.add_trace(
                go.Scatter(
                    x=[0.0, 1.0],
                    y=[chance, chance],
                    mode="lines",
                    name=f"{CHANCE_NAME} ({chance:.2f})",
                    line={"color": "#888888", "dash": "dot"},
                    hovertemplate=f"{CHANCE_NAME}: %{{y:.2f}}<extra></extra>",
                ),
                row=row,
                col=col,
            )
        figure.update_xaxes(range=[-0.03, 1.03], tickformat=".0%", row=row, col=col)
    figure.update_xaxes(title_text="relative depth (layer / layers)", row=rows)
    # the legend sits LEGEND_GAP pixels above the plots, clear of the top subplot titles
    height, top, bottom = 300 * rows + 90, 90, 40
    figure.update_layout(
        height=height,
        margin={"t": top, "b": bottom, "l": 40, "r": 20},
        legend={
            "orientation": "h",
            "yanchor": "bottom",
            "y": 1 + LEGEND_GAP / (height - top - bottom),
            "x": 0,
        },
    )
    return figure
