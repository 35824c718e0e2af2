"""The Projections page's other views of the same points: layers in motion, custom axes, and
clusters with names. Each computes through the library (cached) and renders one section."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from explorer import limits, mapquality
from explorer import projection as proj
from explorer.projection import ProjectionParams
from explorer.ui import messages
from explorer.ui.compute import cached, heavy_points
from explorer.ui.progress import progress_bar

VIEWS = {
    "map": "Map",
    "motion": "Layers in motion",
    "axes": "Custom axes",
}
"""What the Projections page draws of its points."""


def _frames(points, params: ProjectionParams, rows: np.ndarray):
    from explorer.animation import layer_maps

    def compute():
        per_layer = points.per_layer(rows)
        with progress_bar(f"{proj.LABELS[params.method]} of every layer…") as report:
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
    """Maps Layers in motion draws for ``points``: its model's layers + 1 (the bundled
    model's count when the model cannot be loaded: the map view says why)."""
    from explorer.ui.model import load

    try:
        return load(points.model_name).num_layers + 1
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
) -> None:
    """Layers in motion: one aligned frame per layer (layer slider and play button), trails
    for the selected points, and what to notice computed from the frames. At most
    :func:`explorer.limits.motion_points` of the points (a random sample, with a note): the
    bundled model's :data:`~explorer.limits.MAX_MOTION_POINTS`, fewer for deeper models."""
    from explorer.figures.animation import animated_map

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
        title=f"{proj.LABELS[params.method]} of every layer, aligned ({len(texts):,} points)",
        trails=list(trails)[:20] or None,
        legend_title=legend_title,
        axes=(f"{proj.LABELS[params.method]} 1", f"{proj.LABELS[params.method]} 2"),
    )
    st.plotly_chart(figure, key="projections.motion", width="stretch")
    st.markdown(_notice(points, labels, rows))
    st.caption(
        "Press play or drag the layer slider. The frames share one set of axes (PCA fitted on "
        "all layers together, AlignedUMAP, or t-SNE started from the previous layer), so a "
        "point that moves has really changed neighbourhood. Selected points on the map leave "
        "a trail."
    )


def _notice(points, labels: Sequence[str] | None, rows: np.ndarray) -> str:
    """What to notice, from the numbers: how well the labels separate at the first and the
    last layer (share of each point's 5 nearest neighbours, full space, with its label)."""
    if labels is None or len(set(labels)) < 2:
        return (
            "Watch where the points start: at layer 0 a word's vectors differ only by position "
            "and segment, so everything sits close together; context pulls them apart later."
        )

    def compute():
        per_layer = points.per_layer(rows)
        return [mapquality.label_agreement(layer, labels, 5) for layer in per_layer]

    agreement = cached(
        "projections",
        ("agreement", points, tuple(labels)),
        compute,
        heavy=heavy_points(len(rows) * 7),
    )
    best = int(np.argmax(agreement))
    return (
        f"**What to notice:** at layer 0, {agreement[0]:.0%} of each point's 5 nearest "
        f"neighbours (in the full space) share its label; at the last layer {agreement[-1]:.0%}, "
        f"and most at layer {best} ({agreement[best]:.0%}). "
        + (
            "The labels separate as context flows in."
            if agreement[-1] > agreement[0] + 0.1
            else "The labels are about as separate at the input as at the end: the words alone "
            "carry them."
        )
    )


def custom_axes(points, model, texts, labels, spans, legend_title: str, defaults) -> None:
    """Custom axes: x from word/text A to B, y from C to D (or the main direction of what is
    left); each point's coordinates are plain dot products with the unit directions."""
    from explorer import axes as custom
    from explorer.figures.axes import axes_figure

    ends = st.columns(4)
    names = [
        ends[i].text_input(label, value, key=f"projections.axis_{key}", bind="query-params")
        for i, (label, value, key) in enumerate(
            [
                ("x from", defaults[0], "x_from"),
                ("x to", defaults[1], "x_to"),
                ("y from (optional)", "", "y_from"),
                ("y to (optional)", "", "y_to"),
            ]
        )
    ]
    names = [n.strip() for n in names]
    if bool(names[2]) != bool(names[3]):
        messages.info(
            "Give both ends of the y axis, or neither (y is then the main direction "
            "of what the x axis leaves)."
        )
        names[2] = names[3] = ""

    def end(text: str) -> np.ndarray:
        if points.word is not None:
            return custom.word_vector(model, text, points.layers, points.subwords)
        return custom.text_vector(model, text, points.pooling, points.layers)

    result = custom.custom_axes(
        points.vectors(),
        end(names[0]),
        end(names[1]),
        end(names[2]) if names[2] else None,
        end(names[3]) if names[3] else None,
        x_names=(names[0], names[1]),
        y_names=(names[2], names[3]) if names[2] else None,
    )
    figure = axes_figure(
        result.coords,
        texts,
        labels,
        x_title=result.labels[0],
        y_title=result.labels[1],
        spans=spans,
        title="Custom axes",
        legend_title=legend_title,
    )
    st.plotly_chart(figure, key="projections.axes", width="stretch")
    messages.caption(
        f"x: each point's dot product with the unit direction from {names[0]!r} to "
        f"{names[1]!r} (each end embedded on its own, with the same pooling and layers). y: "
        + (
            f"the same for {names[2]!r} to {names[3]!r}, made perpendicular to x."
            if names[2]
            else "the main direction of the vectors once the x direction is taken out."
        )
    )


def clusters(points, texts: Sequence[str]) -> tuple[list[str], np.ndarray, dict[int, str]]:
    """k-means clusters of the points' full-space vectors (k chosen by silhouette), named by
    their most distinctive words: ``(legend label per point, cluster ids, names)``."""
    from explorer.clusters import cluster, cluster_labels, cluster_names

    def compute():
        found = cluster(points.vectors(), "kmeans", None)
        names = cluster_names(texts, found.labels)
        return cluster_labels(found.labels, names), found.labels, names

    return cached(
        "projections",
        ("clusters", points),
        compute,
        "Clustering the vectors…",
        heavy_points(len(texts)),
    )


def show_projection_code(kind, name, texts, params, projector, pooling, layers, word, occurrences):
    """ "Show code" for the map: a plain transformers + scikit-learn program that prints the
    same coordinates (a pointer to ``explorer.open_corpus`` for a saved corpus)."""
    from explorer.codegen.projections import projection_snippet, word_projection_snippet
    from explorer.ui.widgets import show_code

    if kind == "saved":
        st.caption(
            "Show code: `explorer.open_corpus(folder).sentence(pooling, layers)` gives these "
            "vectors in Python; `explorer project` saves a projection of every row."
        )
        return
    used = params.as_used_by(projector)
    if occurrences is not None:
        where = [(o.text_index, o.char_start, o.char_end) for o in occurrences]
        snippet = word_projection_snippet(name, texts, where, word, layers, used)
    else:
        snippet = projection_snippet(name, texts, pooling, layers, used)
    show_code(snippet, height=520 if len(texts) > 20 else "content")
