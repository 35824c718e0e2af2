"""A saved map of more rows than a plotly figure draws, every row a point (issue 38): the
checkbox that chooses it, the map (:mod:`._bigmap`) and its panel in a fragment, a clicked
point's nearest texts over every row of the store, and a box or lasso selection counted over
every row of the map, with its first texts and its CSV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from explorer import maps
from explorer.choice import VectorChoice
from explorer.data import export
from explorer.figures.projections import projection_title
from explorer.figures.tables import text_table_html
from explorer.maps import DEFAULT_K, ProjectionParams
from explorer.ui import messages
from explorer.ui.projection_maps._bigmap import (
    DRAWN_KEY,
    BigData,
    big_colours,
    big_data,
    show,
    take_event,
)
from explorer.ui.projection_maps._saved import saved_map_of, store_first_token
from explorer.ui.widgets import URL

EVERY_ROW_KEY = "projections.every_row"
DENSITY_KEY = "projections.big_density"
COLOUR_KEY = "projections.colour"
CSV_KEY = "projections.big_csv"
FIRST_TEXTS = 20
"""Texts of a selection listed on the page (the CSV has every selected row)."""
CSV_ROWS = 200_000
"""Most rows of a selection written to its CSV (the first, in the map's order)."""


def every_row_chosen(points, params: ProjectionParams, compare: str) -> bool:
    """Whether the map is drawn whole by the big map: a saved 2-D map with more rows than the
    page draws as plotly points, no second map beside it, and the checkbox (shown then) on."""
    found = saved_map_of(points, params)
    if found is None or len(found.rows) <= len(points.rows) or compare != "none":
        return False
    return st.checkbox(
        f"Every row ({len(found.rows):,} points)",
        value=True,
        key=EVERY_ROW_KEY,
        bind=URL,
        help=f"Draw every row of the saved map in the browser (WebGL; zoom in to see every "
        f"point of a region), or, unticked, {len(points.rows):,} of them at random over a "
        "grey density of all of them.",
    )


def every_row_map(points, params: ProjectionParams, axes: list[str]) -> None:
    """The big map of the saved map ``points`` come from, with its panel (a fragment: a click
    or a selection reruns only them)."""
    whole = saved_map_of(points, params)
    title = projection_title(
        params.method,
        len(whole.rows),
        layers=points.choice.layers,
        pooling=points.choice.pooling,
        cls_token=store_first_token(points.path),  # "<s> token" for a MPNet corpus
    )
    _every_row_fragment(points, params, axes, title)


def _every_row(points, params: ProjectionParams, axes: list[str], title: str) -> None:
    method, pooling, layers = params.method, points.choice.pooling, points.choice.layers
    colour = st.session_state.get(COLOUR_KEY, "labels")
    try:
        data = big_data(points.path, method, pooling, layers)
        colours = big_colours(points.path, method, pooling, layers, colour)
    except ValueError as error:
        messages.error(error)
        return
    picked = take_event()
    chart, panel = st.columns([3, 2])
    density = chart.checkbox(
        "Density layer",
        value=True,
        key=DENSITY_KEY,
        help="Where the rows crowd, counted over every row on a grid and shaded grey under "
        "the points (log scale).",
    )
    marks = None
    with panel:
        if picked is None:
            st.info(
                "Click a point to list its nearest texts in the full vector space, or draw a "
                "box or lasso: every row inside counts, not only the points drawn."
            )
        elif picked["kind"] == "click":
            marks = _point_panel(points, params, data, int(picked["position"]))
        else:
            _selection_panel(points, params, data, picked)
    with chart:
        show(data, colours, density=density, title=title, axes=axes, marks=marks)
    if st.session_state.get(DRAWN_KEY):
        _ready_for_clicks(points)
        if colour in ("kept", "clusters"):
            st.caption(
                "Neighbours kept and clusters need every row's neighbours in the full space: "
                "this map of every row is coloured by the labels instead."
            )


_every_row_fragment = st.fragment(_every_row)


def _ready_for_clicks(points) -> None:
    """Read what a click's panel needs (the store's neighbour index and its texts) once the
    page has drawn the map (not while it draws: both would share the CPU), before the first
    click: both are server-wide, so only the first session to draw the map waits for them."""
    from explorer.ui.compute import cached, open_store

    neighbour_index(points.path, points.choice)
    corpus = open_store(points.path)
    cached("corpora", ("store texts", points.path), corpus.text_columns)


def _positions(data: BigData, rows: np.ndarray) -> np.ndarray:
    """Positions in the map of store ``rows`` that are on it (others left out)."""
    order = np.argsort(data.rows, kind="stable")
    where = np.clip(np.searchsorted(data.rows, rows, sorter=order), 0, len(order) - 1)
    found = order[where]
    return found[data.rows[found] == rows]


def _point_panel(points, params: ProjectionParams, data: BigData, drawn: int) -> dict | None:
    """The panel of the point at draw-order position ``drawn``: its text, label and nearest
    texts over every row of the store; returns the rings to draw (the point, its neighbours
    that are on the map)."""
    from explorer.data.store.saved_maps import inspect_saved
    from explorer.ui.compute import cached, open_store

    if not 0 <= drawn < len(data.order):
        return None
    position = int(data.order[drawn])
    corpus = open_store(points.path)
    saved = saved_map_of(points, params)
    index = neighbour_index(points.path, points.choice)
    found = cached(
        "projections",
        (
            "big inspect",
            points.path,
            params.method,
            points.choice.pooling,
            points.choice.layers,
            position,
        ),
        lambda: inspect_saved(corpus, saved, position, DEFAULT_K, points.choice, index=index),
    )
    every = cached("corpora", ("store texts", points.path), corpus.text_columns)
    frame = every.take([found.row, *map(int, found.indices)])
    texts = frame[corpus.text_column].astype(str).tolist()
    label = corpus.label_column
    st.markdown(f"**Nearest texts in the full space** to row {found.row:,}:")
    st.markdown(f"> {messages.escape(texts[0])}")
    if label:
        st.caption(f"Label: {messages.escape(str(frame[label].iloc[0]))}")
    on_map = set(found.on_map.tolist())
    table = {
        "row": [int(i) for i in found.indices],
        "cosine": [float(s) for s in found.scores],
        "on the map too": [int(i) in on_map for i in found.indices],
        **({"label": frame[label].astype(str).tolist()[1:]} if label else {}),
        "text": texts[1:],
    }
    titles = {"row": "Row", "cosine": "Cosine", "on the map too": "On map", "label": "Label"}
    st.html(
        text_table_html(
            pd.DataFrame(table),
            "projections.neighbours",
            titles={**titles, "text": "Text"},
            bars={"cosine": (0.0, 1.0)},
        )
    )
    st.caption(
        f"{found.summary()} Searched over all {len(corpus):,} rows of the store"
        + (
            " (through its neighbour index, the candidates re-ranked by exact cosine)"
            if index is not None
            else ""
        )
        + "; the star on the map is the point, the rings are those of its neighbours the "
        "map holds."
    )
    near = _positions(data, found.indices)
    xs = [float(data.coords[position, 0]), *map(float, data.coords[near, 0])]
    ys = [float(data.coords[position, 1]), *map(float, data.coords[near, 1])]
    return {"x": xs, "y": ys, "symbol": ["star-open"] + ["circle-open"] * len(near)}


@st.cache_resource(show_spinner="Reading the store's neighbour index…", max_entries=2)
def neighbour_index(path: str, choice: VectorChoice):
    """The saved neighbour index of the store at ``path`` (:func:`explorer.data.store.ann.
    load_index`), read once per server and shared by every session, or ``None`` (exact
    search)."""
    from explorer.data.store.ann import load_index
    from explorer.ui.compute import open_store

    return load_index(open_store(path), choice)


def selected_positions(data: BigData, picked: dict) -> np.ndarray:
    """Positions in the map of every row inside the box or lasso ``picked``."""
    if picked["kind"] == "box":
        return maps.rows_in_box(data.coords, picked["x"], picked["y"])
    return maps.rows_in_lasso(data.coords, picked["x"], picked["y"])


def _selection_panel(points, params: ProjectionParams, data: BigData, picked: dict) -> None:
    from explorer.data.store.saved_maps import selection_frame
    from explorer.ui.compute import cached, open_store

    try:
        geometry = (picked["kind"], tuple(map(float, picked["x"])), tuple(map(float, picked["y"])))
        inside = cached(
            "projections",
            (
                "big selection",
                points.path,
                params.method,
                points.choice.pooling,
                points.choice.layers,
                geometry,
            ),
            lambda: selected_positions(data, picked).astype(np.int32),
        )
    except (KeyError, TypeError, ValueError) as error:
        messages.warning(f"That selection cannot be read: {error}")
        return
    corpus = open_store(points.path)
    saved = saved_map_of(points, params)
    share = len(inside) / max(len(data.rows), 1)
    st.markdown(f"**{len(inside):,} rows selected** ({share:.1%} of the map's {len(data.rows):,})")
    if not len(inside):
        return
    every = cached("corpora", ("store texts", points.path), corpus.text_columns)
    rows = data.rows[inside[:FIRST_TEXTS]]
    first = every.take(rows).astype(str)
    first.insert(0, "row", rows)
    st.html(
        text_table_html(
            first.rename(columns={corpus.text_column: "text"}),
            "projections.selection",
            titles={"row": "Row", "text": "Text"},
        )
    )
    kept = min(len(inside), CSV_ROWS)
    st.download_button(
        f"Download the selection (CSV, {kept:,} rows)",
        lambda: export.to_csv_bytes(selection_frame(corpus, saved, inside[:kept])),
        file_name=f"{params.method}-selection.csv",
        mime="text/csv",
        on_click="ignore",
        key=CSV_KEY,
        icon=":material/download:",
        help="Every selected row (store row, map coordinates and every column of the data)"
        + (f"; the first {CSV_ROWS:,} of {len(inside):,}." if kept < len(inside) else "."),
    )
