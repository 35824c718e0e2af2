"""What a reader sees of Markdown the app escaped: AppTest returns the Markdown source."""

from __future__ import annotations

import html
import re

from explorer._markup import WORD_JOINER


def plain(markdown: str) -> str:
    """``markdown`` with backslash escapes and HTML entities undone (``In use\\: x`` -> ``In
    use: x``) and the invisible word joiners that keep addresses from linking removed: the
    text a person reads on the page."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown)).replace(WORD_JOINER, "")
