"""The Attention page in a real browser: the grid with the bundled model (no lens), then the
masked-LM lens with the tiny random ``BertForMaskedLM`` the operator's list offers (issue 12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.browser import Tab
from harness.visits import MAIN, failure_report, page_problems, save_full_page, wait_until_idle
from harness.widgets import choose_option, plotly_traces, type_text, widget

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_lens_appears_with_a_masked_lm_model_and_predicts_every_mask(
    tab: Tab, app_url: str, masked_lm_path: str, artifacts: Path, server_log: Path
) -> None:
    page = tab.page
    page.goto(f"{app_url}/attention")
    wait_until_idle(page)
    main = page.locator(MAIN)
    main.get_by_text("has no masked-language-model head", exact=False).first.wait_for()
    assert not widget(page, "attention.lens0").count()

    choose_option(page, "model", f"{Path(masked_lm_path).name} (local)")
    widget(page, "attention.lens0").wait_for(timeout=120_000)
    type_text(page, "attention.masked", "The [MASK] sat on the [MASK] by the river.")
    widget(page, "attention.lens1").wait_for(timeout=120_000)
    save_full_page(page, artifacts / "screenshots" / "attention-lens.png")

    problems = page_problems(page)
    assert "has no masked-language-model head" not in main.inner_text()
    for key in ("attention.lens0", "attention.lens1"):
        traces = plotly_traces(page, key)
        if not traces or not any(t["z"] or t["x"] for t in traces):
            problems.append(f"{key}: an empty chart {traces!r:.300}")
    assert not problems, failure_report("attention lens", problems, tab, server_log)
