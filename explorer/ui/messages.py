"""The only way a page shows text that may hold user input: escaped, never Markdown or HTML.

Library messages quote what a visitor typed, uploaded or carried in a link (a word, a column
name, a model id), and ``st.error`` / ``st.warning`` / ``st.info`` / ``st.caption`` render
Markdown: ``**x**`` would be bold and ``![p](http://host/x.png)`` would load a remote image.
Every helper here escapes its whole text; :func:`markdown` escapes only the values it is given,
for page text with user values inside. None of them shows a server path of the operator's
corpus or model folders (a library error names the file it could not read).
"""

from __future__ import annotations

import streamlit as st

from explorer._markup import escape_markdown
from explorer.server.settings import from_environment

__all__ = ["caption", "error", "escape", "info", "markdown", "warning"]

escape = escape_markdown


def _text(message: str | Exception) -> str:
    """``message`` escaped, with the operator's server folders left out
    (:meth:`explorer.server.settings.Settings.hide_paths`; the settings are read on every call, as
    :func:`explorer.ui.model_in_use.settings` reads them)."""
    try:
        text = from_environment().hide_paths(str(message))
    except ValueError:  # a malformed variable: the page says so elsewhere
        text = str(message)
    return escape_markdown(text)


def error(message: str | Exception, container=st) -> None:
    """``st.error`` of ``message`` (a string or a library ``ValueError``), escaped."""
    container.error(_text(message))


def warning(message: str | Exception, container=st) -> None:
    """``st.warning`` of ``message``, escaped."""
    container.warning(_text(message))


def info(message: str | Exception, container=st) -> None:
    """``st.info`` of ``message``, escaped."""
    container.info(_text(message))


def caption(message: str, container=st) -> None:
    """``st.caption`` of ``message``, escaped."""
    container.caption(_text(message))


def markdown(template: str, container=st, **values: object) -> None:
    """``st.markdown(template.format(**escaped values))``: the page's own Markdown in
    ``template`` formats; the ``values`` (user text) are escaped first."""
    container.markdown(template.format(**{k: _text(v) for k, v in values.items()}))
