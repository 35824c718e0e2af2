"""Per-layer summaries of the Layers page: statistics of every layer, the largest value of
every dimension (outlier dimensions marked) and a token x layer heatmap of vector norms.

Each draws a table or array of :mod:`explorer.layerstats`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.figures.layers.style import BASE, HIGHLIGHT, SERIES, layer_name
from explorer.layerstats import STATISTIC_LABELS, STATISTICS


def statistics_chart(tables: Mapping[str, pd.DataFrame]) -> go.Figure:
    """Per-layer statistics as small line charts, one panel per statistic.

    ``tables`` maps a series name (``"all tokens"``) to a table of
    :func:`explorer.layerstats.layer_statistics`; each becomes one line per panel.
    """
    if not tables:
        raise ValueError("No statistics to draw: pass at least one table.")
    fig = make_subplots(
        rows=1,
        cols=len(STATISTICS),
        subplot_titles=[STATISTIC_LABELS[s] for s in STATISTICS],
        horizontal_spacing=0.06,
    )
    for index, (name, table) in enumerate(tables.items()):
        colour = SERIES[index % len(SERIES)]
        for column, statistic in enumerate(STATISTICS):
            fig.add_trace(
                go.Scatter(
                    x=table["layer"],
                    y=table[statistic],
                    mode="lines+markers",
                    name=name,
                    legendgroup=name,
                    showlegend=column == 0,
                    line={"color": colour},
                    hovertemplate=f"{name}<br>layer %{{x}}<br>{STATISTIC_LABELS[statistic]} "
                    "%{y:.4f}<extra></extra>",
                ),
                row=1,
                col=column + 1,
            )
    count = len(next(iter(tables.values())))
    # Every layer labelled up to 8 layers; every 2nd, 3rd, ... beyond (narrow panels).
    fig.update_xaxes(title_text="layer", tickmode="linear", tick0=0, dtick=math.ceil(count / 8))
    fig.update_yaxes(tickformat=".3~g")
    for column, statistic in enumerate(STATISTICS):
        fig.update_yaxes(title_text=STATISTIC_LABELS[statistic], row=1, col=column + 1)
    fig.update_layout(
        title="Statistics of every layer (0 = embedding output)",
        height=380,
        showlegend=True,
        legend={"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0},
    )
    return fig


def dimension_profile(
    peaks: pd.DataFrame,
    labels: Sequence[str],
    layer: int,
    std: float,
    threshold: float,
    outliers: Sequence[int] = (),
) -> go.Figure:
    """Largest |value| of every dimension at one layer, outlier dimensions marked.

    ``peaks`` is a table of :func:`explorer.layerstats.dimension_peaks` (``dimension``,
    ``max_abs``, ``sigmas``, ``position``); ``labels`` the token labels (indexed by
    ``position``); ``std`` the std of the layer; ``outliers`` the dimensions to mark. The
    dashed line is the threshold, ``threshold * std``.
    """
    peaks = peaks.reset_index(drop=True)
    sigmas = peaks["sigmas"].to_numpy()
    is_outlier = peaks["dimension"].isin(list(outliers)).to_numpy()
    where = [labels[p] for p in peaks["position"]]
    hover = (
        "dimension %{x}<br>max |value| %{y:.3f} (%{customdata[0]:.1f} std)"
        "<br>at token %{customdata[1]}<extra></extra>"
    )
    fig = go.Figure()
    for name, keep, colour in (
        ("other dimensions", ~is_outlier, BASE),
        (f"outlier dimensions (> {threshold:g} std)", is_outlier, HIGHLIGHT),
    ):
        if not keep.any():
            continue
        fig.add_trace(
            go.Bar(
                x=peaks["dimension"][keep],
                y=peaks["max_abs"][keep],
                name=name,
                width=0.9,  # one dimension wide; plotly would widen sparse traces
                marker={"color": colour, "line": {"width": 0}},
                customdata=np.stack([sigmas[keep], np.array(where, dtype=object)[keep]], axis=1),
                hovertemplate=hover,
            )
        )
    limit = threshold * std
    fig.add_trace(
        go.Scatter(
            x=[-0.5, len(peaks) - 0.5],
            y=[limit, limit],
            mode="lines",
            name=f"threshold: {threshold:g} std = {limit:.2f}",
            line={"color": "#555", "dash": "dash", "width": 1.5},
            hovertemplate=f"threshold {threshold:g} std = {limit:.3f}<extra></extra>",
        )
    )
    for row in peaks[is_outlier].itertuples():
        fig.add_annotation(
            x=row.dimension,
            y=row.max_abs,
            text=f"dim {row.dimension}",
            showarrow=True,
            arrowhead=0,
            ax=0,
            ay=-22,
            font={"color": HIGHLIGHT, "size": 11},
        )
    fig.update_layout(
        title=f"Largest |value| of each dimension at {layer_name(layer)} (over the tokens)",
        xaxis_title="dimension",
        yaxis_title="max |value|",
        bargap=0.1,
        barmode="overlay",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
    )
    return fig


def norm_heatmap(
    norms: np.ndarray,
    labels: Sequence[str],
    chosen_token: int | None = None,
    chosen_layer: int | None = None,
) -> go.Figure:
    """Heatmap of vector norms: tokens down (in reading order), layers 0..L across.

    ``norms`` is ``(T, L + 1)`` (:func:`explorer.layerstats.token_norms`), ``labels`` the
    ``T`` ``"position: token"`` labels. The chosen cell, if given, is marked.
    """
    norms = np.asarray(norms)
    if norms.ndim != 2 or norms.shape[0] != len(labels):
        raise ValueError(
            f"Expected (tokens, layers + 1) norms and one label per token; got "
            f"{norms.shape} and {len(labels)} labels."
        )
    layers = list(range(norms.shape[1]))
    fig = go.Figure(
        go.Heatmap(
            z=norms,
            x=layers,
            y=list(labels),
            colorscale="Viridis",
            colorbar={"title": {"text": "L2 norm"}},
            name="norm",
            hovertemplate="token %{y}<br>layer %{x}<br>norm %{z:.3f}<extra></extra>",
        )
    )
    if chosen_token is not None and chosen_layer is not None:
        fig.add_trace(
            go.Scatter(
                x=[chosen_layer],
                y=[labels[chosen_token]],
                mode="markers",
                marker={
                    "symbol": "square-open",
                    "size": 18,
                    "color": HIGHLIGHT,
                    "line": {"width": 3},
                },
                name="chosen token and layer",
                hovertemplate="chosen: token %{y}, layer %{x}<extra></extra>",
            )
        )
    fig.update_layout(
        title="Vector norm of every token at every layer",
        xaxis={
            "title": {"text": "layer (0 = embeddings)"},
            "tickmode": "array",
            "tickvals": layers,
        },
        yaxis={
            "title": {"text": "token (position: token)"},
            "autorange": "reversed",
            "type": "category",
        },
        height=min(1400, 160 + 22 * len(labels)),
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
        showlegend=len(fig.data) > 1,
    )
    return fig
