"""The Compare models page's linked maps in Chromium: a click on a text in model A's map stars
it in both maps and lists its neighbours under each model."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.browser import Tab
from harness.visits import (
    MAIN,
    PAGES,
    click_point,
    failure_report,
    map_points,
    save_full_page,
    visit,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MAPS = ".st-key-compare-maps"
"""The paired maps (their element key as a CSS selector)."""

COMPARE = next(spec for spec in PAGES if spec.url_path == "compare")

# The page position of the point of model A's map farthest from the others (so the click
# cannot land on a neighbour), from plotly's own axes; and its row.
LONELY_POINT = """() => {
    const plots = [...document.querySelectorAll('.st-key-compare-maps .js-plotly-plot')];
    const gd = plots[0];
    const trace = gd._fullData[0], xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
    const box = gd.getBoundingClientRect();
    const px = [...trace.x].map(v => box.left + xa._offset + xa.l2p(v));
    const py = [...trace.y].map(v => box.top + ya._offset + ya.l2p(v));
    let best = 0, gap = -1;
    for (let i = 0; i < px.length; i++) {
        let nearest = Infinity;
        for (let j = 0; j < px.length; j++) {
            if (i !== j) nearest = Math.min(nearest, Math.hypot(px[i] - px[j], py[i] - py[j]));
        }
        if (nearest > gap) { gap = nearest; best = i; }
    }
    return {x: px[best], y: py[best], row: best};
}"""

STARS = """() => {
    const gd = document.querySelector('.st-key-compare-maps .js-plotly-plot');
    const stars = gd._fullData.filter(t => t.marker && t.marker.symbol === "star");
    return stars.map(t => [...t.x].length);
}"""


def test_a_click_on_model_as_map_follows_the_text_in_both(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    problems = visit(tab, app_url, COMPARE, screenshot=None)
    assert not problems, failure_report("page 'Compare models'", problems, tab, server_log)
    page = tab.page
    main = page.locator(MAIN)
    assert "Followed (the text the models disagree about most" in main.inner_text()
    map_points(page, MAPS)
    point = page.evaluate(LONELY_POINT)
    click_point(page, point["row"], MAPS)  # model A's trace is drawn first
    save_full_page(page, artifacts / "screenshots" / "compare-clicked.png")
    assert "Followed (clicked)" in main.inner_text(), failure_report(
        "click on the map", ["no '(clicked)' after the click"], tab, server_log
    )
    assert page.evaluate(STARS) == [1, 1]  # starred in model A's map and in model B's
