"""The main map of the Projections page: the figure, its clickable chart, the neighbour panel
beside it, the quality scores under it and the selection list.

The page decides what to draw (points, labels, colours); this module draws it the one way
the page shows a fitted map, so the page stays a list of choices.

A click on the map reruns only the map and its panel (an ``st.fragment``), and the figure of
the points is built once per session and map (:func:`map_figure`). Up to
:data:`RINGS_UP_TO` points the inspected point and its neighbours are marked on the map
itself; above, the map's figure stays exactly as it was, so the browser neither receives nor
redraws it again (a click on 20,000 points used to resend 2 MB and redraw every point), and
the marks go on a small close-up beside it while plotly's own selection styling shows the
clicked point on the map."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from explorer.figures.density import add_contours, add_density
from explorer.figures.frozen import FrozenFigure
from explorer.figures.highlights import neighbour_traces, neighbourhood_figure, rows_trace
from explorer.figures.projections import (
    WEBGL_ABOVE,
    axis_titles,
    draws_with_webgl,
    projection_figure,
    selected_rows,
)
from explorer.maps import DEFAULT_K, ProjectionParams, Projector
from explorer.ui import presentation
from explorer.ui.projection_maps._panels import inspector, scores, selected
from explorer.ui.projection_maps._saved import saved_density
from explorer.ui.projection_maps._why import explain_pair, pick

CHART_KEY = "projections.chart"
COMPARE_KEY = "projections.compare_map"
LAST_CLICKED_KEY = "projections._last_clicked"
"""Which map of a comparison had its selection changed last: ``"main"`` or ``"compare"``."""
FIGURE_KEY = "projections._map_figures"
"""Session state holding the last maps' figures, by what each was built from."""
FIGURES_KEPT = 2
"""Figures a session keeps: the map under two colourings (labels, neighbours kept) without
building either again."""

RINGS_UP_TO = WEBGL_ABOVE
"""Maps of at most this many points get the rings on the map itself (the figure is small
enough to send again on a click); larger ones get a close-up."""


GL_CONFIG = {"plotGlPixelRatio": 1}
"""plotly's configuration of a WebGL map: its canvases at the screen's CSS pixels (plotly's
default, 2, draws four times the pixels). A click restyles and redraws every point of the
map, which a browser without a GPU does in software: measured in ``bench.bigmap``."""
CLOSEUP_CONFIG = {"displayModeBar": False}
"""The close-up is drawn anew on every click: without plotly's tool bar (zoom and export are
the big map's job)."""


@dataclass(frozen=True)
class MapPoints:
    """What each point of the map stands for: its text, label (``None``: one colour), the
    marked word's character span in its text (word occurrences), the legend's title and the
    figure's title; with ``values`` ``(n,)``, the number that colours it (a numeric column
    named ``values_title``: NaN for none). ``whole_labels``: the labels before they were cut
    for the map (:func:`explorer.data.columns.cut_labels`), when any was."""

    texts: Sequence[str]
    labels: Sequence[str] | None
    spans: Sequence[tuple[int, int]] | None
    legend_title: str
    title: str
    values: np.ndarray | None = field(default=None, compare=False)
    values_title: str = ""
    whole_labels: Sequence[str] | None = field(default=None, compare=False)

    @property
    def panel_labels(self) -> Sequence[str] | None:
        """The labels the panels show: whole."""
        return self.labels if self.whole_labels is None else self.whole_labels


def digest(array: np.ndarray | None) -> str | None:
    """A short key of ``array`` (its type, shape and a hash of its bytes), None for None."""
    if array is None:
        return None
    array = np.ascontiguousarray(array)
    return f"{array.dtype}{array.shape}" + hashlib.blake2b(array, digest_size=16).hexdigest()


def map_figure(
    projector: Projector,
    params: ProjectionParams,
    shown: MapPoints,
    kept_share: np.ndarray | None = None,
    density: np.ndarray | None = None,
    contours: bool = False,
) -> FrozenFigure:
    """The map's figure (:func:`explorer.figures.projections.projection_figure`), frozen, built
    once while the coordinates, texts, labels, spans, titles and colour values stay the same:
    the session keeps the last :data:`FIGURES_KEPT` (a rerun of a 20,000-point map rebuilt it
    in 0.3 s and copied it in 0.1 s). ``density`` ``(n, 2)``: more points of the same map,
    drawn as a grey density layer under the points (:mod:`explorer.figures.density`);
    ``contours``: the drawn points' density as contours under them (2-D maps). The points
    are coloured by ``kept_share`` when given, else by ``shown.values`` when given."""
    axes = axis_titles(params.method, params.n_components, projector.explained_variance_ratio_)
    key = (
        digest(projector.embedding_),
        tuple(shown.texts),
        None if shown.labels is None else tuple(shown.labels),
        None if shown.spans is None else tuple(map(tuple, shown.spans)),
        shown.title,
        tuple(axes),
        shown.legend_title,
        digest(kept_share),
        digest(shown.values),
        shown.values_title,
        contours,
        None
        if density is None
        else (density.shape, digest(density[:: max(1, len(density) // 4096)])),
    )
    kept: dict = st.session_state.setdefault(FIGURE_KEY, {})
    if key in kept:
        kept[key] = kept.pop(key)  # the most recently used last
        return kept[key]
    built = projection_figure(
        projector.embedding_,
        shown.texts,
        shown.labels,
        spans=shown.spans,
        title=shown.title,
        axes=axes,
        legend_title=shown.legend_title,
        values=kept_share if kept_share is not None else shown.values,
        values_title="Neighbours kept" if kept_share is not None else shown.values_title,
        share=kept_share is not None,
    )
    if contours and params.n_components == 2:
        built = add_contours(built, projector.embedding_)
    if density is not None:
        built = add_density(built, density)
    figure = FrozenFigure.of(built)
    kept[key] = figure
    while len(kept) > FIGURES_KEPT:
        del kept[next(iter(kept))]
    return figure


def draw(
    points,
    params: ProjectionParams,
    projector: Projector,
    shown: MapPoints,
    *,
    compare: str = "none",
    kept_share: np.ndarray | None = None,
    contours: bool = False,
) -> list[int]:
    """Draw the fitted map with its panel; return the rows selected on it (click, box or
    lasso; empty in 3-D, where selection is off). Rows of a saved map get the rest of that
    map's rows as a density layer under them (:func:`saved_density`); ``contours`` draws the
    points' density as contours under them.

    Without a comparison the map and its panel are a fragment: a selection reruns them alone.
    With one, a selection reruns the page, so the second map rings the same points."""
    density = saved_density(points, params)
    figure = map_figure(projector, params, shown, kept_share, density, contours)
    body = _map_and_panel if compare != "none" else _map_fragment
    return body(points, params, projector, shown, figure, compare, kept_share)


def _map_and_panel(
    points,
    params: ProjectionParams,
    projector: Projector,
    shown: MapPoints,
    figure: FrozenFigure,
    compare: str,
    kept_share: np.ndarray | None,
) -> list[int]:
    two_d = params.n_components == 2
    coords = projector.embedding_
    chart, panel = _places(two_d)
    if presentation.is_on():  # the full width: as tall, in proportion, as beside its panel
        figure = figure.with_layout(height=PRESENTED_HEIGHT)
    rows: list[int] = []
    linked: list[int] = []
    if compare != "none" and two_d:
        linked = st.session_state.get(COMPARE_KEY) or {}
        linked = selected_rows(linked.get("selection"), len(shown.texts))
        if linked:
            figure = figure.with_traces([rows_trace(coords, linked, "Selected on the other map")])
    closeup = other = None
    if panel is not None:
        state = st.session_state.get(CHART_KEY) or {}
        rows = selected_rows(state.get("selection"), len(shown.texts))
        second = inspects_second(rows, linked, st.session_state.get(LAST_CLICKED_KEY))
        inspected = linked if second else rows
        with panel:
            if second:
                st.caption(
                    "Selected on the second map: its nearest texts in this map's full space."
                )
            if inspected:
                found = inspector(
                    points,
                    params,
                    inspected,
                    shown.texts,
                    shown.panel_labels,
                    shown.spans,
                    DEFAULT_K,
                )
                other = pick(points, found, shown.texts)
                if len(coords) <= RINGS_UP_TO:
                    figure = figure.with_traces(neighbour_traces(coords, found.row, found.indices))
                else:
                    closeup = neighbourhood_figure(
                        coords,
                        found.row,
                        found.indices,
                        axes=axis_titles(params.method, 2, projector.explained_variance_ratio_),
                    )
            else:
                st.info(
                    "Click a point (or draw a box or lasso) to list its nearest texts in the "
                    "full vector space."
                )
    chart.plotly_chart(
        figure,
        key=CHART_KEY if two_d else "projections.chart3d",
        on_select=("rerun" if compare == "none" else clicked_main) if two_d else "ignore",
        selection_mode=("points", "box", "lasso"),
        width="stretch",
        config=GL_CONFIG if draws_with_webgl(len(coords)) else None,
    )
    if closeup is not None:
        with panel:
            st.caption(
                f"The map of {len(coords):,} points stays as it is (redrawing it on every click "
                "takes seconds); on this close-up of it the star is the inspected point and the "
                "rings are its nearest texts in the full space."
            )
            st.plotly_chart(
                closeup, key="projections.closeup", width="stretch", config=CLOSEUP_CONFIG
            )
    scores(projector, len(shown.texts), params.method, params.n_components)
    if other is not None:
        explain_pair(points, found.row, other, shown.texts)
    if not two_d:
        st.caption("Clicking points and the neighbour panel work in 2-D only: switch to 2-D.")
    if len(rows) > 1:
        selected(rows, shown.texts, shown.panel_labels, shown.legend_title)
    if kept_share is not None:
        st.caption(
            f"On average the map keeps {kept_share.mean():.0%} of each point's {DEFAULT_K} "
            f"nearest texts near it; {int((kept_share < 0.3).sum()):,} point(s) keep fewer "
            "than 30 %."
        )
    return rows


def clicked_main() -> None:
    """``on_select`` of the main map beside a second one: its selection is the latest."""
    st.session_state[LAST_CLICKED_KEY] = "main"


def clicked_compare() -> None:
    """``on_select`` of the second map: its selection is the latest, the panel shows it."""
    st.session_state[LAST_CLICKED_KEY] = "compare"


def inspects_second(own: list[int], other: list[int], last: str | None) -> bool:
    """Whether the neighbour panel inspects the rows selected on the second map (``other``)
    rather than on the main map (``own``): those selected last (``last``, ``"main"`` or
    ``"compare"``), or the only ones."""
    return bool(other) and (last == "compare" or not own)


PRESENTED_HEIGHT = 860
"""The map's height in pixels in presentation mode, where it takes the page's full width
(about 1,300 px at a 1,400 px window): beside its panel it is 620 px tall and about 780 wide."""


def _places(two_d: bool) -> tuple:
    """Where the map and its panel go: side by side, or (presentation mode, where the map
    takes the full width) the panel under the map; no panel in 3-D."""
    if not two_d:
        return st.container(), None
    if presentation.is_on():
        return st.container(), st.container()
    return tuple(st.columns([3, 2]))


_map_fragment = st.fragment(_map_and_panel)
