"""The browser for the harness: a headless Debian Chromium driven by Playwright.

Playwright is imported lazily, so importing this module never needs a browser:
:func:`browser_unavailable` says why one cannot run here.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog, Page

DEFAULT_CHROMIUM = "/usr/bin/chromium"
# Debian's Chromium, not a Playwright download (`playwright install` cannot reach its CDN).
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
VIEWPORT = {"width": 1400, "height": 900}


def chromium_path() -> str:
    """The Chromium binary: ``$EXPLORER_CHROMIUM`` or Debian's ``/usr/bin/chromium``."""
    return os.environ.get("EXPLORER_CHROMIUM") or DEFAULT_CHROMIUM


def browser_unavailable() -> str | None:
    """Why the browser cannot run here, or ``None`` when Playwright and Chromium are present."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -r requirements-dev.txt)"
    path = chromium_path()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return f"no Chromium at {path} (apt-get install chromium, or set EXPLORER_CHROMIUM)"
    return None


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium driven by Playwright, closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), args=list(CHROMIUM_ARGS), headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Tab:
    """A browser tab plus what it reported: console errors, page errors, dialogs."""

    page: Page
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message!r}")
        dialog.dismiss()

    def report(self) -> str:
        """Console errors, page errors and dialogs seen so far, one per line."""
        lines = [*self.console_errors, *(f"dialog {d}" for d in self.dialogs)]
        return "\n".join(lines) or "(no console errors, page errors or dialogs)"


@contextlib.contextmanager
def open_tab(browser: Browser, viewport: dict[str, int] | None = None) -> Iterator[Tab]:
    """A fresh browser context and tab (a new Streamlit session) recording console errors;
    ``viewport`` (``{"width": ..., "height": ...}``) defaults to :data:`VIEWPORT`."""
    context = browser.new_context(viewport=viewport or VIEWPORT)
    try:
        tab = Tab(context.new_page())
        tab.page.on(
            "console",
            lambda message: (
                tab.console_errors.append(f"console.error: {message.text}")
                if message.type == "error"
                else None
            ),
        )
        tab.page.on("pageerror", lambda error: tab.console_errors.append(f"pageerror: {error}"))
        tab.page.on("dialog", tab._on_dialog)
        yield tab
    finally:
        context.close()
