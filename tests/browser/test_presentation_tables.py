"""Presentation mode in Chromium: the Layers summary table's text grows like the rest of the
page (issue 33.8: it kept its small font). Measured as the browser draws it: the data grid
paints its cells on a canvas (the font of each ``fillText`` is recorded), an HTML table in
CSS pixels. Turned on with the toggle, and opened from a ``?present=true`` link."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.presentation import KEY
from harness.browser import Tab, open_tab
from harness.visits import MAIN, failure_report, save_full_page, wait_for_run, watch_runs

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GROWTH = 1.25
"""Smallest growth accepted, as tests/browser/test_presentation_mode.py asks of body text."""

HEADER = "cosine to previous layer"
"""Part of a column title that only the summary table has."""

RECORD_FONTS = """
window.__canvasFonts = new WeakMap();
const fillText = CanvasRenderingContext2D.prototype.fillText;
CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
  if (String(text).trim()) {
    const fonts = window.__canvasFonts.get(this.canvas) || [];
    fonts.push(this.font);
    window.__canvasFonts.set(this.canvas, fonts);
  }
  return fillText.call(this, text, ...rest);
};
"""
"""Before any page script: remember the font of every text drawn on each canvas."""

FONT = f"""() => {{
    const main = document.querySelector('{MAIN}');
    const cell = [...main.querySelectorAll('table')]
        .find(t => t.innerText.includes('{HEADER}'))?.querySelector('tbody td');
    if (cell && cell.checkVisibility()) return parseFloat(getComputedStyle(cell).fontSize);
    const grid = [...main.querySelectorAll('[data-testid="stDataFrame"]')]
        .find(t => t.textContent.includes('{HEADER}') && t.checkVisibility());
    if (!grid) return null;
    const sizes = [...grid.querySelectorAll('canvas')]
        .flatMap(c => window.__canvasFonts.get(c) || [])
        .map(font => parseFloat(font.match(/([\\d.]+)px/)[1]));
    return sizes.length ? Math.max(...sizes) : null;
}}"""
"""The font size (px) of the summary table's text as drawn, or null before it is drawn."""


def _font(tab: Tab, url: str | None = None) -> float:
    """The summary's font size once drawn (after opening ``url``, when given)."""
    if url is not None:
        tab.page.context.add_init_script(RECORD_FONTS)
        tab.page.goto(url)
    tab.page.wait_for_function(FONT, timeout=300_000, polling=200)
    tab.page.wait_for_timeout(500)  # a grid draws again once its columns are measured
    return tab.page.evaluate(FONT)


def test_the_layers_summary_grows_in_presentation_mode(
    browser, app_url: str, artifacts: Path, server_log: Path
) -> None:
    size = {"width": 1400, "height": 1000}
    sizes, problems = {}, []
    with open_tab(browser, size) as tab:
        sizes["normal"] = _font(tab, f"{app_url}/layers")
        watch_runs(tab.page)
        tab.page.locator(f".st-key-{KEY} label").first.click()
        wait_for_run(tab.page)
        sizes["toggled"] = _font(tab)
        if sizes["toggled"] < GROWTH * sizes["normal"]:
            problems.append(f"turned on: {sizes['toggled']:.1f} px")
            save_full_page(tab.page, artifacts / "screenshots" / "layers-present-toggled.png")
    with open_tab(browser, size) as linked:  # the shared link, a session of its own
        sizes["linked"] = _font(linked, f"{app_url}/layers?{KEY}=true")
        if sizes["linked"] < GROWTH * sizes["normal"]:
            problems.append(f"opened from the link: {sizes['linked']:.1f} px")
            save_full_page(linked.page, artifacts / "screenshots" / "layers-present-linked.png")
    problems = [f"{p}, not {GROWTH} x {sizes['normal']:.1f} px" for p in problems]
    assert not problems, failure_report("the Layers summary", problems, linked, server_log)
