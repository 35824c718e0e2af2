"""Browser-test fixtures: the app served by ``streamlit run`` and a headless Debian Chromium.

Without Playwright or Chromium the browser tests skip, unless ``EXPLORER_BROWSER_TESTS=required``
(CI sets it): then they fail with the reason. Screenshots and the server log go to
``$EXPLORER_ARTIFACTS`` (default ``<repo>/artifacts``). The helpers live in ``harness/``: the
server in ``harness/server.py``, Chromium in ``harness/browser.py``, page visits in
``harness/visits.py``, widgets in ``harness/widgets.py``; ``harness/screenshots.py`` is the
command that screenshots every page.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.server.settings import WELL_KNOWN_MODELS
from harness.browser import Tab, browser_unavailable, chromium, open_tab
from harness.server import ServerError, artifacts_dir, streamlit_server
from harness.visits import open_home


def _browser_or_skip() -> None:
    reason = browser_unavailable()
    if reason is None:
        return
    message = f"browser tests need Playwright and Chromium: {reason}"
    if os.environ.get("EXPLORER_BROWSER_TESTS", "").strip().lower() == "required":
        pytest.fail(f"{message} (EXPLORER_BROWSER_TESTS=required)", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Folder kept by CI: ``screenshots/<page>.png`` and ``streamlit-server.log``."""
    folder = artifacts_dir()
    (folder / "screenshots").mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def server_log(artifacts: Path) -> Path:
    return artifacts / "streamlit-server.log"


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole session (skips or fails when there is none)."""
    _browser_or_skip()
    with chromium() as browser:
        yield browser


SAVED_CORPUS = "support-tickets-2024-five-queues-with-agent-notes-and-priorities"
"""The name of the browser server's one saved corpus: long, as an operator's folder names are,
so that a select box showing it would cut it."""


@pytest.fixture(scope="session")
def saved_corpora(browser, tmp_path_factory, bundled) -> Path:
    """A folder for ``EXPLORER_CORPORA`` holding one small store (14 texts, the bundled
    model) named :data:`SAVED_CORPUS`."""
    from explorer.data.store import embed_to_store
    from tests.store_helpers import TEXTS, write_csv

    folder = tmp_path_factory.mktemp("browser-corpora")
    source = write_csv(folder / "input.csv", TEXTS)
    embed_to_store(bundled, source, folder / SAVED_CORPUS, label_column="label")
    source.unlink()
    return folder


@pytest.fixture(scope="session")
def app_url(browser, server_log: Path, masked_lm_path: str, saved_corpora: Path) -> Iterator[str]:
    """Base URL of ``streamlit run app.py`` on a free loopback port, stopped at session end.

    Depends on ``browser`` so that a missing browser skips before the server starts; the home
    page is visited once before any test (so every test may open a deep link first). The
    operator's model list is the default one plus a tiny random masked-LM folder (offered as
    ``bert-mlm-tiny... (local)``), so a test can show the Attention page's lens; its saved
    corpora (``EXPLORER_CORPORA``) are :func:`saved_corpora`'s one store.
    """
    with contextlib.ExitStack() as stack:
        # For the server only: in this process it would change what the library's own tests
        # see (codegen writes an operator's folders as "path/to/<name>").
        models = ",".join([*WELL_KNOWN_MODELS, masked_lm_path])
        env = {"EXPLORER_MODELS": models, "EXPLORER_CORPORA": str(saved_corpora)}
        try:
            url = stack.enter_context(streamlit_server(server_log, env=env))
        except ServerError as error:
            print(error)
            pytest.fail(str(error), pytrace=False)
        # The server's first visit ends Streamlit's legacy pages/ mode for the process
        # (explorer/ui/navigation.py): from here on a test may open a deep link directly.
        with open_tab(browser) as tab:
            open_home(tab.page, url)
        yield url


@pytest.fixture
def tab(browser) -> Iterator[Tab]:
    """A fresh tab (and Streamlit session) that records console errors and dialogs."""
    with open_tab(browser) as tab:
        yield tab
