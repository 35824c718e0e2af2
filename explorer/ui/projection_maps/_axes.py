"""Custom axes, the Projections page's view of the points along directions a person names
(from word or text A to B, :mod:`explorer.maps`), with its "Show code"."""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer.ui import messages
from explorer.ui.projection_maps._code import axes_code
from explorer.ui.projection_maps._map import MapPoints


def custom_axes(
    points, model, shown: MapPoints, defaults: tuple[str, str], *, clusters: bool = False
) -> None:
    """Custom axes: x from word/text A to B (``defaults``), y from C to D (or the main
    direction of what is left); each point's coordinates are plain dot products with the unit
    directions, the ends embedded with ``model``. Then "Show code" (of the clusters too, with
    ``clusters``)."""
    from explorer import maps
    from explorer.figures.axes import axes_figure, axes_notice

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
            return maps.word_vector(model, text, points.choice)
        return maps.text_vector(model, text, points.choice)

    result = maps.custom_axes(
        points.vectors(),
        end(names[0]),
        end(names[1]),
        end(names[2]) if names[2] else None,
        end(names[3]) if names[3] else None,
        x_names=(names[0], names[1]),
        y_names=(names[2], names[3]) if names[2] else None,
    )
    messages.info(axes_notice(result.coords[:, 0], shown.labels, (names[0], names[1])))
    figure = axes_figure(
        result.coords,
        shown.texts,
        shown.labels,
        x_title=result.labels[0],
        y_title=result.labels[1],
        spans=shown.spans,
        title="Custom axes",
        legend_title=shown.legend_title,
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
    y_ends = (names[2], names[3]) if names[2] else None
    axes_code(points, (names[0], names[1]), y_ends, clusters=clusters)
