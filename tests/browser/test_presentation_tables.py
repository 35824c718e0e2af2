"""Presentation mode in Chromium: the tables' text grows like the rest of the page (issue 33.8:
the Layers summary, the Tokens table and every other data grid kept their small font).
Measured as the browser draws it: the data grid paints its cells on a canvas (the font of
each ``fillText`` is recorded), a static table in CSS pixels. Turned on with the toggle, and
opened from a ``?present=true`` link; one screenshot per page in presentation mode at
1400x1000 (``presentation-tables-<page>.png``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.presentation import KEY
from harness.browser import Tab, open_tab
from harness.visits import MAIN, failure_report, save_full_page, wait_for_run, watch_runs

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GROWTH = 1.25
"""Smallest growth accepted, as tests/browser/test_presentation_mode.py asks of body text."""

TABLES = {
    "tokens": "segment",
    "layers": "cosine to previous layer",
    "context": "Kind",
    "similarity": "Rank",
}
"""Page -> part of a column title that only the measured table has on that page: the Tokens
table, the Layers summary, Word in context's every pair under every layer strategy and the
Similarity results (an HTML table already: it must stay so)."""

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

FONT = """header => {
    const main = document.querySelector('MAIN');
    const grid = '[data-testid="stDataFrame"]';
    const cell = [...main.querySelectorAll('table')]
        .filter(t => !t.closest(grid) && t.checkVisibility())
        .find(t => t.innerText.includes(header))?.querySelector('tbody td');
    if (cell && cell.checkVisibility()) return parseFloat(getComputedStyle(cell).fontSize);
    const found = [...main.querySelectorAll(grid)]
        .find(t => t.textContent.includes(header) && t.checkVisibility());
    if (!found) return null;
    const sizes = [...found.querySelectorAll('canvas')]
        .flatMap(c => window.__canvasFonts.get(c) || [])
        .map(font => parseFloat(font.match(/([\\d.]+)px/)[1]));
    return sizes.length ? Math.max(...sizes) : null;
}""".replace("'MAIN'", repr(MAIN))
"""The font size (px) of the cells of the table with a column titled ``header``, as drawn
(null before it is drawn)."""


def _font(tab: Tab, header: str, url: str | None = None) -> float:
    """The font size of the table titled ``header`` once drawn (after opening ``url``)."""
    if url is not None:
        tab.page.context.add_init_script(RECORD_FONTS)
        tab.page.goto(url)
    tab.page.wait_for_function(FONT, arg=header, timeout=300_000, polling=200)
    tab.page.wait_for_timeout(500)  # a grid draws again once its columns are measured
    return tab.page.evaluate(FONT, header)


@pytest.mark.parametrize("name", list(TABLES))
def test_a_pages_table_grows_in_presentation_mode(
    browser, app_url: str, artifacts: Path, server_log: Path, name: str
) -> None:
    header, size = TABLES[name], {"width": 1400, "height": 1000}
    sizes, problems = {}, []
    with open_tab(browser, size) as tab:
        sizes["normal"] = _font(tab, header, f"{app_url}/{name}")
        watch_runs(tab.page)
        tab.page.locator(f".st-key-{KEY} label").first.click()
        wait_for_run(tab.page)
        sizes["toggled"] = _font(tab, header)
        if sizes["toggled"] < GROWTH * sizes["normal"]:
            problems.append(f"turned on: {sizes['toggled']:.1f} px")
    with open_tab(browser, size) as linked:  # the shared link, a session of its own
        sizes["linked"] = _font(linked, header, f"{app_url}/{name}?{KEY}=true")
        if sizes["linked"] < GROWTH * sizes["normal"]:
            problems.append(f"opened from the link: {sizes['linked']:.1f} px")
        save_full_page(linked.page, artifacts / "screenshots" / f"presentation-tables-{name}.png")
    problems = [f"{p}, not {GROWTH} x {sizes['normal']:.1f} px" for p in problems]
    assert not problems, failure_report(f"the {name} table", problems, linked, server_log)
