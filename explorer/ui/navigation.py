"""The router's navigation: ``st.navigation`` over ``pages/``, a page-link menu in the sidebar,
and the way out of Streamlit's legacy ``pages/`` mode on a fresh server.

app.py calls :func:`route` once per run, before anything else in the sidebar, and runs the page
it returns; every page calls :func:`leave_legacy_pages_mode` before it draws anything.

Why (Streamlit 1.67; ``tests/app/test_navigation.py`` fails when any of this changes):

- A ``pages/`` folder beside the main script puts the server in the legacy multipage mode, decided
  once per process when the first session starts (``runtime/pages_manager.py`` lines 60-63).
  Until it ends, every run is ``_mpa_v1`` (``runtime/scriptrunner/script_runner.py`` lines
  144-181, 933-934): it sends a sidebar menu of file names (``app``, ``context``, ``home``, ...)
  and runs the file the URL names, so a first request for ``/tokens`` runs ``pages/tokens.py``
  alone, without app.py's sidebar.
- The mode ends for good, in every session, as soon as any run calls ``st.navigation``
  (documented in ``st.navigation``'s docstring; ``commands/navigation.py`` line 399).
- The menu of file names is hidden when ``client.showSidebarNavigation`` is false
  (``.streamlit/config.toml``; ``script_runner.py`` lines 170-174). That option also hides
  ``st.navigation``'s own sidebar menu (``commands/navigation.py`` lines 490-495), so
  :func:`route` hides it explicitly and draws the menu as ``st.page_link`` s.
- ``AppTest`` starts every run in the legacy mode again (``testing/v1/app_test.py`` line 666):
  the same guard routes its page runs through app.py, so tests need no patch.

Only public API is used: ``st.navigation``, ``st.Page``, ``st.page_link``, ``st.rerun``,
``st.session_state`` and a configuration option.
"""

from __future__ import annotations

import contextvars
import logging

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from explorer.ui.pages import HOME, PAGES

_ROUTED = contextvars.ContextVar("explorer_routed", default=False)
"""Set by :func:`route` in the script thread: the run is app.py's (a thread runs one session's
reruns in turn, and once app.py has routed one run the legacy mode is over in the process)."""

_REROUTING_KEY = "navigation.rerouting"
"""Session state: ``"asked"`` once a run outside the router asked for a rerun through app.py,
``"gave up"`` if the rerun came back without the router; :func:`route` clears it."""

_LOG = logging.getLogger(__name__)


def streamlit_pages() -> list[StreamlitPage]:
    """The explorer's pages (:data:`explorer.ui.pages.PAGES`) as ``st.Page`` s, Home the default."""
    return [st.Page(p.path, title=p.title, icon=p.icon, default=p is HOME) for p in PAGES]


def route() -> StreamlitPage:
    """app.py's navigation: ``st.navigation`` (its built-in menu hidden) and a menu of page links
    at the top of the sidebar. Returns the page the URL names; call it before anything else is
    drawn in the sidebar, then ``page.run()``."""
    pages = streamlit_pages()
    page = st.navigation(pages, position="hidden")
    _ROUTED.set(True)
    st.session_state.pop(_REROUTING_KEY, None)
    for each in pages:
        st.sidebar.page_link(each)
    return page


def is_routed() -> bool:
    """Whether this run went through :func:`route` (app.py), not a page file run on its own."""
    return _ROUTED.get()


def leave_legacy_pages_mode() -> bool:
    """Make sure the page runs under app.py's router; call it before the page draws anything.

    Under the router (after :func:`route` in this run) it does nothing and returns ``True``. On a
    page file that Streamlit's legacy ``pages/`` mode runs on its own (a fresh server's first
    request for ``/tokens``, or any ``AppTest`` run), it calls ``st.navigation``, which ends that
    mode for the process, and reruns: app.py then routes the same URL, and nothing of this run
    is shown. It returns ``False`` (and the page runs alone) only when that rerun came back
    without the router: app.py did not call :func:`route` before this call, or Streamlit's
    ``st.navigation`` no longer ends the legacy mode. A warning in the log says so once per
    session, instead of rerunning forever.
    """
    if _ROUTED.get():
        return True
    state = st.session_state.get(_REROUTING_KEY)
    if state is None:
        st.session_state[_REROUTING_KEY] = "asked"
        st.navigation(streamlit_pages(), position="hidden")
        st.rerun()
    if state == "asked":
        st.session_state[_REROUTING_KEY] = "gave up"
        _LOG.warning(
            "The page still runs without app.py's router after a rerun: app.py must call "
            "explorer.ui.navigation.route() first, or st.navigation did not end Streamlit's "
            "legacy pages/ mode (see explorer/ui/navigation.py, tests/app/test_navigation.py)."
        )
    return False
