"""No cut label and no hidden table row, at a laptop's and a projector's size, in normal and in
presentation mode (issue 33.8: "Max over to…" in Similarity's pooling chips, "Trustworthiness
(5 neighbours, …", "Choose an ambiguous wor", the Tokens table hiding rows 14-18 behind an
inner scroll in presentation mode). A failure saves the page's screenshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.presentation import KEY
from harness.browser import open_tab
from harness.visits import MAIN, PAGES, failure_report, save_full_page, wait_until_idle
from harness.widgets import choose_option, choose_radio, open_expander, widget
from tests.browser.conftest import SAVED_CORPUS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHECKED = ("tokens", "layers", "context", "projections", "similarity")
"""The pages the issue found cut labels or hidden rows on (Attention's table of every head
scrolls on purpose: 144 rows for BERT-base, filtered by the widgets above it)."""

SIZES = ({"width": 1400, "height": 1000}, {"width": 1280, "height": 720})

CUT = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const skip = 'pre, code, textarea, .js-plotly-plot, [data-testid="stDataFrame"], iframe';
    const cut = [];
    const measure = document.createElement('canvas').getContext('2d');
    for (const element of main.querySelectorAll('*')) {
        if (!element.checkVisibility() || element.closest(skip)) continue;
        if (element.tagName === 'INPUT' && ['checkbox', 'radio', 'range'].includes(element.type))
            continue;  // their value is 'on', never shown
        const input = element.tagName === 'INPUT';
        const text = (input ? element.value || element.placeholder : element.innerText) || '';
        if (!text.trim()) continue;
        const style = getComputedStyle(element);
        if (input) {  // an input cannot wrap: its value or placeholder must fit its box
            const room = element.clientWidth - parseFloat(style.paddingLeft)
                - parseFloat(style.paddingRight);
            measure.font = style.font;
            if (measure.measureText(text).width > room + 1) cut.push(text.trim().slice(0, 60));
        } else if (element.scrollWidth > element.clientWidth + 1
                && (style.overflowX !== 'visible' || style.textOverflow === 'ellipsis')) {
            cut.push(text.trim().slice(0, 60));
        }
    }
    const hidden = [];
    for (const table of main.querySelectorAll('[data-testid="stDataFrame"]')) {
        const scroller = table.querySelector('.dvn-scroller');
        if (table.checkVisibility() && scroller
            && scroller.scrollHeight > scroller.clientHeight + 1) {
            hidden.push(table.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0]
                || 'a table');
        }
    }
    return {cut: [...new Set(cut)], hidden};
}"""
"""Texts of the main area cut by their box (wider than it, with overflow hidden or an
ellipsis; an input's value or placeholder), and the tables whose rows scroll inside them."""


SETTLE_MS = 300
"""After a resize: the interval at which the check is repeated until two results agree (the
tables and charts re-measure themselves on a resize observer, a frame or two later)."""


def _settled_check(page) -> dict:
    """:data:`CUT` once the layout no longer changes (at most 10 tries)."""
    found = page.evaluate(CUT)
    for _ in range(10):
        page.wait_for_timeout(SETTLE_MS)
        again = page.evaluate(CUT)
        if again == found:
            break
        found = again
    return found


@pytest.mark.parametrize("present", [False, True], ids=["normal", "presentation"])
def test_no_cut_label_and_no_hidden_row(
    browser, app_url: str, artifacts: Path, server_log: Path, present: bool
) -> None:
    """Each page is opened once per mode and checked at every size of :data:`SIZES` in turn
    (the window resized, as a person would; the server draws the same page at any size)."""
    problems = []
    with open_tab(browser, SIZES[0]) as tab:
        for spec in (p for p in PAGES if p.url_path in CHECKED):
            tab.page.goto(f"{app_url}/{spec.url_path}" + (f"?{KEY}=true" if present else ""))
            tab.page.locator(MAIN).locator(spec.expect).first.wait_for(timeout=300_000)
            wait_until_idle(tab.page)
            for size in SIZES:
                tab.page.set_viewport_size(size)
                found = _settled_check(tab.page)
                where = f"{spec.name} at {size['width']}x{size['height']}"
                seen = [f"{where}: cut {text!r}" for text in found["cut"]]
                seen += [f"{where}: rows hidden in {table}" for table in found["hidden"]]
                if seen:
                    mode = "present" if present else "normal"
                    name = f"cut-{spec.name}-{size['width']}x{size['height']}-{mode}.png"
                    save_full_page(tab.page, artifacts / "screenshots" / name)
                problems += seen
        assert not problems, failure_report("cut labels", problems, tab, server_log)


@pytest.mark.parametrize("present", [False, True], ids=["normal", "presentation"])
def test_the_saved_corpus_select_box_shows_the_whole_name(
    browser, app_url: str, artifacts: Path, server_log: Path, present: bool
) -> None:
    """Similarity & search with the saved corpus chosen: its select box shows the store's
    long name whole ("<name> · 14 texts · <model>"), and nothing else on the page is cut."""
    size = {"width": 1280, "height": 720}
    with open_tab(browser, size) as tab:
        page = tab.page
        page.goto(f"{app_url}/similarity" + (f"?{KEY}=true" if present else ""))
        spec = next(p for p in PAGES if p.url_path == "similarity")
        page.locator(MAIN).locator(spec.expect).first.wait_for(timeout=300_000)
        wait_until_idle(page)
        if present:  # the corpus settings are folded into an expander
            open_expander(page, "similarity.corpus_settings")
        choose_radio(page, "similarity.corpus.source", "Saved corpus")
        box = widget(page, "similarity.corpus.store")
        box.wait_for()
        # By name: test_every_row.py puts a second store beside it for its own tests.
        choose_option(page, "similarity.corpus.store", SAVED_CORPUS)
        shown = box.locator("input").input_value()
        found = page.evaluate(CUT)
        mode = "present" if present else "normal"
        problems = [] if SAVED_CORPUS in shown else [f"the select box shows {shown!r}"]
        problems += [f"cut {text!r}" for text in found["cut"]]
        problems += [f"rows hidden in {table}" for table in found["hidden"]]
        if problems:
            save_full_page(page, artifacts / "screenshots" / f"cut-saved-corpus-{mode}.png")
        assert not problems, failure_report("the saved corpus", problems, tab, server_log)
