"""explorer._markup: user text never formats or links once escaped."""

from __future__ import annotations

import re

import pytest

from explorer._markup import WORD_JOINER, escape_markdown
from tests.app.rendered import plain

GFM_LITERAL = re.compile(r"(?<![^\W_])(https?://|www\.)|[\w.+-]@[\w-]", re.IGNORECASE)
"""What the renderer links in text once escapes are undone (GFM autolink literals)."""


@pytest.mark.parametrize(
    "text",
    [
        "see http://127.0.0.1:8000/x.png now",
        "HTTPS://host/a and (https://host/b)",
        "www.example.org",
        "write to me@example.org",
        "![p](http://host/x.png) [click](http://host/y) <http://host/z>",
        '<img src="http://host/i.png"> <a href="http://host/l">a</a>',
    ],
)
def test_escaped_text_reads_the_same_and_links_nothing(text):
    escaped = escape_markdown(text)
    assert plain(escaped) == text
    shown = plain(escaped.replace(WORD_JOINER, "\0")).replace("\0", WORD_JOINER)
    assert not GFM_LITERAL.search(shown), shown
    assert "<" not in escaped and "](" not in escaped


def test_words_that_merely_contain_http_or_www_are_left_alone():
    assert escape_markdown("shttp and awww") == "shttp and awww"
