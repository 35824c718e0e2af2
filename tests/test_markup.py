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


def test_plotly_text_keeps_quotes_escapes_tags_and_is_shortened():
    from explorer._markup import SHOWN_CHARS, escape_plotly, shorten

    assert escape_plotly('say "hi" & <b>bye</b>') == 'say "hi" &amp; &lt;b&gt;bye&lt;/b&gt;'
    assert escape_plotly("x" * 1_000) == "x" * (SHOWN_CHARS - 1) + "…"
    assert len(escape_plotly("<" * 1_000)) == 4 * (SHOWN_CHARS - 1) + 1  # cut, then escaped
    assert escape_plotly("<" * 100, None) == "&lt;" * 100
    assert shorten("abc", 3) == "abc" and shorten("abcd", 3) == "ab…"
