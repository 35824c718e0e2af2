"""Histograms of vector values: one token at one layer, all tokens of a layer (combined or
one curve per token), and one token at every layer as small multiples.

Histograms are binned here with NumPy and drawn as bars, so a figure carries counts, not the
hundreds of thousands of raw values of a long input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.figures.layers.style import BASE, HIGHLIGHT, MUTED, layer_name
from explorer.layerstats import histogram, shared_range

HISTOGRAM_MODES = ("combined", "overlay")
HistogramMode = Literal["combined", "overlay"]
BIN_HOVER = "value %{customdata[0]:.3f} to %{customdata[1]:.3f}<br>%{y} %{meta}<extra></extra>"


def _count_axis(title: str, highest: float, log_counts: bool) -> dict:
    """A y axis for counts up to ``highest``: linear from 0, or log with a tick per decade.

    On the log axis a count of 1 still shows as a bar (the axis starts below 1).
    """
    if log_counts:
        top = math.log10(max(highest, 1) * 1.6)
        return {"title": {"text": title}, "type": "log", "range": [-0.2, top], "dtick": 1}
    return {"title": {"text": title}, "type": "linear", "range": [0, max(highest, 1) * 1.05]}


def _highest(fig: go.Figure) -> float:
    return max((max(trace.y) for trace in fig.data if len(trace.y)), default=1)


def _bars(counts: np.ndarray, edges: np.ndarray, name: str, colour: str, what: str) -> go.Bar:
    """Histogram bars from NumPy counts and edges; hover shows the bin and its count."""
    return go.Bar(
        x=(edges[:-1] + edges[1:]) / 2,
        y=counts,
        width=np.diff(edges),
        name=name,
        marker={"color": colour, "line": {"width": 0}},
        customdata=np.stack([edges[:-1], edges[1:]], axis=1),
        meta=what,
        hovertemplate=BIN_HOVER,
    )


def token_histogram(
    vector: np.ndarray, token: str, layer: int, bins: int = 50, log_counts: bool = False
) -> go.Figure:
    """Histogram of the ``H`` values of one token's vector at one layer.

    ``vector`` is ``(H,)``; ``token`` its label (``"5: bank"``); ``layer`` 0..L.
    ``log_counts`` draws the count axis on a log scale, which shows the rare large values.
    """
    vector = np.asarray(vector).ravel()
    counts, edges = histogram(vector, bins)
    fig = go.Figure(_bars(counts, edges, token, BASE, "dimensions"))
    fig.update_layout(
        title=f"{layer_name(layer).capitalize()}, token “{token}” — its {vector.size} values",
        xaxis_title="value",
        yaxis=_count_axis("count (dimensions)", _highest(fig), log_counts),
        bargap=0,
        showlegend=False,
    )
    return fig


def layer_histogram(
    values: np.ndarray,
    labels: Sequence[str],
    layer: int,
    chosen: int | None = None,
    mode: HistogramMode = "combined",
    bins: int = 50,
    keep: Sequence[bool] | None = None,
    log_counts: bool = False,
) -> go.Figure:
    """Values of all tokens of one layer: one combined histogram, or one curve per token.

    ``values`` is ``(T, H)`` (``hidden[layer]``), ``labels`` the ``T`` token labels and
    ``keep`` an optional ``(T,)`` mask of the tokens to draw (e.g. no special tokens).
    ``mode`` is ``"combined"`` (bars of all kept values) or ``"overlay"`` (a step line per
    kept token, same bins, with token ``chosen`` highlighted if it is kept).
    ``log_counts`` draws the count axis on a log scale.
    """
    if mode not in HISTOGRAM_MODES:
        raise ValueError(f"Unknown histogram mode {mode!r}; choose one of {HISTOGRAM_MODES}")
    values = np.asarray(values)
    if values.ndim != 2 or len(labels) != values.shape[0]:
        raise ValueError(
            "Expected (tokens, hidden) values and one label per token; got "
            f"{values.shape} and {len(labels)} labels."
        )
    keep = np.ones(len(labels), dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    if keep.shape != (len(labels),) or not keep.any():
        raise ValueError("keep must flag at least one of the tokens, one flag per token.")
    if chosen is not None and not 0 <= chosen < values.shape[0]:
        raise ValueError(f"chosen must be a token position (0 to {values.shape[0] - 1}).")
    if chosen is not None and not keep[chosen]:
        chosen = None
    rows = np.flatnonzero(keep)
    shown = values[rows]
    value_range = shared_range(shown)
    fig = go.Figure()
    if mode == "combined":
        counts, edges = histogram(shown, bins, value_range)
        fig.add_trace(_bars(counts, edges, "all tokens", BASE, "values"))
    else:
        others = [int(row) for row in rows if row != chosen]
        for row in others:
            counts, edges = histogram(values[row], bins, value_range)
            fig.add_trace(
                _steps(counts, edges, labels[row], MUTED, 1.2, "other tokens", row == others[0])
            )
        if chosen is not None:
            counts, edges = histogram(values[chosen], bins, value_range)
            fig.add_trace(_steps(counts, edges, labels[chosen], HIGHLIGHT, 2.5, None, True))
    fig.update_layout(
        title=f"{layer_name(layer).capitalize()}, all {shown.shape[0]} tokens — "
        f"{shown.size:,} values",
        xaxis_title="value",
        yaxis=_count_axis(
            "count" if mode == "combined" else "count (dimensions per token)",
            _highest(fig),
            log_counts,
        ),
        bargap=0,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
        showlegend=len(fig.data) > 1,
    )
    return fig


def _steps(
    counts: np.ndarray,
    edges: np.ndarray,
    label: str,
    colour: str,
    width: float,
    group: str | None,
    show_legend: bool,
) -> go.Scatter:
    """A histogram as a step line (for overlaying many tokens without hiding each other)."""
    return go.Scatter(
        x=(edges[:-1] + edges[1:]) / 2,
        y=counts,
        mode="lines",
        line={"color": colour, "width": width, "shape": "hvh"},
        name=group or f"token {label}",
        legendgroup=group or label,
        showlegend=bool(show_legend),
        customdata=np.stack([edges[:-1], edges[1:]], axis=1),
        hovertemplate=f"token {label}<br>" + BIN_HOVER.replace("%{meta}", "dimensions"),
    )


def layer_grid(
    stack: np.ndarray,
    token: str,
    chosen_layer: int | None = None,
    bins: int = 40,
    columns: int = 4,
    log_counts: bool = False,
) -> go.Figure:
    """Small multiples: a histogram of one token's vector at every layer 0..L.

    ``stack`` is ``(L + 1, H)`` (``hidden[:, token]``). All panels share the value axis and
    the bins (and the count axis), so shapes compare directly; ``chosen_layer`` is drawn in
    the highlight colour. Exactly ``L + 1`` subplots (unused grid cells have no axes).
    ``log_counts`` draws the count axes on a log scale.
    """
    stack = np.asarray(stack)
    if stack.ndim != 2:
        raise ValueError(f"Expected (layers + 1, hidden) values; got shape {stack.shape}.")
    count = stack.shape[0]
    columns = max(1, min(columns, count))
    rows = math.ceil(count / columns)
    specs = [[{} if r * columns + c < count else None for c in range(columns)] for r in range(rows)]
    fig = make_subplots(
        rows=rows,
        cols=columns,
        specs=specs,
        subplot_titles=[layer_name(i) for i in range(count)],
        horizontal_spacing=0.04,
        vertical_spacing=min(0.3, 0.5 / rows) if rows > 1 else 0.0,
    )
    value_range = shared_range(stack)
    highest = 1
    for layer in range(count):
        counts, edges = histogram(stack[layer], bins, value_range)
        highest = max(highest, int(counts.max()))
        colour = HIGHLIGHT if layer == chosen_layer else BASE
        trace = _bars(
            counts, edges, layer_name(layer), colour, f"dimensions at {layer_name(layer)}"
        )
        fig.add_trace(trace, row=layer // columns + 1, col=layer % columns + 1)
    # Fixed ranges rather than autorange + matches: plotly's autorange of linked axes with
    # explicit bar widths can clip the bars.
    fig.update_xaxes(range=list(value_range))
    fig.update_yaxes(**_count_axis("", highest, log_counts))
    for column in range(columns):
        bottom = (count - 1 - column) // columns
        fig.update_xaxes(title_text="value", row=bottom + 1, col=column + 1)
    for row in range(rows):
        fig.update_yaxes(title_text="count", row=row + 1, col=1)
    fig.update_layout(
        title=f"The {stack.shape[1]} values of token “{token}” at every layer — same bins and "
        "axes in every panel",
        bargap=0,
        showlegend=False,
        height=140 + 220 * rows,
    )
    return fig
