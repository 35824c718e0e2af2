"""Escaping user text for Streamlit Markdown (st.markdown, st.error, st.caption, ...) and for
plotly's text (legend entries, hover labels, titles), and shortening it for display."""

from __future__ import annotations

import html
import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$:])")
_AUTOLINK_STARTS = re.compile(r"(?<![^\W_])(?:https?(?=\\:)|www(?=\\\.))|(?=@)", re.IGNORECASE)
WORD_JOINER = "\u2060"
"""An invisible character that breaks an address apart for the renderer's link finder."""


def escape_markdown(text: str) -> str:
    """``text`` safe for ``st.markdown``, ``st.error`` and friends (also with HTML allowed).

    Markdown specials (``*``, ``_``, ``$``, ``[``, ``:``, ...) are backslash-escaped, then
    ``&``, ``<`` and ``>`` HTML-escaped, so user text never formats, links or runs anything.
    The renderer turns bare addresses into live links after escapes are undone (GFM
    *autolink literals*: ``http://``, ``https://``, ``www.``, ``name@host``), so an invisible
    :data:`WORD_JOINER` goes after ``http``/``https``/``www`` and before ``@``: the text reads
    the same and links nothing.
    """
    escaped = html.escape(_MARKDOWN_SPECIALS.sub(r"\\\1", text), quote=False)
    return _AUTOLINK_STARTS.sub(lambda m: m.group(0) + WORD_JOINER, escaped)


SHOWN_CHARS = 80
"""Most characters of a label, value or column name a figure shows (a legend entry, a hover
label, a colour bar's title, a sentence naming a group): a browser lays out plotly's text
node by node, and one legend entry of 100,000 characters kept it busy for minutes."""


def shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` as it is when it has at most ``limit`` characters, else its first
    ``limit - 1`` and "…"."""
    text = str(text)
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def escape_plotly(text: str, limit: int | None = SHOWN_CHARS) -> str:
    """``text`` safe for plotly's text (a trace's name, a hover label, a title), shortened to
    ``limit`` characters first (``None``: whole).

    Plotly reads a subset of HTML in text: tags (``<b>``, ``<br>``, ``<a href>``, ...) and
    entities, of which it decodes ``&amp;``, ``&lt;``, ``&gt;``, numeric ones and a few others
    but not ``&quot;`` (plotly.js ``convertEntities``). So only ``&``, ``<`` and ``>`` are
    escaped: no tag can form, and a quote shows as a quote.
    """
    text = str(text) if limit is None else shorten(text, limit)
    return html.escape(text, quote=False)
