"""Driving the Projections page's map of every row (explorer/ui/projection_maps/bigmap.html) in
Chromium: open a saved corpus, wait for the map to be drawn, click a drawn point, zoom. Shared
by tests/browser/test_every_row.py and bench/everyrow.py."""

from __future__ import annotations

import time

from harness.visits import SIDEBAR_LINK, wait_until_idle
from harness.widgets import choose_option, widget

FRAME = "iframe[title*='bigmap']"
PANEL = "Nearest texts in the full space"

POINT_PIXEL = """(plot, j) => {
    // Where the j-th drawn point inside the middle 60 % of the plot area is, in the frame's
    // pixels (clear of the tool bar and the edges).
    const d = plot._fullData[1], L = plot._fullLayout, w = L._size.w, h = L._size.h;
    let seen = 0;
    for (let i = 0; i < d.x.length; i++) {
        const x = L.xaxis.d2p(d.x[i]), y = L.yaxis.d2p(d.y[i]);
        if (x > 0.2 * w && x < 0.8 * w && y > 0.2 * h && y < 0.8 * h && seen++ === j) {
            return {x: L._size.l + x, y: L._size.t + y};
        }
    }
    return null;
}"""

ISOLATED = """(plot, count) => {
    // The first `count` drawn points inside the middle 70 % of the plot area with no other
    // drawn point within 6 pixels: where they are in the frame's pixels, and their map
    // coordinates (float32, as the page holds them).
    const d = plot._fullData[1], L = plot._fullLayout, w = L._size.w, h = L._size.h;
    const px = Array.from(d.x, v => L.xaxis.d2p(v)), py = Array.from(d.y, v => L.yaxis.d2p(v));
    const cells = new Map(), cell = (x, y) => Math.floor(x / 6) + "," + Math.floor(y / 6);
    px.forEach((x, i) => { const c = cell(x, py[i]); cells.set(c, [...(cells.get(c) || []), i]); });
    const alone = i => {
        for (let a = -6; a <= 6; a += 6) for (let b = -6; b <= 6; b += 6)
            for (const o of cells.get(cell(px[i] + a, py[i] + b)) || [])
                if (o !== i && Math.hypot(px[o] - px[i], py[o] - py[i]) < 6) return false;
        return true;
    };
    const found = [];
    for (let i = 0; i < px.length && found.length < count; i++) {
        if (px[i] > 0.15 * w && px[i] < 0.85 * w && py[i] > 0.15 * h && py[i] < 0.85 * h
            && alone(i)) {
            found.push({x: L._size.l + px[i], y: L._size.t + py[i], map: [d.x[i], d.y[i]]});
        }
    }
    return found;
}"""

STAR = """plot => {
    // Where the inspected point's star is (the marks' first), in the frame's pixels, or null.
    const s = (plot.layout.shapes || [])[0], L = plot._fullLayout;
    return s ? {x: L._size.l + L.xaxis.d2p(s.xanchor), y: L._size.t + L.yaxis.d2p(s.yanchor),
                map: [s.xanchor, s.yanchor]} : null;
}"""

ZOOM = """async (plot, share) => {
    // Zoom on the middle `share` of each axis: the milliseconds until the view is drawn at its
    // new range (the points drawn so far), then until the points of the view are drawn in.
    const [x0, x1] = plot._fullLayout.xaxis.range, [y0, y1] = plot._fullLayout.yaxis.range;
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, hx = (x1 - x0) * share / 2,
          hy = (y1 - y0) * share / 2;
    const frame = () => new Promise(
        done => requestAnimationFrame(() => requestAnimationFrame(done)));
    const started = performance.now();
    window.__redraw = null;
    await Plotly.relayout(plot, {"xaxis.range": [cx - hx, cx + hx],
                                 "yaxis.range": [cy - hy, cy + hy]});
    await frame();
    const zoomed = performance.now() - started;
    if (window.__redraw) await window.__redraw;
    await frame();
    return {ms: zoomed, refined_ms: performance.now() - started,
            drawn: Number(plot.dataset.drawn)};
}"""


def frame(page):
    """The map's frame (a Playwright ``FrameLocator``)."""
    return page.frame_locator(FRAME).first


def open_saved_corpus(page, url: str, timeout_s: float = 300) -> None:
    """The app's home page, then Projections, idle (the "Saved corpus" option not chosen)."""
    page.goto(f"{url}/")  # the server routes a deep link only after a first visit
    page.locator(SIDEBAR_LINK).first.wait_for()
    wait_until_idle(page, timeout_s)
    page.goto(f"{url}/projections")
    wait_until_idle(page, timeout_s)


def choose_saved(page, timeout_s: float = 300, store: str | None = None) -> float:
    """Choose "Saved corpus" (and, given its folder name, the store ``store`` among several)
    and wait until the map is drawn; the seconds it took."""
    started = time.monotonic()
    widget(page, "projections.source").get_by_text("Saved corpus", exact=True).click()
    if store is not None:
        wait_until_idle(page, timeout_s)
        choose_option(page, "projections.store", store, timeout_s)
    wait_drawn(page, None, timeout_s)
    return time.monotonic() - started


def wait_drawn(page, colour_key: str | None, timeout_s: float = 300) -> None:
    """Wait until the map has drawn (with colours named ``colour_key`` when given)."""
    selector = "#map[data-drawn]" if colour_key is None else f"#map[data-colour-key='{colour_key}']"
    frame(page).locator(selector).wait_for(state="attached", timeout=timeout_s * 1000)


def drawn(page) -> int:
    """How many points the map draws now."""
    return int(frame(page).locator("#map").get_attribute("data-drawn"))


def colour_key(page) -> str:
    """The name of the colours the map draws now."""
    return frame(page).locator("#map").get_attribute("data-colour-key")


def point_at(page, j: int = 0) -> tuple[float, float]:
    """Where on the page the ``j``-th drawn point is (the map scrolled into view)."""
    element = page.locator(FRAME).first
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    pixel = frame(page).locator("#map").evaluate(POINT_PIXEL, j)
    return box["x"] + pixel["x"], box["y"] + pixel["y"]


def isolated_points(page, count: int) -> list[dict]:
    """Up to ``count`` drawn points with no other within 6 pixels: ``{"x", "y"}`` where they
    are on the page (the map scrolled into view) and ``"map"``, their map coordinates."""
    return _on_page(page, frame(page).locator("#map").evaluate(ISOLATED, count))


def star(page) -> dict | None:
    """The inspected point's star as :func:`isolated_points` gives a point, or ``None``."""
    found = frame(page).locator("#map").evaluate(STAR)
    return _on_page(page, [found])[0] if found else None


def _on_page(page, points: list[dict]) -> list[dict]:
    element = page.locator(FRAME).first
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    return [{**p, "x": box["x"] + p["x"], "y": box["y"] + p["y"]} for p in points]


def click_point(page, j: int = 0) -> None:
    """Click the ``j``-th drawn point."""
    page.mouse.click(*point_at(page, j))


def zoom(page, share: float) -> dict:
    """Zoom on the middle ``share`` of the map: ``{"ms": the view redrawn, "refined_ms": the
    view's own points drawn, "drawn": how many}``."""
    return frame(page).locator("#map").evaluate(ZOOM, share)
