"""The Layers page's position view: the absolute position table in 2-D (positions joined in
order) beside the cosine of every position with every other, and what to notice."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

MAX_CELLS = 128
"""The heatmap shows at most this many positions a side (every second of 512, ...): 512 x 512
cells would send 260,000 numbers to the browser."""

GAPS = (1, 10, 100)
"""Distances between positions the sentence quotes (those the table is long enough for)."""


def position_figure(coords: np.ndarray, cosines: np.ndarray, first: int = 0) -> go.Figure:
    """Left: ``coords`` ``(positions, 2)`` (:func:`explorer.positions.position_map`) as one
    line through the positions in order, coloured by position; right: ``cosines``
    ``(positions, positions)`` (:func:`explorer.positions.position_cosines`) as a heatmap
    (every position up to :data:`MAX_CELLS` a side, evenly spaced beyond).
    ``first``: the model's number of the first row (RoBERTa-style tables start after the
    padding index)."""
    positions = np.arange(first, first + len(coords))
    step = -(-len(cosines) // MAX_CELLS)  # every step-th position in the heatmap
    figure = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("The table in 2-D (first two principal components)", "Cosine"),
        horizontal_spacing=0.1,
    )
    figure.add_trace(
        go.Scatter(
            x=coords[:, 0],
            y=coords[:, 1],
            mode="lines+markers",
            line={"color": "#bbb", "width": 1},
            marker={"color": positions, "colorscale": "Viridis", "size": 5, "showscale": False},
            text=[f"position {p}" for p in positions],
            hovertemplate="%{text}<extra></extra>",
            name="positions in order",
        ),
        row=1,
        col=1,
    )
    figure.add_trace(
        go.Heatmap(
            z=cosines[::step, ::step],
            x=positions[::step],
            y=positions[::step],
            colorscale="RdBu",
            zmid=0,
            colorbar={"title": "cosine"},
            hovertemplate="position %{y} and %{x}: %{z:.2f}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    figure.update_xaxes(title_text="component 1", row=1, col=1)
    figure.update_yaxes(title_text="component 2", row=1, col=1)
    figure.update_xaxes(title_text="position", row=1, col=2)
    figure.update_yaxes(title_text="position", autorange="reversed", row=1, col=2)
    figure.update_layout(height=440, margin={"l": 10, "r": 10, "t": 60, "b": 10}, showlegend=False)
    return figure


UNRELATED = 0.05
"""Mean cosines below this (in size) at every quoted distance count as unrelated rows."""


def gap_cosines(cosines: np.ndarray) -> dict[int, float]:
    """Mean cosine of positions ``g`` apart, for each ``g`` of :data:`GAPS` shorter than the
    table."""
    n = len(cosines)
    return {g: float(np.diagonal(cosines, offset=g).mean()) for g in GAPS if g < n}


def position_notice(cosines: np.ndarray, first: int = 0) -> str:
    """What the cosines say: how alike positions 1, 10 and 100 apart are on average, and
    whether nearness in position means likeness (the mean cosine falls as the gap grows)."""
    gaps = gap_cosines(cosines)
    if not gaps:
        return "The table has one position: nothing to compare."
    quoted = ", ".join(
        f"{round(value, 2) + 0.0:.2f} for positions {g} apart" for g, value in gaps.items()
    )  # + 0.0: no "-0.00"
    values = list(gaps.values())
    sentence = f"The {len(cosines)} positions (from {first}) have a mean cosine of {quoted}"
    if all(abs(v) < UNRELATED for v in values):
        return sentence + (
            ": near 0 at every distance, so near positions are no more alike than far ones "
            "(an untrained table looks like this)."
        )
    if len(values) > 1 and all(a > b for a, b in zip(values, values[1:], strict=False)):
        return sentence + ": the nearer two positions, the more alike their vectors."
    if len(values) > 1:
        return sentence + ": likeness does not fall steadily with distance."
    return sentence + "."
