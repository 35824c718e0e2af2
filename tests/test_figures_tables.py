"""Tables of texts shown whole: escaped, wrapped, numbers as bars and ticks."""

from __future__ import annotations

import pandas as pd

from explorer.figures.tables import TABLE_CLASS, marked_html, text_table_html
from tests.app.rendered import _Table

LONG = "A long text <b>with markup</b> & *stars* " * 8


def _read(page: str, name: str) -> tuple[list[str], list[list[str]]]:
    reader = _Table()
    reader.feed(page)
    head, *rows = reader.tables[name]
    return reader.columns[name], rows


def test_every_text_is_shown_whole_escaped_and_wrapping():
    frame = pd.DataFrame(
        {"rank": [1, 2], "score": [0.9, 0.25], "near": [True, False], "text": [LONG, "short"]}
    )
    page = text_table_html(frame, "results", titles={"score": "Cosine"}, bars={"score": (0, 1)})
    assert f'<table class="{TABLE_CLASS}"' in page and 'data-name="results"' in page
    assert "<style" not in page  # inline styles only
    link = text_table_html(pd.DataFrame({"text": ["[x](javascript:alert(1))"]}), "links")
    assert "](javascript:" not in link and _read(link, "links")[1] == [["[x](javascript:alert(1))"]]
    assert "<b>with" not in page and "&lt;b&gt;with markup&lt;/b&gt; &amp;" in page
    assert "white-space:normal" in page and "overflow-wrap:anywhere" in page
    columns, rows = _read(page, "results")
    assert columns == ["rank", "score", "near", "text"]
    assert rows[0] == ["1", "0.9", "✓", LONG] and rows[1] == ["2", "0.25", "", "short"]
    assert ">0.900</td>" in page and 'data-value="0.25"' in page  # shown with 3 decimals
    assert "90%" in page and "25%" in page  # the bars follow the cosines
    assert ">Cosine</th>" in page and ">near</th>" in page
    assert page.count('data-value="') == 2 and "90%" in page


def test_a_marked_word_is_the_only_markup():
    marked = marked_html("<i>bank</i> of the river", (3, 7))
    assert marked == "&lt;i&gt;<mark><b>bank</b></mark>&lt;/i&gt; of the river"
    assert marked_html("a < b", None) == "a &lt; b"
    page = text_table_html(pd.DataFrame({"text": [marked]}), "t", markup_columns=("text",))
    assert "<mark><b>bank</b></mark>" in page and "&amp;lt;" not in page
