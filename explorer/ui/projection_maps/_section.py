"""The Projections page below the settings, once the map is fitted: what the map shows (a
notice above it), the map with its panel, the clusters' CSV, the second map the person chose
to compare with, and "Show code"."""

from __future__ import annotations

import streamlit as st

from explorer.figures.projections import axis_titles
from explorer.maps import ProjectionParams, Projector, value_notice
from explorer.ui import messages
from explorer.ui.compute import cached
from explorer.ui.projection_maps._clusters import cluster_download
from explorer.ui.projection_maps._code import map_code
from explorer.ui.projection_maps._compare import second_map
from explorer.ui.projection_maps._download import html_download
from explorer.ui.projection_maps._everyrow import every_row_chosen, every_row_map
from explorer.ui.projection_maps._map import MapPoints, digest, draw, map_figure
from explorer.ui.projection_maps._panels import map_notice
from explorer.ui.projection_maps._saved import saved_density
from explorer.ui.widgets import URL


def map_section(
    source,
    points,
    params: ProjectionParams,
    projector: Projector,
    shown: MapPoints,
    *,
    compare: str,
    clusters: tuple | None,
    kept_share,
    notice,
    controls=None,
) -> None:
    """Everything the page draws of the fitted map ``projector`` of ``points`` (from
    ``source``, showing ``shown``): the projector's notes, what the map shows in ``notice`` (a
    container above the settings), the map and its panel (coloured by ``kept_share`` when
    given, else by ``shown.values``, a numeric column, with a sentence on how much it follows
    the map), the density contours' checkbox, "Download this map", the CSV of ``clusters``
    (``(ids, names)``, when coloured by them), the ``compare`` map and "Show code". With
    ``controls`` (presentation mode's folded settings) the checkbox goes there."""
    for note in projector.notes_:
        messages.info(note)
    column = shown.values_title if shown.values is None else ""  # labels from a column
    messages.info(
        map_notice(points, params, projector, shown.labels, shown.legend_title, column), notice
    )
    if shown.values is not None and kept_share is None:
        messages.info(column_notice(points, params, projector, shown), notice)
    if every_row_chosen(points, params, compare):
        axes = axis_titles(params.method, 2, projector.explained_variance_ratio_)
        every_row_map(points, params, axes)
        map_code(source, points, params, projector, clusters=False, shown=shown)
        return
    two_d = params.n_components == 2
    options = st.columns([1, 2], vertical_alignment="center")
    # presentation mode: the checkbox in the folded settings (``controls``), the map higher
    contours = two_d and (options[0] if controls is None else controls).checkbox(
        "Density contours",
        key="projections.contours",
        bind=URL,
        help="Where the points crowd, as shaded contours under them (a smoothed count of the "
        "points on a grid; 2-D maps).",
    )
    rows = draw(
        points, params, projector, shown, compare=compare, kept_share=kept_share, contours=contours
    )
    density = saved_density(points, params)
    figure = map_figure(projector, params, shown, kept_share, density, contours)
    html_download(options[1], figure, params.method)
    if clusters is not None:
        cluster_download(projector.embedding_, shown.texts, *clusters)
    saved = source.store is not None
    second_map(compare, points, params, rows, shown.texts, shown.labels, saved=saved)
    map_code(
        source,
        points,
        params,
        projector,
        clusters=clusters is not None,
        shown=shown,
        kept_share=kept_share,
        contours=contours,
    )


def column_notice(points, params: ProjectionParams, projector: Projector, shown: MapPoints) -> str:
    """:func:`explorer.maps.value_notice` of the numeric column colouring the map, cached (it
    finds every point's neighbours on the map)."""
    return cached(
        "projections",
        ("column notice", points, params, digest(shown.values), shown.values_title),
        lambda: value_notice(projector.embedding_, shown.values, shown.values_title),
    )
