""" "Why are these two close?" in the neighbour panel: the inspected point and one of its
nearest texts, chosen in the panel, explained under the map with the map's own pooling and
layers (:func:`explorer.ui.cosine_split.why_close`). Only maps of texts the explorer embedded
have a model and a pooling to explain: word maps, saved corpora and uploaded vectors do
not."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.ui import cosine_split
from explorer.ui.projection_maps._points import Points
from explorer.ui.widgets import option_labels

KEY = "projections.why"
NOBODY = -1
"""The choice of no neighbour (nothing explained)."""


def explainable(points) -> bool:
    """Whether the map's points are sentence vectors the explorer computed with a model."""
    return isinstance(points, Points) and points.word is None


def pick(points, found, texts: Sequence[str]) -> int | None:
    """In the panel: which of the inspected point's neighbours (``found``, an
    :class:`explorer.maps.Inspection`) to explain with it; the nearest by default. None when
    the map cannot be explained or the person chose none."""
    if not explainable(points) or not len(found.indices):
        return None
    options = [NOBODY, *(int(i) for i in found.indices)]
    labels = option_labels(
        [(NOBODY, "(none)")]
        + [
            (int(i), f"point {i} ({s:.3f}): {texts[i][:70]}")
            for i, s in zip(found.indices, found.scores, strict=True)
        ]
    )
    chosen = st.selectbox(
        f"Why are these two close? Point {found.row} and",
        options,
        index=1,
        format_func=labels,
        key=f"{KEY}.other",
        help="One of its nearest texts: the cosine of the two is split into the parts each "
        "pair of tokens gives, under the map (the map's pooling and layers).",
    )
    return None if chosen == NOBODY else int(chosen)


def explain_pair(points: Points, row: int, other: int, texts: Sequence[str]) -> None:
    """The explanation of ``cos(texts[row], texts[other])`` under the map's pooling and
    layers, full width under it."""
    st.subheader(f"Why are point {row} and point {other} close?")
    if points.choice.post != "none":
        st.caption(
            "This splits the model's own cosine of the two texts: the post-processing the map "
            "uses is not applied here, so the cosine differs from the panel's."
        )
    cosine_split.why_close(
        points.ref,
        texts[row],
        texts[other],
        points.choice.pooling,
        points.choice.layers,
        KEY,
        names=(f"Point {row} (inspected)", f"Point {other} (its neighbour)"),
    )
