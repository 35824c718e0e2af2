"""The main map of the Projections page: the figure, its clickable chart, the neighbour panel
beside it, the quality scores under it and the selection list.

The page decides what to draw (points, labels, colours); this module draws it the one way
the page shows a fitted map, so the page stays a list of choices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from explorer.figures.highlights import highlight_neighbours, highlight_rows
from explorer.figures.projections import axis_titles, projection_figure, selected_rows
from explorer.mapquality import DEFAULT_K
from explorer.projection import Projector
from explorer.ui import maps
from explorer.ui.projections import ProjectionParams

CHART_KEY = "projections.chart"
COMPARE_KEY = "projections.compare_map"


@dataclass(frozen=True)
class MapPoints:
    """What each point of the map stands for: its text, label (``None``: one colour), the
    marked word's character span in its text (word occurrences), the legend's title and the
    figure's title."""

    texts: Sequence[str]
    labels: Sequence[str] | None
    spans: Sequence[tuple[int, int]] | None
    legend_title: str
    title: str


def draw(
    points,
    params: ProjectionParams,
    projector: Projector,
    shown: MapPoints,
    *,
    compare: str = "none",
    kept_share: np.ndarray | None = None,
) -> list[int]:
    """Draw the fitted map with its panel; return the rows selected on it (click, box or
    lasso; empty in 3-D, where selection is off)."""
    figure = projection_figure(
        projector.embedding_,
        shown.texts,
        shown.labels,
        spans=shown.spans,
        title=shown.title,
        axes=axis_titles(params.method, params.n_components, projector.explained_variance_ratio_),
        legend_title=shown.legend_title,
        values=kept_share,
        values_title="Neighbours kept",
    )
    two_d = params.n_components == 2
    chart, panel = st.columns([3, 2]) if two_d else (st.container(), None)
    rows: list[int] = []
    if compare != "none" and two_d:
        linked = st.session_state.get(COMPARE_KEY) or {}
        linked = selected_rows(linked.get("selection"), len(shown.texts))
        if linked:
            highlight_rows(figure, projector.embedding_, linked, "Selected on the other map")
    if panel is not None:
        state = st.session_state.get(CHART_KEY) or {}
        rows = selected_rows(state.get("selection"), len(shown.texts))
        with panel:
            if rows:
                found = maps.inspector(
                    points, params, rows, shown.texts, shown.labels, shown.spans, DEFAULT_K
                )
                highlight_neighbours(figure, projector.embedding_, found.row, found.indices)
            else:
                st.info(
                    "Click a point (or draw a box or lasso) to list its nearest texts in the "
                    "full vector space."
                )
    chart.plotly_chart(
        figure,
        key=CHART_KEY if two_d else "projections.chart3d",
        on_select="rerun" if two_d else "ignore",
        selection_mode=("points", "box", "lasso"),
        width="stretch",
    )
    maps.scores(projector, len(shown.texts), params.method, params.n_components)
    if not two_d:
        st.caption("Clicking points and the neighbour panel work in 2-D only: switch to 2-D.")
    if len(rows) > 1:
        maps.selected(rows, shown.texts, shown.labels, shown.legend_title)
    if kept_share is not None:
        st.caption(
            f"On average the map keeps {kept_share.mean():.0%} of each point's {DEFAULT_K} "
            f"nearest texts near it; {int((kept_share < 0.3).sum()):,} point(s) keep fewer "
            "than 30 %."
        )
    return rows
