"""A saved map of 30,000 rows drawn whole in Chromium (issue 38): it draws, a click shows the
point's panel, and neither a rerun nor a new colouring sends the coordinates again (bytes
counted by Chromium's DevTools protocol); a page that lost them (away and back) gets them
again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from bench.store import synthetic_store
from harness import everyrow
from harness.browser import open_tab
from harness.network import Received
from harness.server import ServerError, streamlit_server
from harness.visits import SIDEBAR_LINK, wait_until_idle
from harness.widgets import widget

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROWS = 30_000
COORDS_BYTES = 8 * ROWS


@pytest.fixture(scope="module")
def saved_url(browser, tmp_path_factory, server_log) -> Iterator[str]:
    from explorer.data.store.project import save_projection

    allowed = tmp_path_factory.mktemp("every-row")
    synthetic_store(allowed / "rows30k", ROWS, dim=32, clusters=8)
    save_projection(allowed / "rows30k", "pca")
    with contextlib.ExitStack() as stack:
        log = server_log.with_name("every-row-server.log")
        try:
            url = stack.enter_context(streamlit_server(log, env={"EXPLORER_CORPORA": str(allowed)}))
        except ServerError as error:
            pytest.fail(str(error), pytrace=False)
        yield url


def test_every_row_draws_answers_a_click_and_sends_the_coordinates_once(browser, saved_url):
    with open_tab(browser) as tab:
        page = tab.page
        page.set_default_timeout(180_000)
        everyrow.open_saved_corpus(page, saved_url)
        received = Received(page)
        everyrow.choose_saved(page)
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
