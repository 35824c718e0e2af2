"""Panels of the map pages: the quality scores under a map, the neighbour inspector, the list
of selected texts. Each renders from fitted results; the numbers come from the library."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer import mapquality
from explorer import projection as proj
from explorer.context import highlight_html
from explorer.projection import ProjectionParams, Projector
from explorer.ui import messages
from explorer.ui.projections import Points, StorePoints, inspect
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
    total = proj.total_explained_variance(projector.explained_variance_ratio_)
    if total is not None:
        columns[2].metric("Variance explained", f"{100 * total:.1f} %")
    caption = (
        mapquality.describe_trustworthiness(trust, projector.trustworthiness_neighbors_) + " "
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
            f"In a {proj.LABELS[method]} picture, which points are neighbours matters; the "
            "sizes of clusters and the distances between them do not."
        )
    st.caption(caption)


def selected(
    rows: Sequence[int], texts: Sequence[str], labels: Sequence[str] | None, title: str
) -> None:
    """The texts of the selected points (a table)."""
    chosen = {"text": [texts[i] for i in rows]}
    if labels is not None:
        chosen[title.lower()] = [labels[i] for i in rows]
    st.markdown(f"**{len(rows)} selected point(s)**")
    st.dataframe(pd.DataFrame(chosen, index=list(rows)), width="stretch")


def _marked(text: str, span: tuple[int, int] | None) -> str:
    """``text`` with the word at ``span`` marked as «word» (table cells are plain text)."""
    if span is None:
        return text
    start, end = span
    return f"{text[:start]}«{text[start:end]}»{text[end:]}"


def inspector(
    points: Points,
    params: ProjectionParams,
    rows: Sequence[int],
    texts: Sequence[str],
    labels: Sequence[str] | None,
    spans: Sequence[tuple[int, int]] | None,
    k: int,
) -> mapquality.Inspection:
    """The neighbour panel of one selected point (the person picks which when several are
    selected): its ``k`` nearest texts in the full space, with cosine and label, and how many
    of them the map keeps near it. Returns the inspection (the page highlights it)."""
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
    on_map = set(found.on_map.tolist())
    table = {
        "cosine": found.scores,
        "on the map too": [i in on_map for i in found.indices],
        **({"label": [labels[i] for i in found.indices]} if labels is not None else {}),
        "text": [_marked(texts[i], spans[i] if spans else None) for i in found.indices],
    }
    st.dataframe(
        pd.DataFrame(table, index=found.indices),
        width="stretch",
        column_config={
            "cosine": st.column_config.ProgressColumn(
                "Cosine", format="%.3f", min_value=0.0, max_value=1.0, width="small"
            ),
            "on the map too": st.column_config.CheckboxColumn(
                "On map",
                help=f"Among this point's {found.k} nearest points on the map",
                width="small",
            ),
            "label": st.column_config.TextColumn("Label", width="small"),
            "text": st.column_config.TextColumn("Text", width="large"),
        },
        key="projections.neighbours",
    )
    from explorer.figures.projections import WEBGL_ABOVE

    where = "on the map" if len(texts) <= WEBGL_ABOVE else "in the close-up below"
    st.caption(f"{found.summary()} Rings {where} mark them.")
    return found


SETTINGS = {
    "umap": (
        "Neighbours (UMAP)",
        "n_neighbors",
        15,
        "How many neighbours shape each point's surroundings: small values show fine local "
        "structure, large values the global shape.",
    ),
    "tsne": (
        "Perplexity (t-SNE)",
        "perplexity",
        30,
        "Roughly the number of neighbours each point pays attention to.",
    ),
}
"""Each method's own slider: label, :class:`ProjectionParams` field, default, help."""


def projection_controls(prefix: str, top: Sequence, bottom: Sequence) -> ProjectionParams:
    """The method and dimension radios (in ``top[0]``, ``top[1]``) and the method's own
    settings (in ``bottom[0]``, ``bottom[1]``), as :class:`ProjectionParams`."""
    method = top[0].radio(
        "Method",
        proj.PROJECTIONS,
        format_func=proj.LABELS.get,
        horizontal=True,
        key=f"{prefix}.method",
        bind="query-params",
    )
    dims = top[1].radio(
        "Dimensions",
        proj.DIMENSIONS,
        format_func=option_labels((k, f"{k}-D") for k in proj.DIMENSIONS),
        horizontal=True,
        key=f"{prefix}.dims",
        bind="query-params",
    )
    settings: dict[str, float] = {}
    if method in SETTINGS:
        label, field, default, help = SETTINGS[method]
        settings[field] = bottom[0].slider(
            label, 2, 100, default, key=f"{prefix}.{field}", help=help
        )
    if method == "umap":
        settings["random_state"] = bottom[1].number_input(
            "Random seed",
            0,
            9999,
            0,
            key=f"{prefix}.seed",
            help="UMAP is random: another seed gives another (equally valid) picture, and a "
            "fixed seed makes it reproducible. (t-SNE starts from the PCA layout here, so it "
            "needs no seed.)",
        )
    params = ProjectionParams(method, dims, **settings)
    return params


COMPARISONS = {
    "none": "Nothing",
    "untrained": "The same model with random weights",
    "layers": "Another layer choice",
    "poolings": "Every pooling (small maps)",
}
"""What the Projections page can draw beside the main map."""


def comparison(
    points: Points,
    other: Points,
    params: ProjectionParams,
    rows: Sequence[int],
    texts: Sequence[str],
    labels: Sequence[str] | None,
    titles: tuple[str, str],
    k: int = mapquality.DEFAULT_K,
) -> list[int]:
    """A second map of the same texts under ``other`` (another model, layer choice or
    pooling) beside its figures: the mean neighbour overlap of the two (Jaccard of k-NN sets in
    the full spaces) and, for labelled texts, a linear probe's accuracy under each. Points
    selected on either map are ringed on this one (``rows`` from the main map); returns the rows
    selected here, for the main map to ring."""
    from explorer.figures.highlights import highlight_rows
    from explorer.figures.projections import projection_figure, selected_rows
    from explorer.ui.projections import fit

    flat = dataclasses.replace(params, n_components=2)
    with st.spinner(f"Running {proj.LABELS[params.method]} for the comparison…"):
        fitted = fit(other, flat)
        overlap = float(mapquality.neighbour_overlap(points.vectors(), other.vectors(), k).mean())
    state = st.session_state.get("projections.compare_map") or {}
    own = selected_rows(state.get("selection"), len(texts))
    figure = projection_figure(fitted.embedding_, texts, labels, title=titles[1])
    if rows or own:
        highlight_rows(figure, fitted.embedding_, sorted({*rows, *own}), "Selected on either map")
    left, right = st.columns([3, 2])
    left.plotly_chart(
        figure,
        key="projections.compare_map",
        on_select="rerun",
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
    right.caption(
        f"Left: {titles[1]}. {overlap:.0%} of each text's nearest neighbours are shared with "
        f"{titles[0]} on average. Select points on either map: they are ringed on both."
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
    from explorer.figures.projections import axis_titles, pooling_grid
    from explorer.layers import layers_label
    from explorer.pooling import POOLINGS
    from explorer.ui.projections import fit

    flat = dataclasses.replace(params, n_components=2)
    method = proj.LABELS[params.method]
    try:
        with st.spinner(f"Running {method} for each pooling…"):
            fitted = {p: fit(dataclasses.replace(points, pooling=p), flat) for p in POOLINGS}
    except ValueError as error:
        messages.warning(error)
        return
    st.plotly_chart(
        pooling_grid(
            {p: f.embedding_ for p, f in fitted.items()},
            {p: f.trustworthiness_ for p, f in fitted.items()},
            texts,
            labels,
            method=params.method,
            title=f"{method} of the same texts under each pooling · {layers_label(points.layers)}",
            axes={
                p: axis_titles(params.method, 2, f.explained_variance_ratio_)
                for p, f in fitted.items()
            },
        ),
        key="projections.compare_chart",
        width="stretch",
    )


def map_notice(points, params: ProjectionParams, projector: Projector, labels) -> str:
    """:func:`explorer.mapquality.map_notice` of the map of ``points``, cached (it indexes the
    map's neighbours: 0.1 s of every rerun at 20,000 points)."""
    from explorer.ui.compute import cached

    labels = None if labels is None else tuple(labels)
    return cached(
        "projections",
        ("map notice", points, params, labels),
        lambda: mapquality.map_notice(
            projector.embedding_, labels, trust=projector.trustworthiness_
        ),
    )


def cluster_download(coords, texts: Sequence[str], ids, names: dict[int, str]) -> None:
    """A CSV of every point: text, map coordinates, cluster id and cluster name."""
    from explorer.ui.widgets import csv_download

    frame = pd.DataFrame({"text": list(texts)})
    for axis in range(coords.shape[1]):
        frame[f"x{axis + 1}"] = coords[:, axis]
    frame["cluster"] = ids
    frame["cluster_name"] = [names.get(int(c), "noise") for c in ids]
    csv_download(
        st, "Points with clusters (.csv)", frame, "clusters.csv", "projections.clusters_csv"
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
    from explorer.layers import LAYER_STRATEGIES, layers_label
    from explorer.ui.model import RANDOM_PREFIX
    from explorer.ui.widgets import layers_select

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
        other = dataclasses.replace(points, model_name=RANDOM_PREFIX + points.model_name)
        titles = ("the trained model", "the same model with random weights")
    else:
        other_layers = layers_select(
            st, "projections.compare_layers", LAYER_STRATEGIES, label="Compare with layers"
        )
        other = dataclasses.replace(points, layers=other_layers)
        titles = (layers_label(points.layers).lower(), layers_label(other_layers).lower())
    try:
        comparison(points, other, params, rows, texts, labels, titles)
    except ValueError as error:
        messages.warning(error)
