""" "Download this map" in a real browser: the standalone HTML file opens with every network
request refused (offline), draws every point and shows a point's text on hover, in SVG and in
WebGL (more than 2,000 points)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.figures.density import add_contours
from explorer.figures.frozen import FrozenFigure
from explorer.figures.projections import WEBGL_ABOVE, projection_figure
from explorer.figures.standalone import standalone_html
from harness.browser import Tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOVER = ".hoverlayer .hovertext"


def _write(tmp_path: Path, n: int) -> tuple[Path, np.ndarray]:
    coords = np.random.default_rng(0).normal(size=(n, 2))
    texts = [f"Remark number {i} of the map" for i in range(n)]
    labels = [("dogs", "cats")[i % 2] for i in range(n)]
    figure = projection_figure(coords, texts, labels, title=f"A map of {n} points")
    file = tmp_path / f"map-{n}.html"
    file.write_bytes(standalone_html(FrozenFigure.of(add_contours(figure, coords))))
    return file, coords


def _open_offline(tab: Tab, file: Path) -> list[str]:
    """Open ``file`` with every request but the file itself refused; the refused URLs."""
    refused: list[str] = []

    def handle(route):
        if route.request.url == file.as_uri():
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    tab.page.route("**/*", handle)
    tab.page.goto(file.as_uri())
    tab.page.wait_for_function("() => document.querySelector('.js-plotly-plot')?._fullLayout")
    return refused


def _pixel(page, x: float, y: float) -> tuple[float, float]:
    """The page pixel of map coordinates ``(x, y)`` (plotly's own axis conversion)."""
    return page.evaluate(
        """([x, y]) => {
            const gd = document.querySelector('.js-plotly-plot');
            const box = gd.querySelector('.nsewdrag').getBoundingClientRect();
            const layout = gd._fullLayout;
            return [box.left + layout.xaxis.l2p(x), box.top + layout.yaxis.l2p(y)];
        }""",
        [x, y],
    )


@pytest.mark.parametrize("n", [40, WEBGL_ABOVE + 500], ids=["svg", "webgl"])
def test_the_map_file_opens_offline_and_hovers(tab: Tab, tmp_path: Path, n: int) -> None:
    file, coords = _write(tmp_path, n)
    refused = _open_offline(tab, file)
    page = tab.page
    assert refused == [], refused  # nothing fetched: plotly.js is in the file
    drawn = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._fullData"
        ".filter(t => t.type !== 'contour').reduce((s, t) => s + t._length, 0)"
    )
    assert drawn == n
    assert page.locator(".contourlayer path, .contour path").count() > 0  # contours drawn
    row = int(np.argmax(coords[:, 0]))  # the rightmost point: nothing on top of it
    page.mouse.move(*_pixel(page, *coords[row]))
    hover = page.locator(HOVER)
    hover.first.wait_for(timeout=10_000)
    assert f"Remark number {row} of the map" in hover.first.text_content()
    assert page.title() == f"A map of {n} points"
    assert not tab.console_errors, tab.report()
