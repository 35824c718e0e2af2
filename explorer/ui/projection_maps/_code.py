"""The Projections page's "Show code": plain transformers + scikit-learn programs that print
the numbers the page shows, for the map (its coordinates, then the map drawn as the page
colours it and written as one HTML file), the custom axes (their coordinates)
and the named clusters (their names). Points embedded by the explorer (:class:`Points`) carry
everything a program needs (model, texts, word, pooling, layers); a saved corpus gets a pointer
to ``explorer.open_corpus`` instead, uploaded vectors a program that reads the same files."""

from __future__ import annotations

import streamlit as st

from explorer.ui.projection_maps._points import Points
from explorer.ui.widgets import show_code

SAVED_CORPUS = (
    "Show code: `explorer.open_corpus(folder).sentence(pooling, layers)` gives these vectors in "
    "Python; `explorer project` saves a projection of every row."
)


def _spans(points: Points) -> list[tuple[int, int, int]] | None:
    """``(text_index, char_start, char_end)`` of each occurrence a word map draws (the cached
    occurrences the map's vectors come from); None for a sentence map."""
    if points.word is None:
        return None
    occurrences = points.occurrences()[0]
    return [(o.text_index, o.char_start, o.char_end) for o in occurrences]


def _clusters_snippet(points: Points) -> str:
    """The named clusters of ``points`` (k-means, k by silhouette, as
    :func:`explorer.ui.projection_maps.clusters` computes them): a program that prints each
    cluster's size and name (:func:`explorer.codegen.clusters.clusters_snippet`)."""
    from explorer.codegen.clusters import clusters_snippet

    return clusters_snippet(
        points.ref,
        points.texts,
        points.choice.pooling,
        points.choice.layers,
        "kmeans",
        None,
        word=points.word,
        spans=_spans(points),
    )


def _map_file(shown, params, kept_share, contours: bool, word: bool, from_data: bool):
    """The program's last lines (2-D maps): the map coloured as on the page, written as one
    HTML file (:func:`explorer.codegen.mapfile.map_file_block`), and the colour values (for
    the data file, ``from_data``: the program reads them there); ``("", None)`` without
    ``shown``."""
    from explorer.codegen.mapfile import map_file_block

    if shown is None or params.n_components != 2:
        return "", None
    if kept_share is not None:
        name, values, numeric = "Neighbours kept", kept_share, True
    elif shown.values is not None:
        name, values, numeric = shown.values_title, shown.values, True
    else:
        name, values, numeric = shown.legend_title, shown.labels, False
    block = map_file_block(
        name,
        values,
        numeric=numeric,
        contours=contours,
        word=word,
        file_name=f"{params.method}-map.html",
        from_data=from_data and values is not None,
    )
    return block, None if values is None else list(values)


def _show(points: Points, snippet: str, clusters: bool, data: bytes | None = None) -> None:
    """One "Show code" expander: ``snippet`` (with the ``data`` file it reads), then the
    clusters' program when the points are coloured by cluster."""
    from explorer.codegen.projections import DATA_FILE

    snippets = (snippet, _clusters_snippet(points)) if clusters else (snippet,)
    show_code(
        *snippets,
        height=520 if len(points.texts) > 20 else "content",
        data=None if data is None else (DATA_FILE, data),
    )


def map_code(
    source,
    points,
    params,
    projector,
    *,
    clusters: bool = False,
    shown=None,
    kept_share=None,
    contours: bool = False,
) -> None:
    """ "Show code" for the map of ``points`` drawn from ``source`` (an
    :class:`explorer.ui.sourcetypes.Source`): a program that prints the same coordinates and, for
    a 2-D map showing ``shown`` (a :class:`MapPoints`, coloured by ``kept_share`` when given),
    draws it as the page does (with ``contours``) into a standalone HTML file; with
    ``clusters``, one that prints the clusters the map is coloured by."""
    from explorer.codegen import projections

    used = params.as_used_by(projector)
    if source.vectors is not None:
        ending, _ = _map_file(shown, params, kept_share, contours, points.word is not None, False)
        from explorer.codegen import vectorfiles

        snippet = vectorfiles.projection_snippet(source.vectors, source.files, used) + ending
        show_code(snippet, caption="NumPy + pandas read your files; then the projection.")
        return
    if not isinstance(points, Points):
        st.caption(SAVED_CORPUS)
        return
    spans = _spans(points)
    many = not projections.inline(len(points.texts if spans is None else spans))
    ending, values = _map_file(shown, params, kept_share, contours, spans is not None, many)
    if spans is not None:
        snippet = projections.word_projection_snippet(
            points.ref, points.texts, spans, points.word, points.choice, used
        )
        data = projections.word_projection_data(points.texts, spans, values)
    else:
        snippet = projections.projection_snippet(
            points.ref, points.texts, points.choice, params=used
        )
        data = projections.projection_data(points.texts, values)
    _show(points, snippet + ending, clusters, data)


def axes_code(
    points, x_ends: tuple[str, str], y_ends: tuple[str, str] | None, *, clusters: bool = False
) -> None:
    """ "Show code" for custom axes from ``x_ends`` (and ``y_ends``, or None for the main
    direction of what x leaves): a program that prints the first points' coordinates
    (:func:`explorer.codegen.axes.axes_snippet`), and with ``clusters`` the clusters'."""
    from explorer.codegen.axes import axes_snippet

    if not isinstance(points, Points):
        st.caption(SAVED_CORPUS)
        return
    from explorer.codegen import projections

    spans = _spans(points)
    snippet = axes_snippet(
        points.ref,
        points.texts,
        x_ends,
        y_ends,
        points.choice.pooling,
        points.choice.layers,
        word=points.word,
        spans=spans,
    )
    data = (
        projections.projection_data(points.texts)
        if spans is None
        else projections.word_projection_data(points.texts, spans)
    )
    _show(points, snippet, clusters, data)
