"""The Projections page's choice of view of its points: the map, layers in motion or custom
axes (uploaded vectors have the map only: they hold one layer and no model to embed axis ends
with)."""

from __future__ import annotations

import streamlit as st

from explorer.maps import ProjectionParams
from explorer.ui.projection_maps._axes import custom_axes
from explorer.ui.projection_maps._map import MapPoints
from explorer.ui.projection_maps._motion import motion
from explorer.ui.widgets import URL

VIEWS = {
    "map": "Map",
    "motion": "Layers in motion",
    "axes": "Custom axes",
}
"""What the Projections page draws of its points."""

AXIS_ENDS = {"sentences": ("sports", "food"), "words": ("money", "river")}
"""The custom axes' default ends: topics of the built-in texts, senses of "bank"."""


def other_view(
    points,
    params: ProjectionParams,
    shown: MapPoints,
    model,
    *,
    uploaded: bool,
    clusters: bool,
    where=st,
) -> bool:
    """The "View" radio (none for ``uploaded`` vectors) and, unless the map is chosen, that
    view of ``points`` drawn with ``model`` (the current one, for axis ends) and "Show code"
    (of the clusters too, with ``clusters``). True when a view other than the map was drawn
    (the page then stops). The radio goes in ``where`` (presentation mode: the folded
    settings, so that the map starts higher)."""
    if uploaded:
        return False
    view = where.radio(
        "View",
        tuple(VIEWS),
        format_func=VIEWS.get,
        horizontal=True,
        key="projections.view",
        bind=URL,
    )
    if view == "motion":
        column = shown.values_title if shown.values is None else ""  # labels from a column
        motion(
            points, params, shown.texts, shown.labels, shown.spans, shown.legend_title, [], column
        )
    elif view == "axes":
        ends = AXIS_ENDS["words" if points.word is not None else "sentences"]
        custom_axes(points, model, shown, ends, clusters=clusters)
    return view != "map"
