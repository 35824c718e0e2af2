"""explorer.figures.axes: coordinates in the hover, axis titles naming the words, escaped."""

from __future__ import annotations

import numpy as np

from explorer.figures.axes import axes_figure


def test_axes_figure_titles_hovers_and_ends():
    coords = np.array([[0.0, 1.0], [2.0, 3.0], [1.0, -1.0]])
    figure = axes_figure(
        coords,
        ["<i>a</i>", "b", "c"],
        ["x", "y", "x"],
        x_title="money → <river>",
        y_title="first principal component of the rest",
        ends={"money": (0.5, 0.0), "<river>": (1.5, 0.2)},
    )
    assert figure.layout.xaxis.title.text == "money → &lt;river&gt;"
    points = [t for t in figure.data if t.name != "Axis ends"]
    assert all("x %{x:.3f} · y %{y:.3f}" in t.hovertemplate for t in points)
    assert any("&lt;i&gt;a&lt;/i&gt;" in h for t in points for h in t.text)
    ends = figure.data[-1]
    assert list(ends.text) == ["money", "&lt;river&gt;"]
    assert sorted(int(r) for t in points for r in t.customdata) == [0, 1, 2]


def test_axes_notice_names_the_labels_furthest_toward_each_end():
    from explorer.figures.axes import axes_notice

    x = np.array([-1.0, -0.5, 0.2, 0.4, 1.5, 2.5])
    labels = ["a", "a", "b", "b", "c", "c"]
    said = axes_notice(x, labels, ("money", "river"))
    assert "“c” lie furthest toward “river” (mean 2.00)" in said
    assert "“a” furthest toward “money” (mean -0.75): 2.75 apart" in said
    alone = axes_notice(x, None, ("money", "river"))  # no labels: the spread along x
    assert "from -1.00 (nearest “money”) to 2.50 (nearest “river”)" in alone
