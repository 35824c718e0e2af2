"""Presentation mode in Chromium: the sidebar toggle makes Projections readable from the back of
a room (text and metric values >= 25 % larger), folds the sidebar away and puts
``?present=true`` in the link; that link opens with chart fonts >= 25 % larger too (a chart
already drawn keeps its fonts until it is drawn again), the settings folded into a closed
expander and the map across the page's width, its panel under it. Screenshots of both go to
``screenshots/projections-normal.png`` and ``screenshots/projections-present.png``."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.presentation import KEY
from harness.browser import Tab
from harness.visits import (
    MAIN,
    PAGES,
    failure_report,
    save_full_page,
    visit,
    wait_for_run,
    wait_until_idle,
    watch_runs,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROJECTIONS = next(spec for spec in PAGES if spec.url_path == "projections")
GROWTH = 1.25

SIZES = """() => {
    const size = selector => {
        const element = document.querySelector(selector);
        return element ? parseFloat(getComputedStyle(element).fontSize) : null;
    };
    const sidebar = document.querySelector('[data-testid="stSidebar"]');
    return {
        text: size('[data-testid="stMain"] [data-testid="stAlert"] p'),
        metric: size('[data-testid="stMain"] [data-testid="stMetricValue"]'),
        chart: size('[data-testid="stMain"] .js-plotly-plot .xtick text'),
        sidebar: sidebar ? Math.round(sidebar.getBoundingClientRect().right) : 0,
    };
}"""
"""Computed font sizes (px) of body text, a metric value and a chart's tick labels, and where
the sidebar ends (0 or less: folded away)."""


LAYOUT = """() => {
    const box = selector => document.querySelector(selector)?.getBoundingClientRect();
    const settings = box('.st-key-projections-settings');
    const radio = document.querySelector('.st-key-projections-level');
    const map = box('[class*="st-key-projections-chart"]');
    const panel = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stAlert"]')]
        .find(alert => alert.innerText.includes("Click a point"))?.getBoundingClientRect();
    return {
        settings: settings ? settings.width : 0,
        settings_visible: Boolean(radio && radio.checkVisibility()),
        map: map ? map.width : 0,
        map_height: map ? map.height : 0,
        map_bottom: map ? map.bottom : 0,
        map_top: map ? map.top + window.scrollY : 0,
        window: window.innerHeight,
        panel_top: panel ? panel.top : -1,
    };
}"""
"""Widths of the folded settings and of the map, whether a settings widget shows, where the
map ends and the neighbour panel's prompt starts (px)."""


def _sizes(tab: Tab) -> dict[str, float]:
    tab.page.locator(MAIN).locator(".js-plotly-plot .xtick text").first.wait_for()
    tab.page.wait_for_timeout(500)  # plotly draws its ticks once laid out
    return tab.page.evaluate(SIZES)


def _grown(before: dict[str, float], after: dict[str, float], *, charts: bool = True) -> None:
    for what in ("text", "metric", "chart") if charts else ("text", "metric"):
        assert before[what] and after[what], (what, before, after)
        assert after[what] >= GROWTH * before[what], (what, before, after)


def test_presentation_mode_enlarges_projections(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    shots = artifacts / "screenshots"
    problems = visit(tab, app_url, PROJECTIONS, shots / "projections-normal.png")
    assert not problems, failure_report("page 'Projections'", problems, tab, server_log)
    page = tab.page
    normal = _sizes(tab)
    assert normal["sidebar"] > 100, normal

    watch_runs(page)
    page.locator(f".st-key-{KEY} label").first.click()
    wait_for_run(page)
    page.wait_for_function("() => location.search.includes('present=true')", timeout=10_000)
    presenting = _sizes(tab)
    _grown(normal, presenting, charts=False)
    assert presenting["sidebar"] <= 0, presenting

    # The shared link opens in presentation mode, the sidebar folded away.
    link = page.url
    assert "present=true" in link
    with tab.page.context.new_page() as other:
        other.goto(link)
        other.locator(MAIN).locator(".js-plotly-plot .xtick text").first.wait_for(timeout=150_000)
        wait_until_idle(other)
        other.wait_for_timeout(500)
        shared = other.evaluate(SIZES)
        layout = other.evaluate(LAYOUT)
        save_full_page(other, shots / "projections-present.png")
    _grown(normal, shared)
    assert shared["sidebar"] <= 0, shared
    assert not layout["settings_visible"], layout
    assert layout["map"] >= 0.95 * layout["settings"], layout  # the page's width, not 3/5
    assert layout["panel_top"] >= layout["map_bottom"], layout  # the panel under the map
    assert layout["map_height"] >= 0.6 * layout["map"], layout  # not wide and flat
    # issue 33.8: the map started near the fold at 1400 x 1000, under the View radio and the
    # contours checkbox (now in the folded settings)
    assert layout["map_top"] <= 0.6 * layout["window"], layout
