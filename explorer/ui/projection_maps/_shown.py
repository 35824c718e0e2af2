"""What each point of a Projections map shows: its text (a sentence, or the sentence of a
word's occurrence with the word's span), its label and the legend's title, the map's title,
and the clusters when the map is coloured by them."""

from __future__ import annotations

import html
from collections.abc import Sequence

from explorer.data.columns import MAX_LABEL_CHARS, cut_labels
from explorer.figures.projections import projection_title
from explorer.maps import LABELS, ProjectionParams
from explorer.server import limits
from explorer.ui import compute, messages
from explorer.ui.projection_maps._clusters import clusters
from explorer.ui.projection_maps._colours import point_column
from explorer.ui.projection_maps._map import MapPoints
from explorer.ui.projection_maps._points import Points, StorePoints
from explorer.ui.projection_maps._saved import store_first_token
from explorer.words import occurrence_points


def uploaded_title(method: str, data) -> str:
    """The map's title for uploaded vectors ``data`` (an
    :class:`~explorer.data.vectorfiles.UploadedVectors`): the method and how many of what width."""
    return (
        f"{LABELS[method]} of {len(data):,} uploaded vectors<br>"
        f"<sup>{data.dims:,} dimensions, as uploaded ({html.escape(data.format)})</sup>"
    )


def shown_points(
    source,
    points,
    texts: Sequence[str],
    labels: Sequence[str] | None,
    legend_title: str,
    params: ProjectionParams,
    colour: str,
):
    """What the map of ``points`` (from :func:`source_points`, with its ``texts``, ``labels``
    and ``legend_title``) shows under ``params`` coloured by ``colour``:
    ``(MapPoints, params, clusters)``. A column of the data (:mod:`._colours`) gives the
    labels and legend (categories) or the points' values (numbers). A word map has a point per
    occurrence, labelled by its sentence's label (colour "labels") or its sentence; ``params``
    come back in 2-D when 3-D is too heavy for the points
    (:func:`explorer.server.limits.cap_3d`, with a note); ``clusters`` is ``(ids, names)`` when
    coloured by clusters, else None. Notes (occurrences left out, 2-D instead of 3-D) are shown
    on the page."""
    if points.word is not None:
        occurrences, _, cap_note = points.occurrences()
        if cap_note:
            messages.info(cap_note)
        by_label = labels is not None and colour == "labels"
        point_texts, spans, point_labels = occurrence_points(
            occurrences, texts, labels if by_label else None
        )
        legend_title = legend_title if by_label else "Sentence"
        text_rows = [o.text_index for o in occurrences]
        title = projection_title(
            params.method, len(occurrences), layers=points.choice.layers, word=points.word
        )
    else:
        first = None  # uploaded vectors: no model
        if isinstance(points, StorePoints):  # its model is not loaded: its tokenizer names it
            first = store_first_token(points.path)
        elif isinstance(points, Points):
            from explorer.ui.model_in_use import load

            compute.embed_corpus(points.ref, points.texts)
            first = load(points.ref).tokenizer.cls_token  # "<s>" for MPNet/RoBERTa
        point_texts, spans, point_labels = list(texts), None, labels
        text_rows = range(len(point_texts))
        title = (
            uploaded_title(params.method, source.vectors)
            if source.vectors is not None
            else projection_title(
                params.method,
                len(texts),
                layers=points.choice.layers,
                pooling=points.choice.pooling,
                cls_token=first,
            )
        )
    params, flat_note = limits.cap_3d(params, len(point_texts))
    if flat_note:
        messages.info(flat_note)
    found, values, name, whole, cut = None, None, "", None, 0
    column = point_column(source, points, colour, point_texts, text_rows)
    if colour == "clusters":
        point_labels, ids, names = clusters(points, point_texts)
        legend_title, found = "Cluster", (ids, names)
    elif column is not None:
        name, cut = column.name, column.cut
        if column.kind == "numeric":
            values = column.values
        else:
            point_labels, legend_title = list(column.values), name
    elif point_labels is not None:
        whole = point_labels
        point_labels, cut = cut_labels(point_labels)
        whole = whole if cut else None
    if cut:
        messages.info(
            f"{cut:,} label(s) or value(s) are longer than {MAX_LABEL_CHARS} characters: the "
            f"map groups and names them by their first {MAX_LABEL_CHARS - 1} (and shows less "
            "in its legend and hovers)"
            + ("; the neighbour panel shows the labels whole." if whole is not None else ".")
        )
    shown = MapPoints(
        point_texts, point_labels, spans, legend_title, title, values, name, whole_labels=whole
    )
    return shown, params, found
