"""The data of a saved map drawn point by point (explorer.maps._bigmap): the draw order, the
packed arrays, colours, and selections counted over every row against brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer.maps import (
    colour_codes,
    density_grid,
    draw_order,
    map_neighbors,
    pack_coords,
    rows_in_box,
    rows_in_lasso,
    unpack_coords,
)


def clustered(n: int = 20_000, seed: int = 0) -> np.ndarray:
    """One dense cluster of most points, a sparse spread around, and 20 far outliers."""
    rng = np.random.default_rng(seed)
    dense = rng.normal(0, 0.05, size=(n - 2_000 - 20, 2))
    sparse = rng.uniform(-3, 3, size=(2_000, 2))
    far = rng.uniform(8, 9, size=(20, 2))
    return np.vstack([dense, sparse, far]).astype(np.float32)


def test_draw_order_is_a_reproducible_permutation():
    coords = clustered(5_000)
    order = draw_order(coords)
    assert sorted(order.tolist()) == list(range(len(coords)))
    assert (draw_order(coords) == order).all()
    assert not (draw_order(coords, seed=1) == order).all()
    assert len(draw_order(np.zeros((0, 2)))) == 0


def test_a_prefix_keeps_the_sparse_points_a_random_sample_drops():
    coords = clustered()
    n, take = len(coords), 2_000
    prefix = draw_order(coords)[:take]
    random = draw_order(coords, power=1.0)[:take]  # each cell in proportion
    outliers = np.arange(n - 20, n)
    sparse = np.arange(n - 2_020, n)
    assert np.isin(outliers, prefix).sum() >= 10 > 3 * np.isin(outliers, random).sum()
    assert np.isin(sparse, prefix).sum() > 3 * np.isin(sparse, random).sum()
    # the dense cluster is still drawn denser than the space around it
    dense_share = (prefix < n - 2_020).mean()
    assert dense_share > 0.1  # 372 of 2,000 in a disc of radius ~0.15, against ~1,600 over 36


def test_packed_coordinates_round_trip_in_draw_order():
    coords = clustered(3_000)
    order = draw_order(coords)
    data = pack_coords(coords, order)
    assert len(data) == 8 * len(coords)
    assert np.array_equal(unpack_coords(data), coords[order])
    with pytest.raises(ValueError, match=r"\(n, 2\)"):
        pack_coords(np.zeros((3, 3)), np.arange(3))


def test_categories_get_a_byte_each_most_frequent_first_and_other_beyond_the_cap():
    labels = ["b"] * 5 + ["a"] * 3 + ["c"]
    colours = colour_codes(labels)
    assert colours.names == ("b", "a", "c")
    assert [colours.names[c] for c in colours.codes] == labels
    many = [f"v{i:02d}" for i in range(30)] + ["v00"] * 10
    capped = colour_codes(many)
    assert len(capped.names) == 21 and capped.names[-1] == "other"
    assert capped.names[0] == "v00" and capped.codes.max() == 20


def test_categories_of_text_tie_by_name_as_text_as_numpy_unique_ranks_them():
    rng = np.random.default_rng(1)
    labels = np.array([f"k{i}" for i in rng.integers(0, 25, 3000)], dtype=object)
    labels[::97] = None  # shown as the text "None", as before
    names, counts = np.unique(labels.astype(str), return_counts=True)
    ranked = [str(n) for n in names[np.argsort(-counts, kind="stable")]]
    colours = colour_codes(labels)
    assert list(colours.names) == ranked[:20] + ["other"]
    top = {name: code for code, name in enumerate(ranked[:20])}
    assert colours.codes.tolist() == [top.get(str(v), 20) for v in labels]
    mixed = colour_codes(np.array(["b", None, 3, "3", "b"], dtype=object))
    assert mixed.names == ("3", "b", "None") and mixed.codes.tolist() == [1, 2, 0, 0, 1]

    categorical = pd.Categorical(["b", None, "a", "b", None, "c"])
    as_objects = np.array(["b", None, "a", "b", None, "c"], dtype=object)
    from_codes, from_values = colour_codes(categorical), colour_codes(as_objects)
    assert from_codes.names == from_values.names == ("None", "b", "a", "c")
    assert from_codes.codes.tolist() == from_values.codes.tolist()


def _working_bytes(work) -> int:
    """Peak bytes allocated while ``work()`` runs (NumPy's and pandas' buffers are traced)."""
    import tracemalloc

    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_draw_order_and_the_colours_of_many_points_need_little_working_memory():
    """A million points' draw order peaked at 84 bytes a point (int64 cells, ranks and copies)
    and their labels' colours at 138 (every label copied into one fixed-width text array, then
    sorted): the server's peak, while the first session draws the map."""
    n = 200_000
    coords = np.random.default_rng(0).normal(size=(n, 2)).astype(np.float32)
    assert _working_bytes(lambda: draw_order(coords)) <= 48 * n
    labels = np.array([f"cluster {i:02d}" for i in range(20)], dtype=object)[
        np.random.default_rng(0).integers(0, 20, n)
    ]
    assert _working_bytes(lambda: colour_codes(labels)) <= 40 * n


def test_numbers_are_coded_on_a_linear_scale_with_missing_values_apart():
    colours = colour_codes(np.array([0.0, 5.0, 10.0, np.nan]))
    assert colours.numeric and (colours.low, colours.high) == (0.0, 10.0)
    assert colours.codes.tolist() == [0, 127, 254, 255]
    assert colour_codes(np.array([3, 3])).codes.tolist() == [0, 0]


def test_density_grid_counts_every_point():
    coords = clustered(4_000)
    grid, bounds = density_grid(coords, bins=40)
    assert grid.shape == (40, 40) and grid.dtype == np.uint8
    assert bounds[0] == pytest.approx(coords[:, 0].min())
    counts, _, _ = np.histogram2d(coords[:, 1], coords[:, 0], bins=40)
    assert ((grid > 0) == (counts > 0)).all()
    assert grid.max() == 254 and grid[counts == counts.max()].min() == 254


def test_box_selection_counts_every_row_as_brute_force():
    coords = np.random.default_rng(3).uniform(-1, 1, size=(50_000, 2))
    found = rows_in_box(coords, [0.5, -0.2], [-0.7, 0.1])
    brute = [i for i, (x, y) in enumerate(coords) if -0.2 <= x <= 0.5 and -0.7 <= y <= 0.1]
    assert found.tolist() == brute


def _inside_brute(x: float, y: float, px, py) -> bool:
    inside = False
    for i in range(len(px)):
        ax, ay, bx, by = px[i], py[i], px[i - 1], py[i - 1]
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            inside = not inside
    return inside


def test_lasso_selection_counts_every_row_as_brute_force():
    rng = np.random.default_rng(4)
    coords = rng.uniform(-1, 1, size=(6_000, 2))
    angles = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    radius = 0.5 + 0.3 * np.sin(5 * angles)  # a star: concave, many edges
    px, py = radius * np.cos(angles), radius * np.sin(angles)
    found = rows_in_lasso(coords, px, py)
    brute = [i for i, (x, y) in enumerate(coords) if _inside_brute(x, y, px, py)]
    assert found.tolist() == brute
    assert 0 < len(found) < len(coords)
    assert len(rows_in_lasso(coords, [5, 6, 6], [5, 5, 6])) == 0
    with pytest.raises(ValueError, match="three vertices"):
        rows_in_lasso(coords, [0, 1], [0, 1])


def test_map_neighbors_are_the_nearest_other_points():
    coords = np.array([[0, 0], [1, 0], [0, 2], [5, 5], [0.5, 0]], dtype=np.float32)
    assert map_neighbors(coords, 0, 2).tolist() == [4, 1]
    assert map_neighbors(coords, 3, 10).tolist() == [2, 1, 4, 0]
    with pytest.raises(ValueError, match="No point 9"):
        map_neighbors(coords, 9, 2)
