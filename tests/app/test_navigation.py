"""The router and Streamlit's legacy ``pages/`` mode (see ``explorer/ui/navigation.py``).

These tests fail loudly when Streamlit changes what ``leave_legacy_pages_mode`` relies on: a
page file run first on its own (the legacy mode), ``st.navigation`` ending that mode, and the
configuration option that hides the legacy menu of file names. A tiny app in a temporary folder
(app.py beside a ``pages/`` folder of stubs) checks Streamlit itself in a second; the last test
checks the real app.
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer.ui.pages import PAGES

REPO = Path(__file__).resolve().parents[2]

ROUTER = """
from explorer.ui import navigation

page = navigation.route()
page.run()
"""

# A router that skips navigation.route() and calls the guard itself, before st.navigation (as a
# sidebar widget reading the model would): a rerun cannot help, and it must not loop.
BARE_ROUTER = """
import streamlit as st

from explorer.ui import navigation

navigation.leave_legacy_pages_mode()
st.navigation(navigation.streamlit_pages(), position="hidden").run()
"""

STUB = """
import streamlit as st

from explorer.ui import navigation

st.session_state.setdefault("runs", []).append(({name!r}, navigation.is_routed()))
navigation.leave_legacy_pages_mode()
st.header({name!r})
"""


def _app(folder: Path, router: str) -> Path:
    """app.py (``router``) beside a ``pages/`` folder with a stub for every page of the app."""
    for page in PAGES:
        stub = folder / page.path
        stub.parent.mkdir(parents=True, exist_ok=True)
        stub.write_text(STUB.format(name=Path(page.path).stem), encoding="utf-8")
    app = folder / "app.py"
    app.write_text(router, encoding="utf-8")
    return app


def _first_request(app: Path, page: str) -> AppTest:
    """A fresh AppTest whose first run is the URL of ``pages/<page>.py`` (a deep link)."""
    at = AppTest.from_file(str(app), default_timeout=60)
    at.switch_page(f"pages/{page}.py")
    return at.run()


def test_config_hides_the_legacy_menu_of_file_names():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showSidebarNavigation"] is False, (
        "without client.showSidebarNavigation = false, a fresh server's sidebar lists the file "
        "names of pages/ until app.py's st.navigation runs"
    )


def test_a_deep_link_first_runs_the_page_alone_then_through_the_router(tmp_path, caplog):
    at = _first_request(_app(tmp_path, ROUTER), "tokens")
    assert not at.exception, [e.message for e in at.exception]
    runs = at.session_state["runs"]
    assert runs[0] == ("tokens", False), (
        f"Streamlit no longer runs a pages/ file on its own on a first request ({runs}): its "
        "legacy pages/ mode is gone. Remove leave_legacy_pages_mode() from the pages and "
        "client.showSidebarNavigation from .streamlit/config.toml, and let st.navigation draw "
        "the menu again (explorer/ui/navigation.py)."
    )
    assert runs[1:] == [("tokens", True)], (
        f"after st.navigation and a rerun the page still ran without app.py ({runs}): "
        "st.navigation no longer ends Streamlit's legacy pages/ mode. Find what does in the "
        "installed Streamlit's runtime/pages_manager.py and update explorer/ui/navigation.py."
    )
    assert [h.value for h in at.header] == ["tokens"]
    assert [link.label for link in at.sidebar.get("page_link")] == [p.title for p in PAGES]
    assert "without app.py's router" not in caplog.text


def test_home_runs_through_the_router_without_a_rerun(tmp_path):
    at = AppTest.from_file(str(_app(tmp_path, ROUTER)), default_timeout=60).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["runs"] == [("home", True)]


def test_a_page_never_routed_runs_alone_after_one_rerun_with_a_warning(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="explorer.ui.navigation"):
        at = _first_request(_app(tmp_path, BARE_ROUTER), "layers")
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["runs"] == [("layers", False), ("layers", False)]
    assert [h.value for h in at.header] == ["layers"]
    assert "still runs without app.py's router" in caplog.text


@pytest.mark.slow
def test_the_real_app_routes_a_deep_link_with_its_sidebar(caplog):
    with caplog.at_level(logging.WARNING, logger="explorer.ui.navigation"):
        at = _first_request(REPO / "app.py", "tokens")
    assert not at.exception, [e.message for e in at.exception]
    assert [link.label for link in at.sidebar.get("page_link")] == [p.title for p in PAGES]
    assert at.sidebar.selectbox(key="model").label == "Encoder"
    assert "without app.py's router" not in caplog.text
