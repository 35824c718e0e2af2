"""Presentation mode, for a projector: larger text, the sidebar folded away, fewer controls.

A sidebar toggle bound to the page link (``?present=true``), so a teacher can share a link that
opens in it. app.py draws it right after the page menu and passes :func:`sidebar_state` to
``st.set_page_config`` (only the router calls that).

On, :func:`toggle` adds one fixed style sheet (:data:`STYLE`, no user text in it). It scales the
root font size, and Streamlit sizes almost everything from it (Streamlit 1.67): text, headings,
metric values and captions are in ``rem``; the Plotly theme's fonts (titles, ticks, legends)
convert ``rem`` to pixels with the root font size when they are drawn (``convertRemToPx`` in
the frontend); tables are drawn by :func:`table` (below). Help icons and download buttons are
hidden; "Show code" expanders stay collapsed, as they open; :func:`explorer.ui.widgets.header`
folds the page's introduction into an expander, and each page draws its settings in
:func:`controls`, a folded "Settings" expander (the Projections map takes the full width, its
panel under it).
``tests/app/test_presentation.py`` and ``tests/browser/test_presentation_mode.py`` fail when
any of this stops working.

A chart already on screen when the toggle is turned keeps its font size until it is drawn
again (the frontend keeps a chart's themed figure by element id): the shared link, or a reload,
opens with everything at the new size. In both modes :data:`WHOLE_LABELS` keeps labels whole
(``tests/browser/test_cut_labels.py``).

Tables: every page draws them with :func:`table`. The data grid (``st.dataframe``) paints its
cells on a canvas with fonts in pixels, which it works out once, when it mounts: a
``useMemo`` keyed on the app's theme object converts ``fontSizes.sm`` (0.875rem) with the
root font size of that moment. The theme object changes only with the server's ``[theme]``
config (``theme.baseFontSize`` sets the root size for every visitor; it is sent with each
run, there is no per-session theme and no per-table font option), so the grid never sees this
style sheet unless it happens to be in the document first: it is committed in the same render
as the grid or later, which is why a first load once drew 18.9 px and the reload 14 px. In
presentation mode :func:`table` draws ``st.table`` instead, whose cells are HTML sized in
``rem``: they grow with the style sheet whenever it arrives, and show every row (no inner
scroll). ``tests/browser/test_presentation_tables.py`` measures the tables as drawn.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from explorer.ui.messages import escape

KEY = "present"
"""Widget key of the toggle, and its query parameter (``?present=true``)."""

SCALE = 1.35
"""Root font size in presentation mode, relative to the browser's (16 px -> 21.6 px)."""

STYLE = f"""<style>
html {{ font-size: {SCALE * 100:.0f}% !important; }}
[data-testid="stMainBlockContainer"] {{ padding-top: 2.5rem; max-width: 100%; }}
[data-testid="stTooltipIcon"], [data-testid="stDownloadButton"] {{ display: none !important; }}
</style>"""
"""The presentation style sheet: a constant (never formatted with user text)."""


WHOLE_LABELS = """<style>
[data-testid="stMetricLabel"] *, [data-testid="stWidgetLabel"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
[data-testid="stMultiSelect"] [role="group"], [data-testid="stMultiSelectTagsContainer"] {
  flex-wrap: wrap !important; overflow: visible !important; height: auto !important;
  max-height: none !important;
}
[data-testid="stMultiSelectTagsContainer"] [data-tag] { max-width: none !important; }
[data-testid="stMultiSelectTagsContainer"] [data-tag] > span {
  overflow: visible !important; text-overflow: clip !important;
}
</style>"""
"""Always on (both modes): metric and widget labels wrap instead of ending in an ellipsis, and
a multiselect's chips wrap onto more lines instead of scrolling out of the box ("Max over
to…", a fourth chip hidden). A constant, never formatted with user text."""


def toggle() -> bool:
    """The "Presentation mode" toggle in the sidebar, bound to the page link; the
    :data:`WHOLE_LABELS` style sheet, and when on, the presentation style sheet for this run.
    Returns whether it is on."""
    on = st.sidebar.toggle(
        "Presentation mode",
        key=KEY,
        bind="query-params",
        help="For a projector: larger text, the sidebar folded away, no help icons or "
        "downloads. The page link keeps it (?present=true): share it, or reload the page so "
        "that charts already drawn grow too. Open the sidebar (top left) to turn it off.",
    )
    st.html(WHOLE_LABELS)
    if on:
        st.html(STYLE)
    return on


def is_on() -> bool:
    """Whether presentation mode is on in this session (after :func:`toggle` ran)."""
    return bool(st.session_state.get(KEY, False))


def scale() -> float:
    """How much larger figures draw the sizes they set in pixels (numbers in heatmap cells,
    labels): :data:`SCALE` in presentation mode, else 1. The style sheet cannot reach them."""
    return SCALE if is_on() else 1.0


def controls(key: str, label: str = "Settings"):
    """Where a page draws its settings (texts, models' options, the map's method): a plain
    container, or in presentation mode a folded expander called ``label``, with the widget key
    ``key`` (its CSS class ``st-key-<key>``). The widgets run either way (their keys, not their
    place, hold their values), so the results below them stay; the presenter opens it to
    change something while the room looks at the results."""
    if is_on():
        return st.expander(label, icon=":material/tune:", key=key)
    return st.container()


def sidebar_state(on: bool) -> str:
    """``initial_sidebar_state`` for ``st.set_page_config``: folded away when presenting."""
    return "collapsed" if on else "auto"


BAR = "#4c78a855"
"""Colour of a progress column's bar in presentation mode."""


def table(
    data: pd.DataFrame,
    *,
    column_config: Mapping[str, object] | None = None,
    hide_index: bool | None = None,
    width: str | int = "stretch",
    height: str | int = "auto",
    key: str | None = None,
    placeholder: str | None = None,
    container=st,
) -> None:
    """``data`` as a table in ``container``: the interactive data grid (``st.dataframe`` with
    these arguments: sorting, column widths) normally; in presentation mode a static
    ``st.table`` that grows with the page's font and shows every row (``height`` is the grid's
    only), its columns titled and numbers formatted as ``column_config`` says (see
    :func:`static_table`), a named index kept (Streamlit 1.67's ``st.table`` hides a
    ``RangeIndex`` unless told, so "layer" 0..12 vanished). ``placeholder``: what a missing
    value reads as in both (the grid otherwise paints a grey "None", the static table leaves
    the cell empty)."""
    if not is_on():
        container.dataframe(
            data,
            width=width,
            height=height,
            hide_index=hide_index,
            column_config=column_config,
            key=key,
            placeholder=placeholder,
        )
        return
    if hide_index is None:  # the grid shows any index; st.table hides every RangeIndex
        hide_index = isinstance(data.index, pd.RangeIndex) and data.index.name is None
    styled = static_table(data, column_config or {}, missing=placeholder or "")
    container.table(styled, hide_index=hide_index, width=width)


def static_table(
    data: pd.DataFrame, column_config: Mapping[str, object], missing: str = ""
) -> Styler:
    """``data`` styled for ``st.table`` as ``column_config`` (``st.column_config`` values or
    plain titles, by column) has the grid show it: each column's title (``st.table`` shows
    the data's column names, not a Styler's), a number column's printf ``format``, a progress
    column's bar (from ``min_value`` to ``max_value``), booleans as ticks, missing values as
    ``missing`` (empty unless given), other floats with up to 4 decimals. Every text, title
    and index value is escaped (``st.table`` reads them as Markdown)."""
    titles, formats, bars = [], [], {}
    for column in data.columns:
        config = column_config.get(column)
        config = {"label": config} if isinstance(config, str) else dict(config or {})
        kind = dict(config.get("type_config") or {})
        titles.append(escape(str(config.get("label") or column)))
        formats.append(_formatter(kind.get("format"), escape(missing)))
        if kind.get("type") == "progress":
            bars[titles[-1]] = (kind.get("min_value"), kind.get("max_value"))
    frame = data.set_axis(titles, axis=1)
    styled = frame.style.format_index(lambda v: escape(str(v)), axis=0)
    for number, shown in enumerate(formats):
        styled = styled.format(shown, subset=frame.columns[[number]])
    for title, (low, high) in bars.items():
        styled = styled.bar(subset=[title], vmin=low, vmax=high, color=BAR)
    return styled


def _formatter(printf: str | None, missing: str = ""):
    """How a grid column's cells read as text (see :func:`static_table`); a missing value
    reads ``missing``."""

    def shown(value) -> str:
        if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
            return missing
        if isinstance(value, bool | np.bool_):
            return "✓" if value else ""
        if isinstance(value, int | float | np.number):
            if printf and "%" in printf:
                return printf % value
            if isinstance(value, float | np.floating):
                return f"{value:.4f}".rstrip("0").rstrip(".")
            return str(value)
        return escape(str(value))

    return shown
