"""The same texts mapped under two models, side by side, each text coloured by how many of its
nearest neighbours the two models share; the texts they disagree about most; search results of
both models side by side; and the sentences that say what to notice in them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.figures.projections import hover_text

SHOWN_NEIGHBOURS = 3
"""Neighbours listed per model for each text of the disagreement table."""


def paired_maps_figure(
    map_a: np.ndarray,
    map_b: np.ndarray,
    agreement: np.ndarray,
    texts: Sequence[str],
    label_a: str,
    label_b: str,
    k: int,
    followed: int | None = None,
    near: tuple[Sequence[int], Sequence[int]] | None = None,
) -> go.Figure:
    """Two scatter plots, A's map (``(n, 2)``) left and B's (turned onto A's) right, each
    point coloured by ``agreement`` (0 to 1, :func:`explorer.compare.neighbour_agreement`),
    its text on hover (escaped); every point's ``customdata`` starts with its row. The
    ``followed`` text is starred in both maps and, with ``near`` (its neighbours under A and
    under B), those are ringed in their model's map."""
    map_a, map_b, agreement = np.asarray(map_a), np.asarray(map_b), np.asarray(agreement)
    if not (len(map_a) == len(map_b) == len(agreement) == len(texts)):
        raise ValueError("Both maps, the agreement and the texts need one entry per text.")
    figure = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(f"A: {label_a}", f"B: {label_b} (turned onto A)"),
        horizontal_spacing=0.06,
    )
    hovers = [hover_text(t) for t in texts]
    for col, points in ((1, map_a), (2, map_b)):
        figure.add_trace(
            go.Scatter(
                x=points[:, 0],
                y=points[:, 1],
                mode="markers",
                marker={
                    "color": agreement,
                    "cmin": 0,
                    "cmax": 1,
                    "colorscale": "RdYlBu",
                    "size": 8,
                    "showscale": col == 2,
                    "colorbar": {"title": f"shared of<br>{k} neighbours", "tickformat": ".0%"},
                    "line": {"width": 0.5, "color": "white"},
                },
                customdata=np.stack([np.arange(len(texts)), agreement], axis=1),
                text=hovers,
                hovertemplate="%{text}<br>neighbours shared: %{customdata[1]:.0%}<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=col,
        )
    if followed is not None:
        near_a, near_b = near if near is not None else ((), ())
        for col, points, ringed in ((1, map_a, near_a), (2, map_b, near_b)):
            for rows, symbol, size, name in (
                ([int(i) for i in ringed], "circle-open", 14, "its neighbours"),
                ([followed], "star", 18, "the text followed"),
            ):
                figure.add_trace(
                    go.Scatter(
                        x=points[rows, 0],
                        y=points[rows, 1],
                        mode="markers",
                        marker={
                            "symbol": symbol,
                            "size": size,
                            "color": "black",
                            "line": {"width": 2, "color": "black"},
                        },
                        name=name,
                        hoverinfo="skip",
                        showlegend=col == 1,
                    ),
                    row=1,
                    col=col,
                )
    figure.update_xaxes(showticklabels=False, title_text="first component")
    figure.update_yaxes(showticklabels=False, title_text="second component")
    figure.update_layout(
        height=520,
        # room above the subplot titles for plotly's toolbar, which covered B's on hover
        margin={"l": 10, "r": 10, "t": 64, "b": 10},
        legend={"orientation": "h", "yanchor": "top", "y": -0.14, "x": 0},
    )
    return figure


def followed_text(selection: dict | None, agreement: np.ndarray) -> tuple[int, bool]:
    """The text the maps follow: ``(row, clicked)``, the first point of a click on either
    map (``selection``: the chart's ``event.selection``; the maps are its traces 0 and 1,
    whose points are the rows in order), else the text with the lowest agreement (the
    earliest on ties)."""
    n = len(agreement)
    for point in (selection or {}).get("points") or []:
        row = point.get("point_index")
        if point.get("curve_number") in (0, 1) and isinstance(row, int) and 0 <= row < n:
            return row, True
    return int(np.argmin(np.asarray(agreement))), False


def agreement_notice(agreement: np.ndarray, k: int) -> str:
    """What to notice in the per-text agreement: the mean share, the lowest, how many texts
    share all or none of their ``k`` neighbours."""
    agreement = np.asarray(agreement)
    none, every = int(np.sum(agreement == 0)), int(np.sum(agreement == 1))
    return (
        f"On average the two models agree on {agreement.mean():.0%} of a text's {k} nearest "
        f"neighbours ({agreement.mean() * k:.1f} of {k}), on {agreement.min():.0%} for the text "
        f"they disagree about most; {every:,} of {len(agreement):,} texts have the same {k} "
        f"under both and {none:,} have none in common."
    )


def disagreement_table(
    texts: Sequence[str],
    agreement: np.ndarray,
    near_a: np.ndarray,
    near_b: np.ndarray,
    rows: int = 5,
) -> pd.DataFrame:
    """The ``rows`` texts with the lowest agreement (ties: the earlier text first), with the
    nearest :data:`SHOWN_NEIGHBOURS` texts under each model (``near_a``/``near_b``: ``(n, k)``
    indices, best first, :func:`explorer.compare.nearest_sets`)."""
    order = np.argsort(np.asarray(agreement), kind="stable")[:rows]

    def listed(near: np.ndarray, i: int) -> str:
        return "\n".join(texts[j] for j in near[i][:SHOWN_NEIGHBOURS])

    return pd.DataFrame(
        {
            "text": [texts[i] for i in order],
            "shared": [f"{agreement[i]:.0%}" for i in order],
            "nearest under A": [listed(near_a, i) for i in order],
            "nearest under B": [listed(near_b, i) for i in order],
        }
    )


def search_table(texts: Sequence[str], top_a: Sequence[int], top_b: Sequence[int]) -> pd.DataFrame:
    """Both models' results for one query, rank by rank, each marked when the other model
    found it too."""
    found_a, found_b = set(top_a), set(top_b)
    return pd.DataFrame(
        {
            "rank": range(1, len(top_a) + 1),
            "model A": [texts[i] + (" ✓" if i in found_b else "") for i in top_a],
            "model B": [texts[i] + (" ✓" if i in found_a else "") for i in top_b],
        }
    )


def search_notice(top_a: Sequence[int], top_b: Sequence[int]) -> str:
    """How many of the ``k`` results both models found (the rows :func:`search_table` marks
    with ✓, named only when there are some), and whether their first is the same."""
    k, shared = len(top_a), len(set(top_a) & set(top_b))
    first = (
        "Both put the same text first." if top_a[0] == top_b[0] else "Their first results differ."
    )
    if not shared:  # no row carries a ✓ to point at
        return f"The two models share none of their top {k} results. {first}"
    return f"The two models share {shared} of their top {k} results (marked ✓). {first}"
