"""Marks over a map: rings on the neighbours, a star on the inspected point, linked rows, and
the close-up drawn beside a map too large to redraw."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer.figures.highlights import (
    INSPECTED,
    NEIGHBOURS,
    highlight_rows,
    neighbour_traces,
    neighbourhood_figure,
    rows_trace,
)

COORDS = np.random.default_rng(0).normal(size=(5_000, 2)).astype(np.float32)


def test_neighbour_traces_ring_the_rows_and_star_the_focus_with_their_row_indices():
    rings, star = neighbour_traces(COORDS, 7, [3, 9, 11])
    assert (rings.name, star.name) == (NEIGHBOURS, INSPECTED)
    assert list(rings.customdata) == [3, 9, 11] and list(star.customdata) == [7]
    np.testing.assert_allclose(rings.x, COORDS[[3, 9, 11], 0])
    np.testing.assert_allclose(star.y, COORDS[[7], 1])


def test_linked_rows_are_ringed_under_the_given_name():
    trace = rows_trace(COORDS, [1, 2], "Selected on the other map")
    assert trace.name == "Selected on the other map" and list(trace.customdata) == [1, 2]
    assert highlight_rows(go.Figure(), COORDS, [1], "x").data[0].name == "x"


def test_rows_outside_the_map_or_3d_coordinates_are_refused():
    with pytest.raises(ValueError, match="Rows must lie in 0..4999"):
        neighbour_traces(COORDS, 7, [5_000])
    with pytest.raises(ValueError, match=r"\(n, 2\)"):
        rows_trace(np.zeros((4, 3)), [1], "x")


def test_the_closeup_frames_the_point_and_its_neighbours_with_the_points_around_them():
    focus, rows = 0, np.argsort(np.linalg.norm(COORDS - COORDS[0], axis=1))[1:11]
    figure = neighbourhood_figure(COORDS, focus, rows, axes=("PC1", "PC2"), max_points=200)
    spec = figure.to_dict()
    go.Figure(spec)  # valid for plotly
    others, rings, star = spec["data"]
    assert (rings["name"], star["name"]) == (NEIGHBOURS, INSPECTED)
    assert sorted(rings["customdata"]) == sorted(rows) and list(star["customdata"]) == [focus]
    low, high = spec["layout"]["xaxis"]["range"], spec["layout"]["yaxis"]["range"]
    marked = COORDS[[focus, *rows]]
    assert low[0] < marked[:, 0].min() and marked[:, 0].max() < low[1]
    assert high[0] < marked[:, 1].min() and marked[:, 1].max() < high[1]
    # grey points: inside the window, neither the focus nor a neighbour, at most max_points
    assert 0 < len(others["customdata"]) <= 200
    assert not set(others["customdata"]) & {focus, *rows}
    inside = COORDS[others["customdata"]]
    assert (inside[:, 0] >= low[0]).all() and (inside[:, 0] <= low[1]).all()
    assert spec["layout"]["xaxis"]["title"]["text"] == "PC1" and spec["layout"]["height"] == 320


def test_the_closeup_of_a_point_alone_still_has_a_window():
    coords = np.zeros((3, 2))
    low, high = neighbourhood_figure(coords, 0, [1, 2]).to_dict()["layout"]["xaxis"]["range"]
    assert low < 0 < high
