"""Figures for the "Which layer?" page: probe accuracy per layer (with the control task and
selectivity), and linear probe vs CNN."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

BASELINE_COLOR = "#7f7f7f"
PALETTE = qualitative.Plotly
"""One colour per strategy: its accuracy, control-task and selectivity lines share it."""


def layer_accuracy_figure(
    scores: pd.DataFrame,
    baseline: float,
    labels: Mapping[str, str] | None = None,
    title: str = "Probe accuracy by layer",
) -> go.Figure:
    """Accuracy (mean ± std over folds) against layer, one line per strategy (a pooling or a
    subword mode).

    ``scores`` has columns ``strategy``, ``layer``, ``accuracy_mean``, ``accuracy_std``
    (from :func:`explorer.probing.scores.compare_features`); ``labels`` maps strategy names
    to legend text. The majority-class ``baseline`` is a dashed grey line. With control-task
    columns (``control_mean``, ``selectivity``: ``control=True``), each strategy's control
    accuracy is a dotted line of its colour, and a lower panel draws its selectivity
    (accuracy minus control accuracy) per layer.
    """
    labels = dict(labels or {})
    control = {"control_mean", "selectivity"} <= set(scores.columns)
    if control:
        figure = make_subplots(
            rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32], vertical_spacing=0.12
        )
        # the top panel keeps its layer numbers: the gap leaves them room above the lower
        # panel's top tick (0.06 of plotly's 450 px put them on it)
        figure.update_layout(height=520)
    else:
        figure = go.Figure()
    where = {"row": 1, "col": 1} if control else {}
    layers = sorted(scores["layer"].unique())
    groups = list(scores.groupby("features", sort=False))
    colours = {name: PALETTE[i % len(PALETTE)] for i, (name, _) in enumerate(groups)}
    for name, frame in groups:
        frame = frame.sort_values("layer")
        label = labels.get(str(name), str(name))
        accuracy = f"{label}</b><br>layer %{{x}}<br>accuracy %{{y:.3f}} ± %{{customdata:.3f}}"
        figure.add_trace(
            _layer_line(
                frame,
                "accuracy_mean",
                name,
                label,
                accuracy,
                error_y={"type": "data", "array": frame["accuracy_std"], "thickness": 1},
                customdata=frame["accuracy_std"],
                mode="lines+markers",
                line={"color": colours[name]},
            ),
            **where,
        )
    figure.add_trace(
        _baseline(
            baseline,
            x=[layers[0], layers[-1]],
            hovertemplate="majority-class baseline %{y:.3f}<extra></extra>",
        ),
        **where,
    )
    if control:
        _control_traces(figure, groups, labels, colours)
    figure.update_layout(
        title=title,
        legend={"title": "Strategy", "orientation": "h", "yanchor": "top", "y": -0.12},
        hovermode="closest",
        margin={"t": 60, "b": 10},
    )
    axis = {"title": "Layer (0 = embedding output)", "tickmode": "array", "tickvals": layers}
    if not control:
        figure.update_layout(
            xaxis=axis,
            yaxis={"title": "Accuracy (mean ± std over folds)", "range": [0, 1.03]},
            legend={"yanchor": "bottom", "y": -0.35},
        )
        return figure
    lowest = min(0.0, float(scores["selectivity"].min()))
    figure.update_xaxes(tickmode="array", tickvals=layers, showticklabels=True, row=1, col=1)
    figure.update_xaxes(**axis, row=2, col=1)
    figure.update_yaxes(title="Accuracy", range=[0, 1.03], row=1, col=1)
    figure.update_yaxes(
        title="Selectivity", range=[lowest - 0.05, 1.03], zeroline=True, row=2, col=1
    )
    return figure


def _control_traces(figure: go.Figure, groups: list, labels: Mapping[str, str], colours) -> None:
    """Each strategy's control-task accuracy (dotted, top panel; one legend entry for all)
    and selectivity (bottom)."""
    figure.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="lines",
            name="Control task (dotted, each strategy's colour)",
            line={"color": BASELINE_COLOR, "dash": "dot"},
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    for name, frame in groups:
        frame = frame.sort_values("layer")
        label = labels.get(str(name), str(name))
        control = (
            f"{label}, control task</b><br>layer %{{x}}<br>accuracy on random labels %{{y:.3f}}"
        )
        figure.add_trace(
            _layer_line(
                frame,
                "control_mean",
                name,
                f"{label}: control task",
                control,
                showlegend=False,
                mode="lines",
                line={"color": colours[name], "dash": "dot"},
            ),
            row=1,
            col=1,
        )
        selectivity = (
            f"{label}</b><br>layer %{{x}}<br>selectivity %{{y:+.3f}} (accuracy minus control)"
        )
        figure.add_trace(
            _layer_line(
                frame,
                "selectivity",
                name,
                f"{label}: selectivity",
                selectivity,
                showlegend=False,
                mode="lines+markers",
                line={"color": colours[name]},
            ),
            row=2,
            col=1,
        )


def _layer_line(
    frame: pd.DataFrame,
    column: str,
    group,
    name: str,
    hover: str,
    showlegend: bool | None = None,
    **style,
) -> go.Scatter:
    """A strategy's ``column`` over the layers in its legend ``group`` (the control and
    selectivity lines hide their entries: the accuracy line's stands for them); ``hover`` is
    the bold head, then the lines after it. ``style``: the trace's mode, line and the rest."""
    return go.Scatter(
        x=frame["layer"],
        y=frame[column],
        name=name,
        legendgroup=str(group),
        showlegend=showlegend,
        hovertemplate=f"<b>{hover}<extra></extra>",
        **style,
    )


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


def head_notice(heads: pd.DataFrame, layer: int) -> str:
    """What to notice in :func:`head_comparison_figure`'s two rows (the linear probe first,
    then the CNN; ``accuracy_mean``, ``accuracy_std``) at ``layer``: which scores higher, or
    that the two are within one standard deviation (the larger of the two) of each other."""
    (linear, linear_std), (cnn, cnn_std) = heads[["accuracy_mean", "accuracy_std"]].to_numpy()
    said = (
        f"At layer {layer} the 1-D CNN scores {cnn:.3f} ± {cnn_std:.3f} and the linear probe "
        f"{linear:.3f} ± {linear_std:.3f}: "
    )
    if abs(cnn - linear) <= max(cnn_std, linear_std) + 5e-4:  # as the numbers are written
        return said + (
            "within one standard deviation of each other, so the pooled vector already holds "
            "what the CNN finds in the tokens."
        )
    if cnn > linear:
        return said + "the tokens hold more about the label than the pooled vector shows."
    return said + (
        "the pooled vector is read better; the CNN has many more weights to learn from the "
        "same few texts."
    )
