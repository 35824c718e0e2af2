"""The Projections page below the settings, once the map is fitted: what the map shows (a
notice above it), the map with its panel, the clusters' CSV, the second map the person chose
to compare with, and "Show code"."""

from __future__ import annotations

from explorer.maps import ProjectionParams, Projector
from explorer.ui import messages
from explorer.ui.projections._clusters import cluster_download
from explorer.ui.projections._code import map_code
from explorer.ui.projections._compare import second_map
from explorer.ui.projections._map import MapPoints, draw
from explorer.ui.projections._panels import map_notice


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
) -> None:
    """Everything the page draws of the fitted map ``projector`` of ``points`` (from
    ``source``, showing ``shown``): the projector's notes, what the map shows in ``notice`` (a
    container above the settings), the map and its panel (coloured by ``kept_share`` when
    given), the CSV of ``clusters`` (``(ids, names)``, when coloured by them), the ``compare``
    map and "Show code"."""
    for note in projector.notes_:
        messages.info(note)
    messages.info(map_notice(points, params, projector, shown.labels, shown.legend_title), notice)
    rows = draw(points, params, projector, shown, compare=compare, kept_share=kept_share)
    if clusters is not None:
        cluster_download(projector.embedding_, shown.texts, *clusters)
    saved = source.kind == "saved"
    second_map(compare, points, params, rows, shown.texts, shown.labels, saved=saved)
    map_code(source, points, params, projector, clusters=clusters is not None)
