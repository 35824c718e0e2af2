"""What a reader sees of Markdown the app escaped: AppTest returns the Markdown source."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pandas as pd

from explorer._markup import WORD_JOINER


def plain(markdown: str) -> str:
    """``markdown`` with backslash escapes and HTML entities undone (``In use\\: x`` -> ``In
    use: x``) and the invisible word joiners that keep addresses from linking removed: the
    text a person reads on the page."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown)).replace(WORD_JOINER, "")


class _Table(HTMLParser):
    """Reads the cells of :func:`explorer.figures.tables.text_table_html`'s tables."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._rows: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self.columns: dict[str, list[str]] = {}
        self._exact = False

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "table":
            self._rows = self.tables.setdefault(dict(attrs).get("data-name", ""), [])
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            value = dict(attrs).get("data-value")  # a number's full value, not its 3 decimals
            self._cell = [] if value is None else [value]
            self._exact = value is not None
            if tag == "th":
                self.columns.setdefault(self._name(), []).append(dict(attrs).get("data-column"))

    def _name(self) -> str:
        return next(k for k, v in self.tables.items() if v is self._rows)

    def handle_endtag(self, tag) -> None:
        if tag in ("td", "th") and self._cell is not None and self._rows is not None:
            self._rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._rows = None

    def handle_data(self, data) -> None:
        if self._cell is not None and not self._exact:
            self._cell.append(data)


NUMERIC = ("rank", "score", "index", "row", "point", "cosine")


def html_table(at, name: str) -> pd.DataFrame | None:
    """The table ``data-name=name`` an AppTest run shows with ``st.html`` (its cells as the
    text a person reads; columns named as in the frame it was built from, those of
    :data:`NUMERIC` as numbers), or None when there is none."""
    for element in at.get("html"):
        reader = _Table()
        reader.feed(element.proto.body)
        if name in reader.tables:
            _, *rows = reader.tables[name]
            frame = pd.DataFrame(rows, columns=reader.columns[name])
            for column in NUMERIC:
                if column in frame:
                    frame[column] = pd.to_numeric(frame[column].str.replace(",", ""))
            return frame
    return None
