"""Widgets for the harness: find one by key, type into it, pick an option, read a chart.

Also :func:`injected_markup`, which finds the elements that user text would create if a page
inserted it as HTML (the hardening tests).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from harness.visits import MAIN, PAGE_TIMEOUT_S, wait_for_run, wait_until_idle, watch_runs

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

INJECTED_MARKUP = """() => [...document.querySelectorAll('[data-testid="stApp"] *')]
    .filter(element => {
        const tag = element.tagName.toLowerCase();
        const link = element.getAttribute("href") || element.getAttribute("xlink:href") || "";
        return (tag === "img" && element.getAttribute("src") === "x")
            || (tag === "script" && element.textContent.includes("alert("))
            || [...element.attributes].some(a => a.name.toLowerCase().startsWith("on"))
            || /^\\s*javascript:/i.test(link);
    })
    .map(element => element.outerHTML.slice(0, 200))"""
"""Elements that pasted ``<script>``, ``<img src=x onerror=...>`` or ``javascript:`` links
would create if a page inserted user text as HTML: anywhere in the app (main area, sidebar,
charts, hover labels). Streamlit's own markup has none of them."""


def widget(page: Page, key: str) -> Locator:
    """The element of the widget (or keyed element) ``key``: Streamlit gives it the class
    ``st-key-<key>``, every character but letters, digits, ``_`` and ``-`` made ``-``."""
    return page.locator(_selector(key)).first


def _selector(key: str) -> str:
    """The CSS selector of the widget ``key`` (:func:`widget`)."""
    return '[data-testid="stApp"] .st-key-' + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


def injected_markup(page: Page) -> list[str]:
    """The start of every element that :data:`INJECTED_MARKUP` finds (empty when none)."""
    return page.evaluate(INJECTED_MARKUP)


def type_text(page: Page, key: str, text: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Type ``text`` into the text area or text input ``key`` and apply it (Ctrl+Enter or
    Enter), without waiting: :func:`wait_for_run` waits for the rerun it starts. ``text``
    must differ from the widget's value (an unchanged value starts no rerun)."""
    box = widget(page, key).locator("textarea, input").first
    box.wait_for(timeout=timeout_s * 1000)
    watch_runs(page)
    box.fill(text)
    is_area = box.evaluate("element => element.tagName === 'TEXTAREA'")
    box.press("Control+Enter" if is_area else "Enter")


def submit_text(page: Page, key: str, text: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """:func:`type_text`, then wait until the rerun is over."""
    type_text(page, key, text, timeout_s)
    wait_for_run(page, timeout_s)
    widget(page, key).locator("textarea, input").first.blur()


def metrics(page: Page) -> dict[str, str]:
    """The ``st.metric`` values of the main area, by label (as shown, e.g. ``"1,234"``)."""
    shown = page.locator(MAIN).locator('[data-testid="stMetric"]')
    return shown.evaluate_all(
        """metrics => Object.fromEntries(metrics.map(metric => [
            metric.querySelector('[data-testid="stMetricLabel"]')?.innerText.trim(),
            metric.querySelector('[data-testid="stMetricValue"]')?.innerText.trim(),
        ]))"""
    )


UNFOLDED = """selector => {
    const element = document.querySelector(selector);
    if (!element) return false;
    for (let box = element.closest('details'); box; box = box.parentElement.closest('details')) {
        if (!box.open || box.style.height || box.getAnimations().length) return false;
    }
    return true;
}"""
"""Whether the element ``selector`` is there with every expander around it (its own
``<details>`` for an expander's key) open and still: Streamlit 1.67 animates an
expander's height (500 ms, inline ``height`` and ``overflow: hidden`` on its ``<details>``, both
cleared at the end, and again when its content grows). While it runs, Playwright reaches a widget
below the visible part by scrolling the clipped ``<details>`` itself, and the growing box scrolls
back under the pointer: a click's mousedown and mouseup land on different options and it chooses
none (the saved-corpus flake of tests/browser/test_cut_labels.py, seen under load)."""


def wait_until_unfolded(page: Page, key: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Wait until every expander around the widget ``key`` is open and no longer moving
    (:data:`UNFOLDED`); at once for a widget outside any expander."""
    page.wait_for_function(UNFOLDED, arg=_selector(key), timeout=timeout_s * 1000, polling=100)


def open_expander(page: Page, key: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Open the expander ``key`` (``st.expander(..., key=key)``) by its summary unless it is
    open, then wait until it has stopped growing (:func:`wait_until_unfolded`)."""
    details = widget(page, key).locator("details").first
    if not details.evaluate("box => box.open"):
        details.locator("summary").first.click()
    selector = f"{_selector(key)} details"
    page.wait_for_function(UNFOLDED, arg=selector, timeout=timeout_s * 1000, polling=100)


def choose_radio(page: Page, key: str, label: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Click the option labelled ``label`` of the radio ``key`` (once the expanders around it
    are still: :data:`UNFOLDED`) and wait for the rerun."""
    wait_until_unfolded(page, key, timeout_s)
    watch_runs(page)
    widget(page, key).get_by_text(label, exact=True).click()
    wait_for_run(page, timeout_s)


OPEN_MS = 2000
"""How long :func:`choose_option` waits for a select box's menu before it clicks again."""


def choose_option(page: Page, key: str, label: str, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Open the selectbox ``key`` (once the expanders around it are still: :data:`UNFOLDED`),
    pick the option labelled ``label``, wait for the rerun.

    An option that is already chosen starts no rerun: then the app is only waited on to be
    idle (:func:`wait_for_run` would wait out its 20 s grace for a run that never comes)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    wait_until_unfolded(page, key, timeout_s)
    watch_runs(page)
    box = widget(page, key)
    box.click()
    option = page.get_by_role("option", name=label, exact=True)
    try:
        option.wait_for(timeout=OPEN_MS)
    except PlaywrightTimeoutError:  # a box still focused from its last choice: click opens it
        box.click()
    already = option.get_attribute("aria-selected") == "true"
    option.click()
    if already:
        wait_until_idle(page, timeout_s)
    else:
        wait_for_run(page, timeout_s)


def upload_file(page: Page, key: str, path: Path, timeout_s: float = PAGE_TIMEOUT_S) -> None:
    """Give the file uploader ``key`` the file at ``path`` and wait for the rerun."""
    watch_runs(page)
    widget(page, key).locator('input[type="file"]').set_input_files(str(path))
    wait_for_run(page, timeout_s)


def plotly_traces(page: Page, key: str) -> list[dict]:
    """The traces of the Plotly chart ``key`` as the browser drew them: ``name``, ``x``,
    ``y``, ``z`` (nested lists of numbers or strings) and ``customdata``."""
    plot = widget(page, key).locator(".js-plotly-plot").first
    return plot.evaluate(
        """plot => {
            // Plotly keeps a base64 array ({dtype, bdata, shape}) with its decoded
            // _inputArray beside it.
            const plain = value => value == null ? null
                : value._inputArray ? plain(value._inputArray)
                : (ArrayBuffer.isView(value) || Array.isArray(value))
                    ? Array.from(value, plain) : value;
            return plot.data.map(trace => ({
                name: trace.name ?? null, x: plain(trace.x), y: plain(trace.y),
                z: plain(trace.z), customdata: plain(trace.customdata),
            }));
        }"""
    )
