"""Escaping user text for Streamlit Markdown (st.markdown, st.error, st.caption, ...)."""

from __future__ import annotations

import html
import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$:])")


def escape_markdown(text: str) -> str:
    """``text`` safe for ``st.markdown``, ``st.error`` and friends (also with HTML allowed).

    Markdown specials (``*``, ``_``, ``$``, ``[``, ``:``, ...) are backslash-escaped, then
    ``&``, ``<`` and ``>`` HTML-escaped, so user text never formats, links or runs anything.
    """
    return html.escape(_MARKDOWN_SPECIALS.sub(r"\\\1", text), quote=False)
