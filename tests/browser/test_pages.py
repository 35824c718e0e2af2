"""What a person sees: every page opened from the sidebar in Chromium, plus bad Tokens input."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.browser import Tab
from harness.visits import (
    ERROR_ALERT,
    MAIN,
    PAGES,
    PageSpec,
    failure_report,
    open_home,
    page_problems,
    save_full_page,
    sidebar_titles,
    visit,
    wait_for_run,
    watch_runs,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOKENS = next(spec for spec in PAGES if spec.url_path == "tokens")
PAYLOAD = "<script>alert(1)</script> <img src=x onerror=alert(1)>"
WIDGET_TIMEOUT_MS = 60_000
# Elements the payload would create if the page inserted it as HTML.
INJECTED = """main => main.querySelectorAll('img[src="x"]').length
    + [...main.querySelectorAll("script")].filter(s => s.textContent.includes("alert(1)")).length"""


@pytest.mark.parametrize("spec", PAGES, ids=[spec.name for spec in PAGES])
def test_page_opens_from_the_sidebar(
    spec: PageSpec, tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    problems = visit(tab, app_url, spec, artifacts / "screenshots" / f"{spec.name}.png")
    assert not problems, failure_report(f"page {spec.title!r}", problems, tab, server_log)
    assert not tab.dialogs, tab.report()


def test_sidebar_lists_every_tested_page(tab: Tab, app_url: str) -> None:
    open_home(tab.page, app_url)
    assert sidebar_titles(tab.page) == [spec.title for spec in PAGES], (
        "the sidebar and harness.visits.PAGES disagree: add the new page to PAGES"
    )


def _open_tokens(tab: Tab, app_url: str, server_log: Path) -> Locator:
    """Open Tokens from the sidebar (no problems allowed) and return its text area."""
    problems = visit(tab, app_url, TOKENS, screenshot=None)
    assert not problems, failure_report("page 'Tokens'", problems, tab, server_log)
    main = tab.page.locator(MAIN)
    # The widget's key (tokens.text) becomes the class st-key-tokens-text; the label is "Text".
    by_key = main.locator(".st-key-tokens-text textarea")
    by_label = main.get_by_role("textbox", name="Text", exact=True)
    area = by_key.or_(by_label).first
    area.wait_for(timeout=WIDGET_TIMEOUT_MS)
    return area


def _submit(page: Page, area: Locator, text: str) -> None:
    """Type ``text`` into the area, apply it (Ctrl+Enter) and wait for the rerun to end."""
    watch_runs(page)
    area.fill(text)
    area.press("Control+Enter")
    wait_for_run(page)
    area.blur()  # the screenshot shows the page, not the focus ring


def test_empty_text_shows_an_error_not_a_traceback(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    area = _open_tokens(tab, app_url, server_log)
    _submit(tab.page, area, "")
    save_full_page(tab.page, artifacts / "screenshots" / "tokens-empty-text.png")
    problems = page_problems(tab.page)
    assert not any(problem.startswith("exception") for problem in problems), failure_report(
        "empty text on Tokens", problems, tab, server_log
    )
    errors = tab.page.locator(MAIN).locator(ERROR_ALERT)
    assert errors.count() >= 1, failure_report(
        "empty text on Tokens", ["no st.error in the main area"], tab, server_log
    )
    assert errors.first.is_visible() and errors.first.inner_text().strip()


def test_html_in_the_text_is_shown_as_text_not_run(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    area = _open_tokens(tab, app_url, server_log)
    _submit(tab.page, area, PAYLOAD)
    tab.page.wait_for_timeout(1000)  # an injected <img onerror> would have fired by now
    save_full_page(tab.page, artifacts / "screenshots" / "tokens-html-payload.png")
    problems = page_problems(tab.page)
    assert not problems, failure_report("HTML text on Tokens", problems, tab, server_log)
    assert not tab.dialogs, f"the text ran as HTML: {tab.report()}"
    assert area.input_value() == PAYLOAD
    main = tab.page.locator(MAIN)
    assert main.evaluate(INJECTED) == 0, "the text was inserted into the page as HTML"
    for word in ("script", "alert"):
        shown = main.get_by_text(word).filter(visible=True)
        tags = shown.evaluate_all("elements => elements.map(element => element.tagName)")
        assert set(tags) - {"TEXTAREA", "INPUT"}, f"{word!r} is not shown as text on the page"
