"""Tables of texts a person must read whole: search results, a point's nearest texts.

Streamlit's data grid draws each cell on one line of a canvas and cuts a text at the column's
width (about 12 characters in the Projections panel). :func:`text_table_html` writes a plain
HTML table instead, whose text cells wrap, so every text is shown in full; numbers get a bar,
flags a tick. Pure: the page shows it with ``st.html``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

TABLE_CLASS = "explorer-texts"
"""The CSS class of every such table (the browser tests find them by it and ``data-name``)."""

BAR = "rgba(76,120,168,0.35)"

CELL = "border-bottom:1px solid rgba(128,128,128,0.25);padding:4px 6px;vertical-align:top;"
TEXT = CELL + "text-align:left;white-space:normal;overflow-wrap:anywhere;width:100%;"
NUMBER = CELL + "text-align:right;white-space:nowrap;"
OTHER = CELL + "text-align:left;"
TABLE = "border-collapse:collapse;width:100%;font-size:0.9rem;"
"""Inline styles (fixed, no user text in them): a style sheet would be one more tag a page
lets through."""


def _escape(text: str) -> str:
    """``text`` escaped for HTML, its square brackets too: were the table ever read as
    Markdown, ``[a](javascript:...)`` in a text would stay text."""
    return html.escape(text).replace("[", "&#91;").replace("]", "&#93;")


def _cell(
    value,
    column: str,
    *,
    text: bool,
    markup: bool,
    bar: tuple[float, float] | None,
    digits: int = 3,
) -> str:
    where = f'data-column="{html.escape(column)}"'
    if text:
        shown = str(value) if markup else _escape(str(value)).replace("\n", "<br>")
        return f'<td class="text" style="{TEXT}" {where}>{shown}</td>'
    if isinstance(value, bool | np.bool_):
        return f'<td style="{OTHER}" {where}>{"✓" if value else ""}</td>'
    if isinstance(value, float | np.floating):
        if np.isnan(value):  # no value (a first layer has no layer before it)
            return f'<td class="num" style="{NUMBER}" {where}></td>'
        style = NUMBER
        if bar is not None:
            low, high = bar
            filled = 100 * min(max((float(value) - low) / max(high - low, 1e-12), 0.0), 1.0)
            style += (
                f"background:linear-gradient(90deg,{BAR} {filled:.0f}%,transparent {filled:.0f}%);"
            )
        return (
            f'<td class="num" style="{style}" {where} data-value="{float(value)!r}">'
            f"{value:.{digits}f}</td>"
        )
    if isinstance(value, int | np.integer):
        return f'<td class="num" style="{NUMBER}" {where}>{int(value):,}</td>'
    return f'<td style="{OTHER}" {where}>{_escape(str(value))}</td>'


def text_table_html(
    frame: pd.DataFrame,
    name: str,
    *,
    titles: Mapping[str, str] | None = None,
    text_columns: Sequence[str] = ("text",),
    markup_columns: Sequence[str] = (),
    bars: Mapping[str, tuple[float, float]] | None = None,
    digits: Mapping[str, int] | None = None,
) -> str:
    """``frame`` as an HTML table named ``name`` (``data-name``), its columns titled by
    ``titles`` (default: the column names). Cells of ``text_columns`` wrap and are shown whole
    (escaped, unless the column is also in ``markup_columns``: HTML the caller escaped, such
    as a highlighted word); floats get 3 decimals, or ``digits[column]`` (the full value in
    ``data-value``; NaN an empty cell) and, for ``bars`` ``{column: (low, high)}``, a bar;
    booleans a tick; everything else is escaped text."""
    titles = dict(titles or {})
    bars = dict(bars or {})
    digits = dict(digits or {})
    head = "".join(
        f'<th style="{OTHER}" data-column="{html.escape(str(c))}">'
        f"{_escape(titles.get(c, str(c)))}</th>"
        for c in frame.columns
    )
    rows = []
    for values in frame.itertuples(index=False, name=None):
        cells = "".join(
            _cell(
                value,
                str(column),
                text=column in text_columns,
                markup=column in markup_columns,
                bar=bars.get(column),
                digits=digits.get(column, 3),
            )
            for column, value in zip(frame.columns, values, strict=True)
        )
        rows.append(f"<tr>{cells}</tr>")
    shared = sum(column in text_columns for column in frame.columns)
    if shared > 1:  # several text columns share the width instead of the first taking it
        rows = [row.replace("width:100%;", f"width:{100 // shared}%;") for row in rows]
    return (
        f'<table class="{TABLE_CLASS}" style="{TABLE}" data-name="{html.escape(name)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def marked_html(text: str, span: tuple[int, int] | None) -> str:
    """``text`` escaped for HTML, the word at the character ``span`` (if any) in ``<mark>``."""
    if span is None:
        return _escape(text)
    start, end = span
    return (
        f"{_escape(text[:start])}<mark><b>{_escape(text[start:end])}</b></mark>"
        f"{_escape(text[end:])}"
    )
