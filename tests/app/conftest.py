"""AppTest helpers: run the real app.py (router + sidebar) and switch to one page."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

TIMEOUT = 180

# AppTest re-creates its PagesManager before every run, and the manager switches to the
# legacy "pages/ directory" mode whenever a pages/ folder sits beside the main script. That
# mode runs the page file alone on reruns, without app.py's st.navigation and sidebar. The
# real server creates the manager once and st.navigation turns the legacy mode off for good;
# this does the same for every AppTest run.
_pages_manager_init = PagesManager.__init__


def _navigation_only_init(self, *args, **kwargs):
    _pages_manager_init(self, *args, **kwargs)
    PagesManager.uses_pages_directory = False


PagesManager.__init__ = _navigation_only_init
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
def fresh_app() -> AppTest:
    """app.py as a new, not yet run AppTest (set query parameters before the first run)."""
    return AppTest.from_file(APP, default_timeout=TIMEOUT)
