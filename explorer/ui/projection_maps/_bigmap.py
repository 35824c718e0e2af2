"""Every row of a saved map, drawn point by point in the browser (issue 38): a custom component
(``bigmap.html``, plotly.js's WebGL scatter fed typed arrays) and what the server sends it.

Streamlit 1.67 (read in its installed source): a v1 component (``declare_component(path=)``)
takes ``bytes`` arguments as protobuf bytes, handed to the page as a ``Uint8Array``, so the
coordinates travel as raw float32 (8 bytes a point), not JSON. The server's message cache
(``global.minCachedMessageSize``, 10 kB) sends an element again as a reference only when it is
byte for byte the same, and one component is one element: a new colouring would resend the
coordinates with it. So each array is named by a hash of its bytes, the page keeps what it
received while it lives, and the session remembers which names it sent (:data:`HELD_KEY`):
the coordinates go once, a colouring once, the density grid once; a rerun sends only names.
A page that lost them (the page left and opened again) asks again, one rerun; the
arguments' JSON names the arrays attached, since Streamlit posts new arguments to the page
only when their JSON changed (its ``ComponentInstance`` compares the JSON, not the bytes).
The component's folder (the page and plotly.min.js from the plotly package: no CDN, no build
step) is written once per server into a private temporary folder, since Streamlit serves a
component's files only from inside its folder.

The data (:class:`BigData`, :class:`BigColours`) is computed once per server and map; the
questions about it (what is in a box or a lasso, a point's neighbours) are the library's
(:mod:`explorer.maps`, :mod:`explorer.data.store.saved_maps`)."""

from __future__ import annotations

import atexit
import functools
import hashlib
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st
from streamlit.components.v1 import declare_component

from explorer import maps
from explorer.figures.projections import palette

if TYPE_CHECKING:
    import pandas as pd

COMPONENT_KEY = "projections.bigmap"
HELD_KEY = "projections._bigmap_held"
"""The names of the arrays this session's page holds (sent, and not asked for again)."""
EVENT_KEY = "projections._bigmap_event"
"""The id of the component's last event the server acted on."""
DRAWN_KEY = "projections._bigmap_drawn"
"""Set once this session's page has drawn a map (its ``{"kind": "drawn"}`` event)."""
PICKED_KEY = "projections._bigmap_picked"
"""The last click or selection on the map: ``{"kind": "click", "position": i}``, a box
``{"kind": "box", "x": [x0, x1], "y": [y0, y1]}`` or a lasso (``x``, ``y``: its vertices)."""
HEIGHT = 620
MARKER_SIZE = 3
NUMERIC_SCALE = (
    "#440154", "#482878", "#3e4989", "#31688e", "#26828e",
    "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725",
)  # fmt: skip
"""Viridis, as plotly's ``sequential.Viridis``: the colour scale of a numeric column."""
MISSING_COLOUR = "#bbbbbb"
PAGE = Path(__file__).with_name("bigmap.html")


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


@dataclass(frozen=True, eq=False)
class BigData:
    """A saved map for the component: ``coords`` ``(n, 2)`` float32 and ``rows`` ``(n,)`` (the
    store rows) in the saved map's order, ``order`` the draw order (:func:`maps.draw_order`),
    ``key`` the hash naming the packed coordinates, the density ``grid`` over ``bounds``."""

    coords: np.ndarray
    rows: np.ndarray
    order: np.ndarray
    key: str
    grid: np.ndarray
    bounds: tuple[float, ...]
    grid_key: str = field(default="")

    def packed(self) -> bytes:
        """The coordinates in draw order, as the page reads them (float32 x, y pairs)."""
        return maps.pack_coords(self.coords, self.order)


@dataclass(frozen=True, eq=False)
class BigColours:
    """One colour code per point in draw order (``codes``, uint8), the hash naming them, and
    the ``legend`` the page draws (names and colours, or a numeric scale)."""

    codes: np.ndarray
    key: str
    legend: dict


def big_data(path: str, method: str, pooling: str, layers) -> BigData:
    """:class:`BigData` of the saved ``method`` map of the store at ``path``, cached."""
    from explorer.choice import VectorChoice
    from explorer.ui.compute import cached
    from explorer.ui.projection_maps._saved import saved_map

    def build() -> BigData:
        saved = saved_map(path, method, VectorChoice(pooling, layers))
        coords = np.ascontiguousarray(saved.coords, dtype=np.float32)
        order = maps.draw_order(coords).astype(np.int32)
        grid, bounds = maps.density_grid(coords)
        key = _digest(maps.pack_coords(coords, order))
        grid_key = _digest(grid.tobytes() + repr(bounds).encode())
        return BigData(coords, np.asarray(saved.rows), order, key, grid, bounds, grid_key)

    return cached("corpora", ("big map", path, method, pooling, layers), build)


def colour_values(
    path: str, rows: np.ndarray, colour: str
) -> tuple[str, np.ndarray | pd.Categorical | None]:
    """What ``colour`` (a "Colour by" option) colours the store's ``rows`` by: ``(title,
    values)``, texts as a ``pd.Categorical`` (a million Python strings were the server's
    peak); labels for any option the big map does not offer (neighbours kept, clusters:
    they need every row's neighbours in the full space), ``None`` values for one colour."""
    from explorer.ui.compute import open_store
    from explorer.ui.projection_maps._colours import TEXT_LENGTH, column_of

    corpus = open_store(path)
    name = column_of(colour)
    if name is not None:
        return name, corpus.column(name, categorical=True)[rows]
    if colour == TEXT_LENGTH:
        return "Length (words)", corpus.text_lengths()[rows]
    if corpus.label_column is None:
        return "Label", None
    return corpus.label_column, corpus.column(corpus.label_column, categorical=True)[rows]


def big_colours(path: str, method: str, pooling: str, layers, colour: str) -> BigColours:
    """:class:`BigColours` of the big map under the "Colour by" option ``colour``, cached."""
    from explorer.ui.compute import cached

    def build() -> BigColours:
        data = big_data(path, method, pooling, layers)
        title, values = colour_values(path, data.rows, colour)
        if values is None:
            values = np.full(len(data.rows), "all rows", dtype=object)
        found = maps.colour_codes(values)
        codes = np.ascontiguousarray(found.codes[data.order])
        if found.numeric:
            middle = (found.low + found.high) / 2
            legend = {
                "title": title,
                "scale": list(NUMERIC_SCALE),
                "missing": MISSING_COLOUR,
                "tickvals": [0, 127, 254],
                "ticktext": [f"{v:,.3g}" for v in (found.low, middle, found.high)],
            }
        else:
            colours = palette(len(found.names))
            if found.names[-1] == "other" and len(found.names) > maps.MAX_CATEGORIES:
                colours[-1] = MISSING_COLOUR
            legend = {"title": title, "names": list(found.names), "colours": colours}
        key = _digest(codes.tobytes() + repr(sorted(legend.items())).encode())
        return BigColours(codes, key, legend)

    return cached("corpora", ("big colours", path, method, pooling, layers, colour), build)


@functools.cache
def component_folder() -> str:
    """A private folder (made once per server, removed at exit) holding the component's page
    as ``index.html`` and plotly.js from the plotly package."""
    import plotly

    folder = Path(tempfile.mkdtemp(prefix="explorer-bigmap-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    shutil.copyfile(PAGE, folder / "index.html")
    shutil.copyfile(
        Path(plotly.__file__).parent / "package_data" / "plotly.min.js", folder / "plotly.min.js"
    )
    return str(folder)


def take_event() -> dict | None:
    """Act on the component's latest event, once: a page asking for arrays (their names are
    forgotten, so this run sends them), a click or selection (kept in :data:`PICKED_KEY`;
    a cleared selection drops it), or a page that has drawn its map (:data:`DRAWN_KEY`).
    Returns the pick in force."""
    event = st.session_state.get(COMPONENT_KEY)
    if isinstance(event, dict) and event.get("id") != st.session_state.get(EVENT_KEY):
        st.session_state[EVENT_KEY] = event.get("id")
        kind = event.get("kind")
        if kind == "need":
            held = st.session_state.setdefault(HELD_KEY, set())
            held.difference_update(str(k) for k in event.get("keys") or [])
        elif kind in ("click", "box", "lasso"):
            st.session_state[PICKED_KEY] = event
        elif kind == "clear":
            st.session_state.pop(PICKED_KEY, None)
        elif kind == "drawn":
            st.session_state[DRAWN_KEY] = True
    return st.session_state.get(PICKED_KEY)


def _once(name: str, data) -> bytes:
    """``data()`` when the page does not hold the array called ``name`` yet, else nothing."""
    held: set = st.session_state.setdefault(HELD_KEY, set())
    if name in held:
        return b""
    held.add(name)
    return data()


def show(
    data: BigData,
    colours: BigColours,
    *,
    density: bool,
    title: str,
    axes: list[str],
    marks: dict | None = None,
) -> None:
    """The component: the map of ``data`` coloured by ``colours``, with the density layer when
    ``density``, and rings at ``marks`` (``{"x", "y", "symbol"}`` lists: the inspected point
    and its neighbours). Each array is sent only when the page does not hold it."""
    component = declare_component("bigmap", path=component_folder())
    arrays = {
        "coords": _once(data.key, data.packed),
        "colours": _once(colours.key, colours.codes.tobytes),
        "density_grid": _once(data.grid_key, data.grid.tobytes) if density else b"",
    }
    component(
        # Streamlit posts new arguments to the page only when their JSON part changed: name
        # the arrays attached, or arrays sent again on request would never reach it
        attached=[name for name, array in arrays.items() if array],
        coords_key=data.key,
        colour_key=colours.key,
        legend=colours.legend,
        density=density,
        density_key=data.grid_key,
        bounds=list(data.bounds),
        bins=int(data.grid.shape[0]),
        overview=maps.OVERVIEW_POINTS,
        budget=maps.VIEW_POINTS,
        size=MARKER_SIZE,
        height=HEIGHT,
        title=title,
        axes=list(axes),
        marks=marks or {"x": [], "y": [], "symbol": []},
        key=COMPONENT_KEY,
        default=None,
        **arrays,
    )
