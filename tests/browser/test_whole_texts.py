"""Texts a person must read are shown whole: the Projections neighbour panel and the search
results wrap their texts (Streamlit's data grid cut them at the column's width, about 12
characters in the panel), and "Why are these two close?" draws under them."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.browser import Tab
from harness.visits import (
    MAIN,
    click_point,
    failure_report,
    map_points,
    save_full_page,
    wait_for_run,
    wait_until_idle,
    watch_runs,
)
from harness.widgets import widget

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CUT_TEXTS = """(name) => {
  const table = document.querySelector(`table.explorer-texts[data-name="${name}"]`);
  if (!table) return ["no table of whole texts: " + name];
  const problems = [];
  const box = table.parentElement.getBoundingClientRect();
  if (table.scrollWidth > table.parentElement.clientWidth + 1) problems.push("table overflows");
  const cells = [...table.querySelectorAll("td.text")];
  if (cells.length === 0) problems.push("no text cells");
  for (const cell of cells) {
    const r = cell.getBoundingClientRect();
    const style = getComputedStyle(cell);
    if (cell.scrollWidth > cell.clientWidth + 1 || cell.scrollHeight > cell.clientHeight + 1)
      problems.push("cut: " + cell.textContent.slice(0, 40));
    if (r.right > box.right + 1 || r.width < 150) problems.push("narrow or outside: " + r.width);
    if (style.whiteSpace !== "normal" || style.textOverflow === "ellipsis")
      problems.push("does not wrap: " + style.whiteSpace);
  }
  return problems;
}"""


def _whole(page, name: str) -> tuple[list[str], list[str]]:
    """Problems with the table ``name``'s texts, and the texts it shows."""
    problems = page.evaluate(CUT_TEXTS, name)
    texts = page.locator(f'table.explorer-texts[data-name="{name}"] td.text').all_inner_texts()
    return problems, texts


def test_the_neighbour_panel_shows_whole_texts_and_explains_a_pair(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    page = tab.page
    page.goto(f"{app_url}/projections")
    wait_until_idle(page)
    map_points(page)
    click_point(page, 10)
    page.locator(MAIN).get_by_text("Nearest texts in the full space", exact=True).wait_for(
        timeout=60_000
    )
    page.locator('[class*="st-key-projections-why-pairs"]').wait_for(timeout=60_000)
    wait_until_idle(page)
    save_full_page(page, artifacts / "screenshots" / "projections-why-close.png")
    problems, texts = _whole(page, "projections.neighbours")
    assert not problems, failure_report("neighbour panel", problems, tab, server_log)
    assert len(texts) == 10 and max(len(t) for t in texts) > 40, texts  # not ~12 characters
    assert "Why are point" in page.locator(MAIN).inner_text()
    assert not tab.dialogs, tab.report()


def test_search_results_show_whole_texts_and_the_query_is_explained(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    page = tab.page
    page.goto(f"{app_url}/similarity")
    wait_until_idle(page)
    page.locator('[class*="st-key-similarity-why-pairs"]').wait_for(timeout=120_000)
    wait_until_idle(page)
    save_full_page(page, artifacts / "screenshots" / "similarity-why-close.png")
    problems, texts = _whole(page, "similarity.results")
    assert not problems, failure_report("search results", problems, tab, server_log)
    assert len(texts) == 5 and all(len(t) > 12 for t in texts), texts
    shown = page.locator(MAIN).inner_text()
    assert "Why are these two close?" in shown and "of the similarity" in shown
    assert not tab.dialogs, tab.report()


def test_cls_pooling_attributes_after_the_person_asks(
    tab: Tab, app_url: str, artifacts: Path, server_log: Path
) -> None:
    page = tab.page
    page.goto(f"{app_url}/similarity")
    wait_until_idle(page)
    page.locator('[class*="st-key-similarity-why-pairs"]').wait_for(timeout=120_000)
    wait_until_idle(page)
    box = widget(page, "similarity.why_pooling")
    box.scroll_into_view_if_needed()
    watch_runs(page)
    box.locator('[role="combobox"], input').first.click()
    page.get_by_role("option", name="[CLS] token", exact=True).click()
    wait_for_run(page)
    assert "attribution per token" in page.locator(MAIN).inner_text()
    watch_runs(page)
    widget(page, "similarity.why.attribute").locator("label").click()
    wait_for_run(page, 180)
    page.locator(MAIN).get_by_text("With [CLS] pooling the cosine", exact=False).wait_for(
        timeout=180_000
    )
    wait_until_idle(page)
    save_full_page(page, artifacts / "screenshots" / "similarity-why-close-cls.png")
    shown = page.locator(MAIN).inner_text()
    assert "integrated gradients" in shown and "gap" in shown and "The top tokens" in shown
    assert not tab.dialogs, tab.report()
