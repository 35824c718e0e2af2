"""AppTest helpers: run the real app.py (router + sidebar) and switch to one page."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

TIMEOUT = 180

# AppTest starts every run in Streamlit's legacy pages/ mode, which runs a page file on its own;
# the page's explorer.ui.navigation.leave_legacy_pages_mode() reruns it through app.py, as on a
# fresh server (tests/app/test_navigation.py checks that).
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_page(page: str) -> AppTest:
    """Run app.py, switch to ``pages/<page>.py`` and run it; fail on any exception."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.message for e in at.exception]
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.fixture
def page():
    return open_page


@pytest.fixture
def roberta_page(tiny_roberta_path, monkeypatch):
    """:func:`open_page` with the tiny RoBERTa-style model chosen (first token ``<s>``, offered
    as an operator's folder): for sentences and menus that must name the model's own tokens."""

    def open_with_roberta(page: str) -> AppTest:
        monkeypatch.setenv("EXPLORER_MODELS", tiny_roberta_path)
        at = open_page(page)
        at.selectbox(key="model").set_value(f"{Path(tiny_roberta_path).name} (local)").run()
        assert not at.exception, [e.message for e in at.exception]
        return at

    return open_with_roberta


@pytest.fixture
def fresh_app() -> AppTest:
    """app.py as a new, not yet run AppTest (set query parameters before the first run)."""
    return AppTest.from_file(APP, default_timeout=TIMEOUT)
