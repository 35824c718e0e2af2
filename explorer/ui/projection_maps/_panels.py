"""Panels around the Projections map: the quality scores under it, the neighbour inspector,
the list of selected texts, the notice of what the map shows. Each renders from fitted results;
the numbers come from the library."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer import maps
from explorer._markup import shorten
from explorer.context import highlight_html
from explorer.figures.tables import marked_html, text_table_html
from explorer.maps import ProjectionParams, Projector
from explorer.ui import messages, presentation
from explorer.ui.compute import cached
from explorer.ui.projection_maps._fit import inspect
from explorer.ui.projection_maps._motion import colour_noun
from explorer.ui.projection_maps._points import Points
from explorer.ui.widgets import option_labels

TRUST_HELP = (
    "scikit-learn's trustworthiness: 1.0 means every point's nearest neighbours in the "
    "picture are also near it in the original vector space; lower values mean the picture "
    "puts some far-apart texts side by side."
)


def scores(projector: Projector, n_points: int, method: str, dims: int) -> None:
    """Metrics under a map (points, trustworthiness, explained variance) and what they mean."""
    columns = st.columns(4)
    columns[0].metric("Points", f"{n_points:,}")
    trust = projector.trustworthiness_
    if trust is not None:
        sample, k = projector.trustworthiness_sample_, projector.trustworthiness_neighbors_
        estimated = sample < n_points
        columns[1].metric(
            f"Trustworthiness ({k} neighbour{'s' if k > 1 else ''}"
            f"{', estimated' if estimated else ''})",
            f"{trust:.3f}",
            help=TRUST_HELP
            + (
                f" Estimated from {sample:,} random points of {n_points:,}, each ranked "
                "against all of them (within about 0.005 of the exact value)."
                if estimated
                else ""
            ),
        )
    total = maps.total_explained_variance(projector.explained_variance_ratio_)
    if total is not None:
        columns[2].metric("Variance explained", f"{100 * total:.1f} %")
    caption = (
        maps.describe_trustworthiness(trust, projector.trustworthiness_neighbors_) + " "
        if trust is not None
        else ""
    )
    if total is not None:
        caption += (
            f"The {dims} principal components together explain {100 * total:.1f} % of the "
            "variance of the vectors; the rest is invisible in this picture."
        )
    elif method == "pca":
        caption += (
            "In a PCA picture distances along the axes are faithful; what the other "
            "directions hold is invisible."
        )
    else:
        caption += (
            f"In a {maps.LABELS[method]} picture, which points are neighbours matters; the "
            "sizes of clusters and the distances between them do not."
        )
    st.caption(caption)


def selected(
    rows: Sequence[int], texts: Sequence[str], labels: Sequence[str] | None, title: str
) -> None:
    """The texts of the selected points (a table)."""
    chosen = {"text": [texts[i] for i in rows]}
    if labels is not None:
        chosen[shorten(title).lower()] = [labels[i] for i in rows]
    st.markdown(f"**{len(rows)} selected point(s)**")
    presentation.table(pd.DataFrame(chosen, index=list(rows)), width="stretch")


def inspector(
    points: Points,
    params: ProjectionParams,
    rows: Sequence[int],
    texts: Sequence[str],
    labels: Sequence[str] | None,
    spans: Sequence[tuple[int, int]] | None,
    k: int,
) -> maps.Inspection:
    """The neighbour panel of one selected point (the person picks which when several are
    selected): its text and label (whole), its ``k`` nearest texts in the full space, with
    cosine and label, and how many of them the map keeps near it. Returns the inspection
    (the page highlights it)."""
    row = rows[0]
    if len(rows) > 1:
        row = st.selectbox(
            "Inspect the neighbours of",
            rows,
            format_func=option_labels((i, f"point {i}: {texts[i][:80]}") for i in rows),
            key="projections.inspect_row",
        )
    found = inspect(points, params, int(row), k)
    st.markdown(f"**Nearest texts in the full space** to point {row}:")
    shown = texts[row] if spans is None else highlight_html(texts[row], *spans[row])
    st.markdown(
        f"> {shown if spans is not None else messages.escape(shown)}", unsafe_allow_html=True
    )
    if labels is not None:  # whole, however long: the map shows it shortened
        st.caption(f"Label: {messages.escape(str(labels[row]))}")
    on_map = set(found.on_map.tolist())
    table = {
        "point": [int(i) for i in found.indices],
        "cosine": [float(s) for s in found.scores],
        "on the map too": [i in on_map for i in found.indices],
        **({"label": [str(labels[i]) for i in found.indices]} if labels is not None else {}),
        "text": [marked_html(texts[i], spans[i] if spans else None) for i in found.indices],
    }
    st.html(
        text_table_html(
            pd.DataFrame(table),
            "projections.neighbours",
            titles={
                "point": "Point",
                "cosine": "Cosine",
                "on the map too": "On map",
                "label": "Label",
                "text": "Text",
            },
            markup_columns=("text",),
            bars={"cosine": (0.0, 1.0)},
        )
    )
    from explorer.figures.projections import WEBGL_ABOVE

    where = "on the map" if len(texts) <= WEBGL_ABOVE else "in the close-up below"
    st.caption(f"{found.summary()} Rings {where} mark them.")
    return found


def map_notice(
    points,
    params: ProjectionParams,
    projector: Projector,
    labels,
    legend: str = "Label",
    column: str = "",
) -> str:
    """:func:`explorer.maps.map_notice` of the map of ``points``, cached (it indexes the
    map's neighbours: 0.1 s of every rerun at 20,000 points). ``legend`` is the legend's title
    and ``column`` the data's column whose values are the ``labels`` (else empty): the
    sentence names what colours the map as :func:`._motion.colour_noun` does."""
    what, whats = colour_noun(legend, column)
    labels = None if labels is None else tuple(labels)
    return cached(
        "projections",
        ("map notice", points, params, labels, what),
        lambda: maps.map_notice(
            projector.embedding_,
            labels,
            trust=projector.trustworthiness_,
            what=what,
            method=params.method,
            whats=whats,
        ),
    )
