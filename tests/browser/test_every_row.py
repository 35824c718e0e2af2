"""A saved map of 30,000 rows drawn whole in Chromium (issue 38): it draws, a click shows the
point's panel, a box selection counts every row inside it and downloads them as CSV, and
neither a rerun nor a new colouring sends the coordinates again (bytes counted by Chromium's
DevTools protocol); a page that lost them (away and back) gets them again."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.store import synthetic_store
from harness import everyrow
from harness.browser import open_tab
from harness.network import Received
from harness.visits import SIDEBAR_LINK, wait_for_run, wait_until_idle, watch_runs
from harness.widgets import widget

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROWS = 30_000
COORDS_BYTES = 8 * ROWS
STORE = "rows30k"
"""The store's folder name, chosen by name beside the session's saved corpus."""


@pytest.fixture(scope="module")
def saved_store(saved_corpora) -> Iterator[Path]:
    """The store (30,000 rows, its PCA map saved), put beside the browser server's saved
    corpus for this module's tests (the server lists the folder on every run) and taken away
    after them, so that the other files see the one saved corpus they expect."""
    from explorer.data.store.project import save_projection

    store = saved_corpora / STORE
    try:
        synthetic_store(store, ROWS, dim=32, clusters=8)
        save_projection(store, "pca")
        yield store
    finally:
        shutil.rmtree(store, ignore_errors=True)


@pytest.fixture(scope="module")
def saved_url(saved_store, app_url) -> str:
    """The session's browser server (tests/browser/conftest.py), with the store offered."""
    return app_url


@contextmanager
def saved_map_tab(browser, url: str):
    """A tab on the saved store's map, drawn and idle."""
    with open_tab(browser) as tab:
        tab.page.set_default_timeout(180_000)
        everyrow.open_saved_corpus(tab.page, url)
        everyrow.choose_saved(tab.page, store=STORE)
        wait_until_idle(tab.page)
        yield tab


def test_every_row_draws_answers_a_click_and_sends_the_coordinates_once(browser, saved_url):
    with open_tab(browser) as tab:
        page = tab.page
        page.set_default_timeout(180_000)
        everyrow.open_saved_corpus(page, saved_url)
        received = Received(page)
        everyrow.choose_saved(page, store=STORE)
        wait_until_idle(page)
        assert everyrow.drawn(page) == ROWS  # fewer than the overview sample: all of them
        assert received.websocket > COORDS_BYTES  # the coordinates came once

        everyrow.click_point(page, 0)
        page.get_by_text(everyrow.PANEL, exact=True).wait_for()
        wait_until_idle(page)

        received.reset()
        page.get_by_role("heading", name="Projections").click()  # the key goes to the app
        page.keyboard.press("r")
        page.wait_for_timeout(500)
        wait_until_idle(page)
        assert received.frames > 0  # the rerun happened and sent its (small) messages
        assert received.websocket < COORDS_BYTES / 4, received
        assert page.get_by_text(everyrow.PANEL, exact=True).is_visible()  # the panel stays

        received.reset()
        before = everyrow.colour_key(page)
        widget(page, "projections.colour").click()
        page.get_by_role("option", name="Text length (words)").click()
        wait_until_idle(page)
        page.wait_for_function(
            f'() => document.querySelector("{everyrow.FRAME}").contentDocument'
            f".querySelector('#map').dataset.colourKey !== '{before}'"
        )
        # the new colours (one byte a point) came, not the coordinates (eight bytes a point)
        assert ROWS <= received.websocket < ROWS + COORDS_BYTES / 2, received

        # away and back: the new page asks for the arrays the session sent the old one
        received.reset()
        page.locator(SIDEBAR_LINK, has_text="Home").first.click()
        wait_until_idle(page)
        page.locator(SIDEBAR_LINK, has_text="Projections").first.click()
        everyrow.wait_drawn(page, None, 180)
        assert everyrow.drawn(page) == ROWS
        assert received.websocket > COORDS_BYTES
        assert not tab.console_errors or all("404" in e for e in tab.console_errors)


BOX = """plot => {
    // The box drawn by the selection, in the map's coordinates.
    const s = plot._fullLayout.selections[0];
    return {x: [s.x0, s.x1], y: [s.y0, s.y1]};
}"""

PLOT_AREA = """plot => {
    const L = plot._fullLayout._size;
    return {l: L.l, t: L.t, w: L.w, h: L.h};
}"""


def test_a_box_selection_counts_every_row_inside_and_downloads_them(
    browser, saved_url, saved_store
):
    import numpy as np
    import pandas as pd

    from explorer import VectorChoice, open_corpus
    from explorer.maps import rows_in_box

    with saved_map_tab(browser, saved_url) as tab:
        page = tab.page
        plot = everyrow.frame(page).locator("#map")
        everyrow.frame(page).locator("[data-attr='dragmode'][data-val='select']").click()
        frame_box = page.locator(everyrow.FRAME).first.bounding_box()
        area = plot.evaluate(PLOT_AREA)
        left, top = frame_box["x"] + area["l"], frame_box["y"] + area["t"]
        page.mouse.move(left + 0.3 * area["w"], top + 0.3 * area["h"])
        page.mouse.down()
        page.mouse.move(left + 0.6 * area["w"], top + 0.55 * area["h"], steps=8)
        page.mouse.up()
        page.get_by_text("rows selected").wait_for()
        wait_until_idle(page)
        box = plot.evaluate(BOX)

        corpus = open_corpus(saved_store)
        coords, rows = corpus.projection("pca", VectorChoice("mean", "last"))
        inside = rows_in_box(coords, box["x"], box["y"])
        assert 0 < len(inside) < ROWS  # the box holds some rows, not all
        heading = page.get_by_text("rows selected").inner_text()
        assert heading.startswith(f"{len(inside):,} rows selected"), (heading, box)

        button = page.get_by_role("button", name=f"Download the selection (CSV, {len(inside):,}")
        with page.expect_download() as download:
            button.click()
        frame = pd.read_csv(download.value.path())
        stored = np.arange(ROWS) if rows is None else rows
        assert len(frame) == len(inside)
        assert frame["row"].tolist() == stored[inside].tolist()
        np.testing.assert_allclose(frame[["x", "y"]].to_numpy(), coords[inside], rtol=1e-5)
        assert {"text", "label"} <= set(frame.columns)
        assert not tab.console_errors or all("404" in e for e in tab.console_errors)


def test_every_click_gets_the_panel_of_the_point_clicked(browser, saved_url, saved_store):
    """Clicks in quick succession: each right after the mouse rested on the previous point
    (its star), one on the star itself after the mouse rested elsewhere, and three without
    waiting; each panel names the store row of the point under the mouse. Plotly reports a
    click's points from its last hover, throttled to one each 50 ms: the old page sent the
    point the mouse had rested on, or nothing."""
    import numpy as np

    from explorer import VectorChoice, open_corpus

    corpus = open_corpus(saved_store)
    coords, rows = corpus.projection("pca", VectorChoice("mean", "last"))
    coords = np.asarray(coords, dtype=np.float32)
    stored = np.arange(len(coords)) if rows is None else np.asarray(rows)

    def row_at(point: dict) -> int:
        found = np.flatnonzero((coords == np.float32(point["map"])).all(axis=1))
        assert len(found) == 1, point  # an isolated point: one row there
        return int(stored[found[0]])

    def panel_names(point: dict) -> None:
        page.get_by_text(f" to row {row_at(point):,}:").wait_for(timeout=20_000)

    with saved_map_tab(browser, saved_url) as tab:
        page = tab.page
        points = everyrow.isolated_points(page, 4)
        assert len(points) == 4
        page.mouse.click(points[0]["x"], points[0]["y"])
        panel_names(points[0])
        for before, point in zip(points, points[1:], strict=False):
            page.mouse.move(before["x"], before["y"])  # on the previous star
            page.mouse.click(point["x"], point["y"])
            panel_names(point)

        star = everyrow.star(page)
        assert star["map"] == points[-1]["map"]
        watch_runs(page)
        page.mouse.move(points[0]["x"], points[0]["y"])
        page.mouse.click(star["x"], star["y"])
        wait_for_run(page)  # the click was sent and answered
        panel_names(points[-1])

        for point in points[:3]:
            page.mouse.click(point["x"], point["y"])
        panel_names(points[2])
        wait_until_idle(page)
        panel_names(points[2])  # no later answer to an earlier click took its place
        assert not tab.console_errors or all("404" in e for e in tab.console_errors)
