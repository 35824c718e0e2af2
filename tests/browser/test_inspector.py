"""The neighbour inspector in a real browser: click a point of the map (or of the second map
of a comparison), the panel appears."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.projections._compare import COMPARISONS
from harness.browser import Tab
from harness.visits import (
    MAIN,
    failure_report,
    save_full_page,
    wait_for_run,
    wait_until_idle,
    watch_runs,
)
from harness.widgets import choose_option

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHART = '[class*="st-key-projections-chart"]'
SECOND = ".st-key-projections-compare_map"


def test_clicking_a_point_lists_its_nearest_texts_and_rings_them(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    page = tab.page
    page.goto(f"{app_url}/projections")
    wait_until_idle(page)
    points = page.locator(f"{CHART} .scatterlayer .point")
    points.first.wait_for(timeout=60_000)
    assert points.count() == 240, failure_report(
        "map", [f"{points.count()} points"], tab, server_log
    )
    assert "Click a point" in page.locator(MAIN).inner_text()
    watch_runs(page)
    points.nth(10).click(force=True)
    wait_for_run(page)
    panel = page.locator(MAIN).get_by_text("Nearest texts in the full space", exact=True)
    panel.wait_for(timeout=60_000)
    save_full_page(page, artifacts / "screenshots" / "projections-inspector.png")
    shown = page.locator(MAIN).inner_text()
    assert "The map keeps" in shown and "of these 10 nearest neighbours" in shown
    legend = page.locator(f"{CHART} .legend").text_content() or ""
    assert "Nearest in the full space" in legend and "Inspected point" in legend
    assert not tab.dialogs, tab.report()


def _click(page, chart: str, nth: int) -> None:
    watch_runs(page)
    page.locator(f"{chart} .scatterlayer .point").nth(nth).click(force=True)
    wait_for_run(page)


def test_a_click_on_either_map_of_a_comparison_opens_the_panel(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    # issue 27.8: the second map's clicks opened no panel
    page = tab.page
    page.goto(f"{app_url}/projections")
    wait_until_idle(page)
    choose_option(page, "projections.compare", COMPARISONS["untrained"])
    page.locator(f"{SECOND} .scatterlayer .point").first.wait_for(timeout=150_000)
    main = page.locator(MAIN)
    assert "Click a point" in main.inner_text()
    _click(page, SECOND, 10)
    main.get_by_text("Nearest texts in the full space", exact=True).wait_for(timeout=60_000)
    save_full_page(page, artifacts / "screenshots" / "projections-second-map-click.png")
    assert "Selected on the second map" in main.inner_text()
    _click(page, CHART, 20)  # the main map clicked last: the panel shows its point
    main.get_by_text("Nearest texts in the full space", exact=True).wait_for()
    assert "Selected on the second map" not in main.inner_text()
    _click(page, SECOND, 30)  # and the second map again
    assert "Selected on the second map" in main.inner_text()
    assert not tab.dialogs, tab.report()
