"""A second map of the same texts beside the Projections map ("Compare with"): the same
architecture with untrained weights, another layer choice, or every pooling, with how much the
neighbourhoods and a linear probe agree."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import streamlit as st

from explorer import maps
from explorer.layers import Layers
from explorer.maps import ProjectionParams
from explorer.ui import messages, presentation
from explorer.ui.projection_maps._fit import fit
from explorer.ui.projection_maps._map import COMPARE_KEY, clicked_compare
from explorer.ui.projection_maps._points import Points, StorePoints

COMPARISONS = {
    "none": "Nothing",
    "untrained": "Random weights",
    "layers": "Another layer choice",
    "poolings": "Every pooling",
}
"""What the Projections page can draw beside the main map."""


def contrast_layers(layers: Layers) -> str:
    """The layer choice "Another layer choice" opens on, never the map's own ``layers``: the
    static embedding layer (what the context adds), or the last layer when the map is of the
    embeddings (a comparison of a layer with itself shares every neighbour)."""
    return "last" if layers == "embeddings" else "embeddings"


def comparison(
    points: Points,
    other: Points,
    params: ProjectionParams,
    rows: Sequence[int],
    texts: Sequence[str],
    labels: Sequence[str] | None,
    titles: tuple[str, str],
    k: int = maps.DEFAULT_K,
) -> list[int]:
    """A second map of the same texts under ``other`` (another model, layer choice or
    pooling) beside its figures: the mean neighbour overlap of the two (Jaccard of k-NN sets in
    the full spaces) and, for labelled texts, a linear probe's accuracy under each. Points
    selected on either map are ringed on this one (``rows`` from the main map); returns the rows
    selected here, for the main map to ring."""
    from explorer.figures.highlights import highlight_rows
    from explorer.figures.projections import axis_titles, projection_figure, selected_rows

    flat = dataclasses.replace(params, n_components=2)
    with st.spinner(f"Running {maps.LABELS[params.method]} for the comparison…"):
        fitted = fit(other, flat)
        jaccard = maps.neighbour_overlap(points.vectors(), other.vectors(), k)
    overlap = float(jaccard.mean())
    # Two sets of k neighbours with Jaccard index J share 2J / (1 + J) of them: not J.
    shared = float(np.mean(2 * jaccard / (1 + jaccard)))
    state = st.session_state.get(COMPARE_KEY) or {}
    own = selected_rows(state.get("selection"), len(texts))
    figure = projection_figure(
        fitted.embedding_,
        texts,
        labels,
        title=titles[1][:1].upper() + titles[1][1:],
        axes=axis_titles(params.method, 2, fitted.explained_variance_ratio_),
    )
    if rows or own:
        highlight_rows(figure, fitted.embedding_, sorted({*rows, *own}), "Selected on either map")
    left, right = (st.container(), st.container()) if presentation.is_on() else st.columns([3, 2])
    left.plotly_chart(
        figure,
        key=COMPARE_KEY,
        on_select=clicked_compare,
        selection_mode=("points", "box", "lasso"),
        width="stretch",
    )
    right.metric(
        f"Neighbourhoods shared ({k}-NN, Jaccard)",
        f"{overlap:.2f}",
        help="For each text, its k nearest texts in the full space under each setting; the "
        "mean Jaccard index of the two sets (1 = the same neighbours).",
    )
    if labels is not None and len(set(labels)) > 1:
        scores = _probe_pair(points, other, labels)
        if scores is not None:
            right.metric(
                "Linear probe accuracy (5-fold)",
                f"{scores[1]:.2f}",
                delta=f"{scores[1] - scores[0]:+.2f} vs {titles[0]}",
                help="Logistic regression on the full-space vectors, cross-validated: how well "
                "the labels can be read off each setting.",
            )
    where = "Above" if presentation.is_on() else "Left"
    right.caption(
        f"{where}: {titles[1]}. {shared:.0%} of each text's {k} nearest neighbours are shared "
        f"with {titles[0]} on average. Select points on either map: they are ringed on both."
    )
    return own


def _probe_pair(points: Points, other: Points, labels: Sequence[str]) -> tuple[float, float] | None:
    """Mean cross-validated probe accuracy of ``points`` and of ``other`` (None when the labels
    cannot be split into folds)."""
    from explorer.probing.folds import plan_folds
    from explorer.probing.linear import probe_accuracies

    try:
        plan = plan_folds(tuple(labels), None, 5, 0)
        return tuple(float(probe_accuracies(p.vectors(), plan).mean()) for p in (points, other))
    except ValueError:
        return None


def pooling_comparison(
    points: Points, params: ProjectionParams, texts: Sequence[str], labels: Sequence[str] | None
) -> None:
    """Small 2-D maps of the same texts under every pooling, with each one's trustworthiness."""
    from explorer.figures.projections import axis_titles, pooling_grid, pooling_grid_notice
    from explorer.layers import layers_label
    from explorer.pooling import POOLINGS

    flat = dataclasses.replace(params, n_components=2)
    method = maps.LABELS[params.method]
    try:
        with st.spinner(f"Running {method} for each pooling…"):
            fitted = {
                p: fit(dataclasses.replace(points, choice=points.choice.replace(pooling=p)), flat)
                for p in POOLINGS
            }
    except ValueError as error:
        messages.warning(error)
        return
    from explorer.ui.model_in_use import load

    first = load(points.ref).tokenizer.cls_token  # "<s>" for MPNet/RoBERTa
    said = pooling_grid_notice({p: f.trustworthiness_ for p, f in fitted.items()}, first)
    if said:
        messages.info(said)
    st.plotly_chart(
        pooling_grid(
            {p: f.embedding_ for p, f in fitted.items()},
            {p: f.trustworthiness_ for p, f in fitted.items()},
            texts,
            labels,
            method=params.method,
            title=f"{method} of the same texts under each pooling · "
            f"{layers_label(points.choice.layers)}",
            axes={
                p: axis_titles(params.method, 2, f.explained_variance_ratio_)
                for p, f in fitted.items()
            },
            cls_token=first,
        ),
        key="projections.compare_chart",
        width="stretch",
    )


def second_map(
    compare: str,
    points: Points | StorePoints,
    params: ProjectionParams,
    rows: Sequence[int],
    texts: Sequence[str],
    labels: Sequence[str] | None,
    *,
    saved: bool = False,
) -> None:
    """The comparison the person chose in "Compare with" (:data:`COMPARISONS`), under the map."""
    from explorer.layers import LAYER_CHOICES, layers_label
    from explorer.ui.widgets import choose

    if compare == "none":
        return
    if compare == "poolings":
        pooling_comparison(points, params, texts, labels)
        return
    if params.n_components != 2:
        st.caption("The second map is drawn in 2-D: switch to 2-D to compare.")
        return
    if compare == "untrained" and saved:
        messages.info(
            "A saved corpus keeps the trained model's vectors only: compare another layer "
            "choice or every pooling instead."
        )
        return
    if compare == "untrained":
        other = dataclasses.replace(points, ref=points.ref.random_twin())
        titles = ("the trained model", "the same model with random weights")
    else:
        other_layers = choose(
            st,
            "Compare with layers",
            LAYER_CHOICES,
            layers_label,
            "projections.compare_layers",
            contrast_layers(points.choice.layers),
            "The layer choice of the second map (it opens on another one than this map's).",
        )
        other = dataclasses.replace(points, choice=points.choice.replace(layers=other_layers))
        titles = (layers_label(points.choice.layers).lower(), layers_label(other_layers).lower())
    try:
        comparison(points, other, params, rows, texts, labels, titles)
    except ValueError as error:
        messages.warning(error)
