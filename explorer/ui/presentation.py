"""Presentation mode, for a projector: larger text, the sidebar folded away, fewer controls.

A sidebar toggle bound to the page link (``?present=true``), so a teacher can share a link that
opens in it. app.py draws it right after the page menu and passes :func:`sidebar_state` to
``st.set_page_config`` (only the router calls that).

On, :func:`toggle` adds one fixed style sheet (:data:`STYLE`, no user text in it). It scales the
root font size, and Streamlit sizes almost everything from it (Streamlit 1.67): text, headings,
metric values and captions are in ``rem``; the data-grid tables and the Plotly theme's fonts
(titles, ticks, legends) convert ``rem`` to pixels with the root font size when they are drawn
(``convertRemToPx`` in the frontend). Help icons and download buttons are hidden; "Show code"
expanders stay collapsed, as they open; :func:`explorer.ui.widgets.header` folds the page's
introduction into an expander, and each page draws its settings in :func:`controls`, a folded
"Settings" expander (the Projections map takes the full width, its panel under it).
``tests/app/test_presentation.py`` and ``tests/browser/test_presentation_mode.py`` fail when
any of this stops working.

A chart already on screen when the toggle is turned keeps its font size until it is drawn
again (the frontend keeps a chart's themed figure by element id): the shared link, or a reload,
opens with everything at the new size. A data grid (``st.dataframe``) keeps the font size of
the moment it mounts, which comes before this style sheet, also from the shared link: a table
that must grow is an HTML table in presentation mode (the Layers summary;
``tests/browser/test_presentation_tables.py``). In both modes :data:`WHOLE_LABELS` keeps labels
whole (``tests/browser/test_cut_labels.py``).
"""

from __future__ import annotations

import streamlit as st

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
