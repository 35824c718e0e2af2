"""Layers in motion, the Projections page's view of the same points at every layer: one
aligned frame per layer (:func:`explorer.maps.layer_maps`, cached) and what to notice."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from explorer import maps
from explorer._markup import shorten
from explorer.figures.animation import motion_notice
from explorer.maps import ProjectionParams
from explorer.server import limits
from explorer.ui import messages
from explorer.ui.compute import cached, heavy_points, open_store
from explorer.ui.progress import progress_bar


def _frames(points, params: ProjectionParams, rows: np.ndarray):
    from explorer.maps import layer_maps

    def compute():
        per_layer = points.per_layer(rows)
        with progress_bar(f"{maps.LABELS[params.method]} of every layer…") as report:
            return layer_maps(
                per_layer,
                params.method,
                2,
                params.random_state or 0,
                "joint",
                report,
                n_neighbors=params.n_neighbors,
                perplexity=params.perplexity,
            )

    frames = len(rows) * _frame_count(points)
    return cached(
        "projections",
        ("motion", points, params, limits.MAX_MOTION_POINTS),
        compute,
        heavy=heavy_points(frames, params.method),
    )


def _frame_count(points) -> int:
    """Maps Layers in motion draws for ``points``: its model's layers + 1, a saved corpus's
    stored layers (the bundled model's count when either cannot be read: the map view says
    why)."""
    from explorer.ui.model_in_use import load

    try:
        if getattr(points, "ref", None) is None:  # a saved corpus: no model loaded
            return len(open_store(points.path).layers)
        return load(points.ref).num_layers + 1
    except ValueError:
        return limits.BUNDLED_FRAMES


def motion(
    points,
    params: ProjectionParams,
    texts: Sequence[str],
    labels: Sequence[str] | None,
    spans,
    legend_title: str,
    trails: Sequence[int],
    column: str = "",
) -> None:
    """Layers in motion: one aligned frame per layer (layer slider and play button), trails
    for the selected points, and what to notice computed from the frames. At most
    :func:`explorer.server.limits.motion_points` of the points (a random sample, noted): the
    bundled model's :data:`~explorer.server.limits.MAX_MOTION_POINTS`, fewer for deeper models.
    ``column``: the name of the column of the data whose values are the ``labels`` (the map
    coloured by it), else empty; with ``legend_title`` it names what the notice counts."""
    from explorer.figures.animation import animated_map, motion_caption
    from explorer.figures.projections import axis_titles

    limit = limits.motion_points(_frame_count(points), limits.MAX_MOTION_POINTS)
    rows, sampled = limits.motion_rows(len(texts), limit)
    if sampled is not None:
        messages.info(sampled)
        texts = [texts[i] for i in rows]
        labels = None if labels is None else [labels[i] for i in rows]
        spans = None if spans is None else [spans[i] for i in rows]
    layer_maps = _frames(points, params, rows)
    for note in layer_maps.notes:
        messages.info(note)
    figure = animated_map(
        layer_maps.frames,
        texts,
        labels,
        spans=spans,
        title=f"{maps.LABELS[params.method]} of every layer, aligned ({len(texts):,} points)",
        trails=list(trails)[:20] or None,
        legend_title=legend_title,
        axes=axis_titles(params.method, 2, layer_maps.explained_variance_ratio),
    )
    # above the chart, as the other views
    messages.info(_notice(points, labels, rows, colour_noun(legend_title, column)))
    st.plotly_chart(figure, key="projections.motion", width="stretch")
    st.caption(motion_caption(layer_maps, trails=bool(trails)))


def colour_noun(legend_title: str, column: str = "") -> tuple[str, str]:
    """What the points of Layers in motion are coloured by, singular and plural, for its
    notice: a column's value (``column``, the data's column the colours come from), a cluster
    or a sentence (the legend's title the map gives them), else a label."""
    if column:
        name = f"“{shorten(column)}”"
        return f"{name} value", f"{name} values"
    noun = {"Cluster": "cluster", "Sentence": "sentence"}.get(legend_title, "label")
    return noun, noun + "s"


def _notice(points, labels: Sequence[str] | None, rows: np.ndarray, noun: tuple[str, str]) -> str:
    """What to notice, from the numbers: how well the colours' groups (``noun``: what they
    are, from :func:`colour_noun`) separate at the first and the last layer (share of each
    point's 5 nearest neighbours, full space, in its group)."""
    if labels is None or len(set(labels)) < 2:
        return (
            "Watch where the points start: at layer 0 a word's vectors differ only by position "
            "and segment, so everything sits close together; context pulls them apart later."
        )

    def compute():
        per_layer = points.per_layer(rows)
        return [maps.label_agreement(layer, labels, 5) for layer in per_layer]

    agreement = cached(
        "projections",
        ("agreement", points, tuple(labels)),
        compute,
        heavy=heavy_points(len(rows) * 7),
    )
    return motion_notice(agreement, *noun)
