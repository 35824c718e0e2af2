"""Layout in a real browser, at 1400 x 1000: what the figures' unit tests cannot measure, the
boxes Chromium draws (issue 27, item 9). The head view's token labels stay clear of its lines;
Layers in motion's Play/Pause buttons stay clear of its slider, whose tick labels fit; the
sidebar's model picker and the Projections page's select boxes show their whole choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.model_in_use import PICKER_KEY
from explorer.ui.projection_maps._compare import COMPARISONS
from harness.browser import Tab, open_tab
from harness.visits import MAIN, failure_report, save_full_page, wait_until_idle
from harness.widgets import choose_option, widget

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _boxes(locator) -> list[dict]:
    return [box for i in range(locator.count()) if (box := locator.nth(i).bounding_box())]


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def test_head_view_labels_stay_outside_the_lines(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    page = tab.page
    page.goto(f"{app_url}/attention")
    wait_until_idle(page)
    page.get_by_role("tab", name="Head view (lines)").click()
    chart = widget(page, "attention.lines")
    chart.locator(".main-svg").first.wait_for()
    save_full_page(page, artifacts / "screenshots" / "attention-head-view.png")
    markers = _boxes(chart.locator(".scatterlayer .point"))
    labels = _boxes(chart.locator(".scatterlayer .textpoint text"))
    assert markers and labels
    left = min(box["x"] for box in markers) + 4  # the left column's markers
    right = max(box["x"] + box["width"] for box in markers) - 4  # the right column's
    problems = [
        f"a label at x {box['x']:.0f}-{box['x'] + box['width']:.0f} lies between the columns "
        f"({left:.0f}-{right:.0f})"
        for box in labels
        if box["x"] + box["width"] > left and box["x"] < right
    ]
    if right - left < 0.6 * chart.bounding_box()["width"]:
        problems.append(f"the lines span {right - left:.0f} px of {chart.bounding_box()['width']}")
    assert not problems, failure_report("head view", problems[:5], tab, server_log)


def test_motion_buttons_clear_the_slider_and_its_ticks_fit(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    page = tab.page
    page.goto(f"{app_url}/projections")
    wait_until_idle(page)
    page.get_by_text("Layers in motion", exact=True).first.click()
    chart = widget(page, "projections.motion")
    chart.locator(".slider-rail-rect").first.wait_for(timeout=300_000)
    save_full_page(page, artifacts / "screenshots" / "projections-motion.png")
    svg = chart.locator(".main-svg").first.bounding_box()
    rail = chart.locator(".slider-rail-rect").first.bounding_box()
    grip = {**rail, "y": rail["y"] - 12, "height": rail["height"] + 24}  # the handle's height
    problems = [
        f"a button at {box} covers the slider at {grip}"
        for box in _boxes(chart.locator(".updatemenu-button"))
        if _overlap(box, grip)
    ]
    for box in _boxes(chart.locator(".slider-label")):
        if box["y"] + box["height"] > svg["y"] + svg["height"] or box["x"] < svg["x"]:
            problems.append(f"a slider label at {box} is cut off by the chart ({svg})")
    assert not problems, failure_report("layers in motion", problems, tab, server_log)


CLIPPED = """root => [root, ...root.querySelectorAll("*")]
    .map(element => [element, (element.tagName === "INPUT" ? element.value : element.innerText)])
    .filter(([element, text]) => text && text.trim()
        && element.scrollWidth > element.clientWidth + 1
        && (element.tagName === "INPUT" || getComputedStyle(element).overflowX !== "visible"))
    .map(([element, text]) => text.trim())"""
"""The texts of ``root`` (and its descendants) cut by their box: wider than it, overflow hidden
(an ellipsis or a hard cut); a select box shows its choice in an ``input``."""


def test_the_model_pickers_names_fit_at_1400_by_1000(
    browser, app_url: str, artifacts: Path, server_log: Path
) -> None:
    # issue 27.9: "all-MiniLM-L6-v2 (bundled, offlin" in the sidebar
    with open_tab(browser, {"width": 1400, "height": 1000}) as tab:
        page = tab.page
        page.goto(f"{app_url}/")
        wait_until_idle(page)
        picker = widget(page, PICKER_KEY)
        problems = [f"the chosen model reads {text!r}" for text in picker.evaluate(CLIPPED)]
        picker.click()
        options = page.locator('[role="option"]')
        options.first.wait_for()
        save_full_page(page, artifacts / "screenshots" / "model-picker.png")
        names = [options.nth(i).inner_text().strip() for i in range(options.count())]
        for i in range(options.count()):
            problems += [f"an option reads {text!r}" for text in options.nth(i).evaluate(CLIPPED)]
        assert len(names) >= 2, names
        if problems:
            problems.append(f"options: {names}")
        assert not problems, failure_report("model picker", problems, tab, server_log)


def test_the_projections_select_boxes_show_their_whole_choice(
    browser, app_url: str, artifacts: Path, server_log: Path
) -> None:
    # "Compare with" read "The same model with random" at 1400 x 1000
    with open_tab(browser, {"width": 1400, "height": 1000}) as tab:
        page = tab.page
        page.goto(f"{app_url}/projections")
        wait_until_idle(page)
        choose_option(page, "projections.compare", COMPARISONS["untrained"])
        boxes = page.locator(MAIN).locator('[data-testid="stSelectbox"]')
        assert boxes.count() >= 4
        problems = [
            f"a select box reads {text!r}"
            for i in range(boxes.count())
            for text in boxes.nth(i).evaluate(CLIPPED)
        ]
        if problems:
            save_full_page(page, artifacts / "screenshots" / "projections-select-boxes.png")
        assert not problems, failure_report("Projections", problems, tab, server_log)
