"""Figures for the "Which layer?" page: probe accuracy per layer, and linear probe vs CNN."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

BASELINE_COLOR = "#7f7f7f"


def layer_accuracy_figure(
    scores: pd.DataFrame,
    baseline: float,
    labels: Mapping[str, str] | None = None,
    title: str = "Probe accuracy by layer",
) -> go.Figure:
    """Accuracy (mean ± std over folds) against layer, one line per strategy (a pooling or a
    subword mode).

    ``scores`` has columns ``strategy``, ``layer``, ``accuracy_mean``, ``accuracy_std``
    (from :func:`explorer.probing.scores.compare_strategies`); ``labels`` maps strategy names
    to legend text. The majority-class ``baseline`` is a dashed grey line.
    """
    labels = dict(labels or {})
    figure = go.Figure()
    layers = sorted(scores["layer"].unique())
    for name, frame in scores.groupby("strategy", sort=False):
        frame = frame.sort_values("layer")
        label = labels.get(str(name), str(name))
        figure.add_trace(
            go.Scatter(
                x=frame["layer"],
                y=frame["accuracy_mean"],
                error_y={"type": "data", "array": frame["accuracy_std"], "thickness": 1},
                customdata=frame["accuracy_std"],
                mode="lines+markers",
                name=label,
                hovertemplate=(
                    f"<b>{label}</b><br>layer %{{x}}<br>accuracy %{{y:.3f}} ± "
                    "%{customdata:.3f}<extra></extra>"
                ),
            )
        )
    figure.add_trace(
        _baseline(
            baseline,
            x=[layers[0], layers[-1]],
            hovertemplate="majority-class baseline %{y:.3f}<extra></extra>",
        )
    )
    figure.update_layout(
        title=title,
        xaxis={"title": "Layer (0 = embedding output)", "tickmode": "array", "tickvals": layers},
        yaxis={"title": "Accuracy (mean ± std over folds)", "range": [0, 1.03]},
        legend={"title": "Strategy", "orientation": "h", "yanchor": "bottom", "y": -0.35},
        hovermode="closest",
        margin={"t": 60, "b": 10},
    )
    return figure


def _baseline(baseline: float, x: list, **hover) -> go.Scatter:
    """The dashed majority-baseline line over ``x`` (its legend entry with ``x=[None]``)."""
    return go.Scatter(
        x=x,
        y=[baseline if v is not None else None for v in x],
        mode="lines",
        name=f"Majority baseline ({baseline:.2f})",
        line={"dash": "dash", "color": BASELINE_COLOR},
        **hover,
    )


def head_comparison_figure(
    rows: pd.DataFrame,
    baseline: float,
    title: str = "Linear probe vs CNN head",
) -> go.Figure:
    """Bars of accuracy (mean ± std) per head; ``rows`` has columns ``head``,
    ``accuracy_mean``, ``accuracy_std``. The majority ``baseline`` is a dashed line."""
    figure = go.Figure(
        go.Bar(
            x=rows["head"],
            y=rows["accuracy_mean"],
            error_y={"type": "data", "array": rows["accuracy_std"]},
            customdata=rows["accuracy_std"],
            text=[f"{v:.3f}" for v in rows["accuracy_mean"]],
            textposition="inside",
            insidetextanchor="start",
            name="Accuracy (mean ± std)",
            hovertemplate="<b>%{x}</b><br>accuracy %{y:.3f} ± %{customdata:.3f}<extra></extra>",
        )
    )
    figure.add_hline(y=baseline, line={"dash": "dash", "color": BASELINE_COLOR})
    # the line above spans the whole plot; this legend entry names it
    figure.add_trace(_baseline(baseline, x=[None], hoverinfo="skip"))
    figure.update_layout(
        title=title,
        xaxis={"title": "Head on frozen features"},
        yaxis={"title": "Accuracy (mean ± std over folds)", "range": [0, 1.05]},
        bargap=0.5,
        legend={"orientation": "h", "yanchor": "bottom", "y": -0.35},
        margin={"t": 60, "b": 10},
    )
    return figure
