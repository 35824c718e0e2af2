"""Escaping user text for Streamlit Markdown (st.markdown, st.error, st.caption, ...)."""

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
