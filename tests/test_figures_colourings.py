"""A map coloured by a numeric column, density contours under it, and the map as one
standalone HTML file."""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer.figures.density import add_contours, contour_trace, density_grid
from explorer.figures.frozen import FrozenFigure
from explorer.figures.projections import projection_figure
from explorer.figures.standalone import size_label, standalone_html, standalone_size


def _rows(figure) -> list[int]:
    return sorted(
        int(i)
        for trace in figure.data
        for i in (() if trace.customdata is None else trace.customdata)
    )


def test_numeric_column_gets_its_own_range_a_titled_colour_bar_and_grey_empty_cells():
    coords = np.random.default_rng(0).normal(size=(30, 2))
    values = np.linspace(10, 40, 30)
    values[[4, 9]] = np.nan
    figure = projection_figure(
        coords, [f"t{i}" for i in range(30)], values=values, values_title="stars", share=False
    )
    scale, empty = figure.data
    assert scale.marker.colorbar.title.text == "stars"
    assert scale.marker.cmin == pytest.approx(10) and scale.marker.cmax == pytest.approx(40)
    assert scale.marker.colorscale[0][1] == "#440154"  # Viridis, not the shares' red-green
    assert list(empty.customdata) == [4, 9] and empty.name == "no value" and empty.showlegend
    assert _rows(figure) == list(range(30))
    assert "stars: 10<br>t0" in scale.text[0] and "stars: no value" in empty.text[0]
    assert figure.layout.legend.orientation == "h"  # the colour bar stands at the right


def test_shares_keep_their_fixed_scale_and_refuse_nan():
    coords = np.zeros((3, 2)) + np.arange(3)[:, None]
    figure = projection_figure(coords, ["a", "b", "c"], values=np.array([0.2, 0.5, 1.0]))
    marker = figure.data[0].marker
    assert (marker.cmin, marker.cmax) == (0.0, 1.0) and marker.colorbar.tickformat == ".0%"
    with pytest.raises(ValueError, match="0 to 1"):
        projection_figure(coords, ["a", "b", "c"], values=np.array([0.2, np.nan, 1.0]))
    with pytest.raises(ValueError, match="values"):
        projection_figure(coords, ["a", "b", "c"], values=np.zeros(2), share=False)


def test_density_grid_counts_the_points_and_peaks_where_they_crowd():
    rng = np.random.default_rng(0)
    crowd = rng.normal(loc=(5, 5), scale=0.3, size=(300, 2))
    few = rng.normal(loc=(-5, 0), scale=0.3, size=(30, 2))
    z, x, y = density_grid(np.vstack([crowd, few]), bins=80)
    assert z.shape == (80, 80) and len(x) == len(y) == 80
    assert z.sum() == pytest.approx(330, rel=0.01)  # smoothing keeps (almost) every point
    row, col = np.unravel_index(np.argmax(z), z.shape)
    assert abs(x[col] - 5) < 0.5 and abs(y[row] - 5) < 0.5  # x along the second axis
    edges = max(z[0].max(), z[-1].max(), z[:, 0].max(), z[:, -1].max())
    assert edges < 0.01 * z.max()  # below the lowest contour (a tenth of the peak): they close
    with pytest.raises(ValueError, match="2 or more"):
        density_grid(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="NaN"):
        density_grid(np.array([[0.0, np.nan], [1.0, 1.0]]))


def test_contours_go_under_the_points_without_hover():
    coords = np.random.default_rng(0).normal(size=(50, 2))
    figure = add_contours(projection_figure(coords, ["t"] * 50, ["a", "b"] * 25), coords)
    assert figure.data[0].type == "contour" and figure.data[0].hoverinfo == "skip"
    assert [trace.type for trace in figure.data[1:]] == ["scatter", "scatter"]
    assert _rows(figure) == list(range(50))
    trace = contour_trace(coords)
    assert trace.contours.start == pytest.approx(0.1 * np.asarray(trace.z).max(), rel=1e-5)


def test_standalone_html_holds_the_points_and_plotly_and_fetches_nothing():
    coords = np.array([[0.125, 1.5], [2.25, -3.75], [4.0, 0.0]])
    texts = ["first <b>text</b>", "second", "a third"]
    figure = FrozenFigure.of(
        projection_figure(coords, texts, ["x", "y", "x"], title="PCA of 3<br><sup>mean</sup>")
    )
    page = standalone_html(figure).decode("utf-8")
    assert page.startswith("<!doctype html>") and "<title>PCA of 3 · mean</title>" in page
    assert not re.search(r"<script[^>]*\ssrc=", page)  # plotly.js is inside, not fetched
    assert "Plotly.newPlot" in page and len(page) > 3_000_000
    # the hover text, escaped as on the page (and "/" as JSON in a script writes it)
    assert "first &lt;b&gt;text&lt;\\u002fb&gt;" in page
    assert '"name":"x"' in page and '"name":"y"' in page
    # the coordinates: plotly writes arrays as base64, so decode what the page holds
    import base64
    import json

    spec = re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*(\[.*?\]),\s*\{", page, re.S)
    traces = json.loads(spec.group(1))
    xs = []
    for trace in traces:
        x = trace["x"]
        if isinstance(x, dict):
            x = np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"]).tolist()
        xs += x
    assert sorted(xs) == sorted(coords[:, 0].tolist())


@pytest.mark.parametrize("n", [3, 2_000])
def test_the_size_on_the_button_is_the_file_s_within_a_kilobyte(n):
    rng = np.random.default_rng(n)
    texts = [f"text {i} " + "word " * int(rng.integers(1, 40)) for i in range(n)]
    labels = [str(i % 7) for i in range(n)]
    figure = FrozenFigure.of(
        projection_figure(rng.normal(size=(n, 2)), texts, labels, title="PCA <b>of</b> n")
    )
    assert abs(standalone_size(figure) - len(standalone_html(figure))) < 1_000


def test_size_label():
    assert size_label(4_870_000) == "4.9 MB"
    assert size_label(820_400) == "820 kB"
    assert size_label(12) == "1 kB"


def _longest_drawn(figure: dict) -> int:
    """The longest string plotly draws in ``figure`` (trace names, hover texts, titles);
    ``legendgroup`` and ``uid`` are identifiers, ``bdata`` numbers, ``template`` plotly's."""

    def walk(value):
        if isinstance(value, str):
            yield len(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in ("legendgroup", "uid", "bdata", "template"):
                    yield from walk(item)
        elif isinstance(value, list | tuple | np.ndarray):
            for item in value:
                yield from walk(item)

    return max(walk(figure), default=0)


def test_long_values_and_names_are_shortened_in_the_figure_and_its_file():
    """Issue 32: legend names of 10-100 K characters kept a browser busy for minutes."""
    n = 200
    coords = np.random.default_rng(0).normal(size=(n, 2))
    texts = [f"text {i}" for i in range(n)]
    blobs = [f"{i} " + "x" * 100_000 for i in range(19)]
    labels = [blobs[i % 19] for i in range(n)]
    by_label = projection_figure(coords, texts, labels, legend_title="blob " + "y" * 100_000)
    values = np.linspace(0, 1, n)
    by_value = projection_figure(
        coords, texts, labels, values=values, values_title="z" * 100_000, share=False
    )
    for figure in (by_label, by_value):
        spec = figure.to_plotly_json()
        assert _longest_drawn(spec) < 600  # a hover: its text, and the label shortened
        assert len(standalone_html(figure)) - standalone_size(go.Figure()) < 200_000
    names = [trace.name for trace in by_label.data]
    assert len(set(names)) == 19 and max(map(len, names)) <= 80
    assert all(name.endswith("…") for name in names)


def test_quotes_show_as_quotes_and_tags_as_text():
    """Issue 32: a quote in a label showed as &quot; (plotly decodes &amp; &lt; &gt; and
    numeric entities, not &quot;)."""
    coords = np.random.default_rng(0).normal(size=(4, 2))
    labels = ['say "hi"', "<script>alert(1)</script>", 'say "hi"', "a & b"]
    figure = projection_figure(coords, ["t"] * 4, labels, legend_title='the "kind"')
    names = sorted(trace.name for trace in figure.data)
    assert names == ["&lt;script&gt;alert(1)&lt;/script&gt;", "a &amp; b", 'say "hi"']
    assert figure.layout.legend.title.text == 'the "kind"'
    values = projection_figure(
        coords, ["t"] * 4, labels, values=np.arange(4.0), values_title='a "b"', share=False
    )
    assert values.data[0].marker.colorbar.title.text == 'a "b"'
    assert '<i>say "hi"</i>' in values.data[0].text[0]
    assert "&quot;" not in standalone_html(values).decode("utf-8").split("Plotly.newPlot")[-1]
