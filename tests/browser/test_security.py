"""User text is shown as text in the real browser: ``<script>`` and ``<img onerror>`` pasted
into every page that draws user text as HTML (token chips, highlighted occurrences, Plotly
hover labels and legends, the sidebar's model error) fire no dialog and create no element.

The Tokens text area itself is covered by test_pages.py; this file takes the other places.
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from harness.browser import Tab
from harness.visits import (
    ERROR_ALERT,
    EXCEPTION,
    MAIN,
    PAGES,
    failure_report,
    page_problems,
    save_full_page,
    wait_for_run,
    wait_until_idle,
    watch_runs,
)
from harness.widgets import (
    choose_option,
    choose_radio,
    injected_markup,
    submit_text,
    upload_file,
    widget,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
LINK = '<a href="https://example.com/x">click me</a>'
FIRES_MS = 1000
"""An injected ``onerror`` fires as soon as the element exists; this is ample."""


def disguised_links(page) -> list[str]:
    """Links in the main area whose text is not their address: what a link planted through
    Markdown (``[Log in here](https://...)``) looks like. Bare addresses that Markdown turns
    into links show their address, so they are not counted."""
    return (
        page.locator(MAIN)
        .locator("a[href^='http']")
        .evaluate_all(
            """links => links.filter(link => link.textContent.trim() !== link.getAttribute("href"))
            .map(link => link.outerHTML)"""
        )
    )


def _spec(url_path: str):
    return next(spec for spec in PAGES if spec.url_path == url_path)


def _open(tab: Tab, app_url: str, url_path: str, server_log: Path) -> None:
    """The page from its link (the app_url fixture made the server's first visit; the
    sidebar's way there is test_pages.py's), its chart or table drawn, no error."""
    spec = _spec(url_path)
    tab.page.goto(f"{app_url}/{url_path}")
    wait_until_idle(tab.page)
    tab.page.locator(MAIN).locator(spec.expect).filter(visible=True).first.wait_for()
    problems = page_problems(tab.page)
    assert not problems, failure_report(f"page {url_path!r}", problems, tab, server_log)


def _assert_inert(tab: Tab, what: str, server_log: Path, artifacts: Path, shot: str) -> None:
    """No dialog, no injected element, no exception box; a screenshot when there is one."""
    tab.page.wait_for_timeout(FIRES_MS)
    injected = injected_markup(tab.page)
    boxes = [box.inner_text()[:300] for box in tab.page.locator(EXCEPTION).all()]
    problems = [f"dialog: {d}" for d in tab.dialogs] + [f"injected: {i}" for i in injected]
    problems += [f"exception box: {b!r}" for b in boxes]
    if problems:  # a screenshot costs a second (a pause to lay out, a tall page)
        save_full_page(tab.page, artifacts / "screenshots" / f"security-{shot}.png")
    assert not problems, failure_report(what, problems, tab, server_log)


def _shown(tab: Tab, key: str) -> str:
    return widget(tab.page, key).inner_text()


def _hover_all(tab: Tab, key: str, selector: str, limit: int = 12) -> str:
    """Hover the chart's points (``selector``) one by one; the hover labels' text, joined."""
    chart = widget(tab.page, key)
    chart.scroll_into_view_if_needed()
    texts = []
    points = chart.locator(selector)
    for index in range(min(points.count(), limit)):
        points.nth(index).hover(force=True)
        tab.page.wait_for_timeout(150)
        texts.append(chart.locator(".hoverlayer").text_content() or "")
    return "\n".join(texts)


def test_try_a_word_pair_chips_and_model_error_show_html_as_text(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    _open(tab, app_url, "tokens", server_log)
    page = tab.page
    submit_text(page, "tokens.word", f"{IMG}{SCRIPT}")
    watch_runs(page)
    widget(page, "tokens.pair_on").locator("label").click()
    wait_for_run(page)
    submit_text(page, "tokens.pair", f"The bank {SCRIPT} by the {IMG}.")
    choose_option(page, "model", "bert-base-uncased")  # not available offline: an error
    _assert_inert(tab, "HTML in Tokens' word, pair and model id", server_log, artifacts, "tokens")
    chips = page.locator(MAIN).locator('[data-testid="stHtml"]')
    shown = "\n".join(chips.all_inner_texts())
    for piece in ("<", "script", "alert", "im", "##rro"):  # word pieces of the payload
        assert piece in shown, f"{piece!r} is not shown in the chips: {shown[:500]!r}"
    sidebar_error = page.locator('[data-testid="stSidebar"]').locator(ERROR_ALERT)
    assert "bert-base-uncased" in sidebar_error.inner_text(), "the refused model is not named"


def test_word_in_context_lists_and_hovers_html_as_text(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    _open(tab, app_url, "context", server_log)
    page = tab.page
    sentences = [
        f"The {SCRIPT} bank robber took the money.",
        f"We fished by the river {IMG} bank.",
        "The bank raised its interest rates.",
    ]
    submit_text(page, "context.text", "\n".join(sentences))
    listed = page.locator(MAIN).locator("li").all_inner_texts()
    assert any(SCRIPT in item for item in listed) and any(IMG in item for item in listed), listed
    # The middle cell of the 3 x 3 heatmap is occurrence #2, in the sentence with the <img>.
    hovers = _hover_all(tab, "context.heatmap", ".hm image, .heatmaplayer path", limit=1)
    page.mouse.move(0, 0)
    hovers += _hover_all(tab, "context.by_layer", ".scatterlayer .point", limit=6)
    _assert_inert(tab, "HTML in Word in context sentences", server_log, artifacts, "context")
    assert "onerror" in hovers, f"the hover labels do not show the sentence: {hovers!r}"
    # An unknown word that looks like HTML or a script link: an error, and nothing runs.
    for word in ("<img src=x onerror=alert(2)>", "[x](javascript:alert(1))"):
        submit_text(page, "context.word", word)
        assert page.locator(MAIN).locator(ERROR_ALERT).count() >= 1, f"no error for {word!r}"
        _assert_inert(tab, f"word {word!r}", server_log, artifacts, "context-word")


def test_projection_hover_and_legend_show_html_and_a_link_label_as_text(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path, tmp_path: Path
) -> None:
    """One upload, coloured by two label columns in turn: ``label`` holds the ``<script>`` and
    ``<img>`` payloads, the column named like a link (:data:`LINK`) holds that link."""
    _open(tab, app_url, "projections", server_log)
    page = tab.page
    rows = [
        ("text", "label", LINK),
        (f"The bank {SCRIPT} raised its rates.", IMG, LINK),
        (f"A river {IMG} bank in spring.", SCRIPT, "nature"),
        ("The striker scored twice.", "sport", "nature"),
        ("Our team lost the final.", "sport", "nature"),
        ("Fresh bread smells wonderful.", "food", "nature"),
    ]
    upload = tmp_path / "hostile.csv"
    quoted = ['"' + cell.replace('"', '""') + '"' for row in rows for cell in row]
    upload.write_text("".join(",".join(quoted[i : i + 3]) + "\n" for i in range(0, 18, 3)))
    choose_radio(page, "projections.source", "Upload a CSV")
    upload_file(page, "projections.csv", upload)
    choose_option(page, "projections.label_column", "label")
    hovers = _hover_all(tab, "projections.chart", ".scatterlayer .point")
    _assert_inert(tab, "HTML in an uploaded CSV", server_log, artifacts, "projections")
    assert SCRIPT in hovers and IMG in hovers, f"payloads not shown as hover text: {hovers!r}"
    legend = widget(page, "projections.chart").locator(".legendtext").all_text_contents()
    assert IMG in legend and SCRIPT in legend, legend
    # The same upload coloured by the column whose name and first label are a link.
    choose_option(page, "projections.label_column", LINK)
    links = page.locator(MAIN).locator('a[href*="example.com"], a[*|href*="example.com"]')
    assert links.count() == 0, links.evaluate_all("links => links.map(l => l.outerHTML)")


def _similarity_url(app_url: str, sentences: list[str], query: str) -> str:
    params = {"similarity.text": "\n".join(sentences), "similarity.query": query}
    return f"{app_url}/similarity?{urllib.parse.urlencode(params)}"


def test_similarity_from_a_shared_link_shows_html_as_text(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    """The sentences and the query are bound to the URL: a link can carry the payload."""
    sentences = [
        f"The bank {SCRIPT} raised its rates.",
        f"We sat on the river {IMG} bank.",
        "Our team lost the final.",
    ]
    page = tab.page
    page.goto(_similarity_url(app_url, sentences, f"{IMG} which team won?"))
    wait_until_idle(page)
    heatmaps = widget(page, "similarity.heatmaps")
    heatmaps.wait_for()
    # The middle cell of the first 3 x 3 heatmap pairs sentence 2 (the <img>) with itself.
    hovers = _hover_all(tab, "similarity.heatmaps", ".hm image, .heatmaplayer path", limit=1)
    _assert_inert(tab, "HTML in a shared similarity link", server_log, artifacts, "similarity")
    caption = page.locator(MAIN).get_by_text("Sentences on the axes").locator("xpath=..")
    assert SCRIPT in caption.inner_text() and IMG in caption.inner_text(), caption.inner_text()
    assert "onerror" in hovers, f"the hover label does not show the sentence: {hovers!r}"
    area = widget(page, "similarity.text").locator("textarea")
    assert area.input_value() == "\n".join(sentences)


def test_similarity_from_a_shared_link_plants_no_link(tab: Tab, app_url: str) -> None:
    sentences = [
        "Log in [here](https://example.com/phish) to see the result.",
        "The bank raised its rates.",
        "Our team lost the final.",
    ]
    page = tab.page
    page.goto(_similarity_url(app_url, sentences, "which team won?"))
    wait_until_idle(page)
    widget(page, "similarity.heatmaps").wait_for()
    assert not disguised_links(page), disguised_links(page)


def test_word_in_context_from_a_shared_link_plants_no_link(tab: Tab, app_url: str) -> None:
    page = tab.page
    word = urllib.parse.quote("Log in [here](https://example.com/phish)")
    page.goto(f"{app_url}/context?context.word={word}")
    wait_until_idle(page)
    page.locator(MAIN).locator(ERROR_ALERT).first.wait_for()
    assert not disguised_links(page), disguised_links(page)
