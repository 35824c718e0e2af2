"""The neighbour inspector in a real browser: click a point of the map (or of the second map
of a comparison), the panel appears."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.projection_maps._compare import COMPARISONS
from harness.browser import Tab
from harness.visits import (
    MAIN,
    PROJECTIONS_MAP,
    SECOND_MAP,
    click_point,
    map_points,
    save_full_page,
    wait_until_idle,
)
from harness.widgets import choose_option

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_clicking_a_point_lists_its_nearest_texts_and_rings_them(
    tab: Tab, app_url: str, artifacts: Path
) -> None:
    page = tab.page
    page.goto(f"{app_url}/projections")
    wait_until_idle(page)
    map_points(page, count=240)
    assert "Click a point" in page.locator(MAIN).inner_text()
    click_point(page, 10)
    panel = page.locator(MAIN).get_by_text("Nearest texts in the full space", exact=True)
    panel.wait_for(timeout=60_000)
    save_full_page(page, artifacts / "screenshots" / "projections-inspector.png")
    shown = page.locator(MAIN).inner_text()
    assert "The map keeps" in shown and "of these 10 nearest neighbours" in shown
    legend = page.locator(f"{PROJECTIONS_MAP} .legend").text_content() or ""
    assert "Nearest in the full space" in legend and "Inspected point" in legend
    assert not tab.dialogs, tab.report()


def test_a_click_on_either_map_of_a_comparison_opens_the_panel(
    tab: Tab, app_url: str, artifacts: Path
) -> None:
    # issue 27.8: the second map's clicks opened no panel
    page = tab.page
    page.goto(f"{app_url}/projections")
    wait_until_idle(page)
    choose_option(page, "projections.compare", COMPARISONS["untrained"])
    map_points(page, SECOND_MAP)
    main = page.locator(MAIN)
    assert "Click a point" in main.inner_text()
    click_point(page, 10, SECOND_MAP)
    main.get_by_text("Nearest texts in the full space", exact=True).wait_for(timeout=60_000)
    save_full_page(page, artifacts / "screenshots" / "projections-second-map-click.png")
    assert "Selected on the second map" in main.inner_text()
    click_point(page, 20)  # the main map clicked last: the panel shows its point
    main.get_by_text("Nearest texts in the full space", exact=True).wait_for()
    assert "Selected on the second map" not in main.inner_text()
    click_point(page, 30, SECOND_MAP)  # and the second map again
    assert "Selected on the second map" in main.inner_text()
    assert not tab.dialogs, tab.report()
