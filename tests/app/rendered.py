"""What a reader sees of Markdown the app escaped: AppTest returns the Markdown source."""

from __future__ import annotations

import html
import re


def plain(markdown: str) -> str:
    """``markdown`` with backslash escapes and HTML entities undone (``In use\\: x`` -> ``In
    use: x``): the text a person reads on the page."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown))
