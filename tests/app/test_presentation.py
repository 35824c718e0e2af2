"""AppTest of presentation mode: the sidebar toggle, its page link and its style sheet."""

from __future__ import annotations

import pytest

from explorer.ui.presentation import KEY, STYLE, WHOLE_LABELS


def _styles(at) -> list[str]:
    return [element.proto.body for element in at.get("html") if "<style>" in element.proto.body]


def test_the_toggle_adds_the_style_and_puts_itself_in_the_link(page):
    at = page("similarity")
    assert at.sidebar.toggle(key=KEY).value is False
    assert _styles(at) == [WHOLE_LABELS]  # labels wrap in both modes
    assert KEY not in at.query_params
    intro = len(at.expander)

    at.sidebar.toggle(key=KEY).set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    assert _styles(at) == [WHOLE_LABELS, STYLE]
    assert "font-size: 135%" in STYLE
    # Bound to the link: the browser writes ?present=true (tests/browser/test_presentation.py).
    assert at.sidebar.toggle(key=KEY).proto.query_param_key == KEY
    assert len(at.expander) == intro + 3  # the introduction, the settings and the corpus fold
    assert at.expander[0].label == "About this page"

    at.sidebar.toggle(key=KEY).set_value(False).run()
    assert STYLE not in _styles(at)
    assert len(at.expander) == intro
    assert at.text_area(key="similarity.text").value  # a folded widget keeps its value


def test_a_shared_link_opens_in_presentation_mode(fresh_app):
    at = fresh_app
    at.query_params[KEY] = "true"
    at.run()
    at.switch_page("pages/tokens.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.toggle(key=KEY).value is True
    assert _styles(at) == [WHOLE_LABELS, STYLE]
    assert at.query_params[KEY] == "true"


def _cell_fonts(at, key: str) -> list[float]:
    import json

    chart = next(c for c in at.get("plotly_chart") if c.key == key)
    return [t["textfont"]["size"] for t in json.loads(chart.proto.spec)["data"] if "textfont" in t]


def test_heatmap_numbers_grow_in_presentation_mode(page):
    # issue 27.5: the style sheet scales text in rem, not the pixel sizes a figure sets
    from explorer.ui.presentation import SCALE

    at = page("similarity")
    before = _cell_fonts(at, "similarity.heatmaps")
    at.sidebar.toggle(key=KEY).set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    after = _cell_fonts(at, "similarity.heatmaps")
    assert before and all(a >= b * SCALE - 1 and a > b for a, b in zip(after, before, strict=True))


SETTINGS = {
    "tokens": ("text_area", "tokens.text"),
    "layers": ("slider", "layers.layer"),
    "attention": ("text_area", "attention.text"),
    "context": ("text_area", "context.text"),
    "projections": ("radio", "projections.level"),
    "probe": ("slider", "probe.folds"),
    "similarity": ("text_area", "similarity.text"),
    "contextual": ("toggle", "contextual.random"),
}
"""One of each page's settings widgets (kind, key): folded away in presentation mode."""


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SETTINGS))
def test_presentation_mode_folds_each_pages_settings_away(fresh_app, name):
    # issue 27.5: the settings fold into a collapsed expander; the results stay in view
    kind, key = SETTINGS[name]
    at = fresh_app
    at.query_params[KEY] = "true"
    at.run()
    at.switch_page(f"pages/{name}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    (folded,) = [e for e in at.expander if e.label == "Settings"]
    assert "About this page" in [e.label for e in at.expander]  # the introduction folds too
    assert not folded.proto.expanded
    assert getattr(folded, kind)(key=key) is not None
    assert at.get("plotly_chart") or at.get("table") or at.get("html")
    assert not at.get("arrow_data_frame")  # issue 33.8: a grid would keep its small font


def test_without_presentation_mode_the_settings_stand_open(page):
    at = page("similarity")
    assert "Settings" not in [e.label for e in at.expander]
    assert at.text_area(key="similarity.text").value


def test_tables_are_grids_normally_and_static_tables_when_presenting(page):
    # issue 33.8: a data grid keeps the font size of the moment it mounts (a canvas, pixels);
    # presentation mode draws every table as st.table (HTML in rem) with every row
    at = page("tokens")
    (grid,) = at.dataframe
    assert not at.table and "segment_id" in grid.value.columns
    at.sidebar.toggle(key=KEY).set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.dataframe
    (table,) = at.table
    assert len(table.value) == len(grid.value)
    assert "segment" in table.value.columns and "segment_id" not in table.value.columns


def test_a_static_table_reads_as_the_grid_would():
    import pandas as pd
    import streamlit as st

    from explorer.ui.presentation import static_table

    frame = pd.DataFrame(
        {
            "token": ["[x](javascript:alert(1))", "*bold*"],
            "id": pd.array([101, None], dtype="Int64"),
            "cosine": [0.123456, 0.5],
            "change": [0.25, float("nan")],
            "special": [True, False],
            "other": [1.5, 2.0],
        }
    )
    config = {
        "token": st.column_config.TextColumn("the token", help="not shown"),
        "id": st.column_config.NumberColumn("id", format="%d"),
        "cosine": st.column_config.NumberColumn("cos", format="%.3f"),
        "change": st.column_config.ProgressColumn(
            "change", format="%.2f", min_value=0.0, max_value=1.0
        ),
        "special": "is special",
    }
    styled = static_table(frame, config)
    assert list(styled.data.columns) == ["the token", "id", "cos", "change", "is special", "other"]
    shown = styled.to_html()
    assert "\\[x\\]\\(javascript\\:alert\\(1\\)\\)" in shown and "\\*bold\\*" in shown
    assert ">101<" in shown and "<NA>" not in shown and "&lt;NA&gt;" not in shown
    assert ">0.123<" in shown and ">0.25<" in shown and ">nan<" not in shown
    assert ">✓<" in shown and ">1.5<" in shown and ">2<" in shown
    assert "linear-gradient" in shown  # the progress column's bar


def test_every_table_is_drawn_through_presentation_table():
    # a data grid drawn directly would keep its small font in presentation mode (issue 33.8)
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sources = [root / "app.py", *root.glob("pages/*.py"), *(root / "explorer").rglob("*.py")]
    direct = [
        f"{path.relative_to(root)}:{number}"
        for path in sources
        if path.name != "presentation.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\.(dataframe|data_editor)\(", line)
    ]
    assert direct == []


def _two_tables():
    import pandas as pd
    import streamlit as st

    from explorer.ui import presentation

    st.session_state[presentation.KEY] = True
    presentation.table(pd.DataFrame({"mev": [0.9, 0.8]}, index=pd.RangeIndex(2, name="layer")))
    presentation.table(pd.DataFrame({"mev": [0.9, 0.8]}))


def test_a_static_table_keeps_a_named_index_as_the_grid_does():
    # How contextual?'s one-word table is indexed by "layer" 0..12: the grid shows it, and
    # st.table (Streamlit 1.67) hid every RangeIndex, so the rows lost their layer.
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_two_tables, default_timeout=60).run()
    assert not at.exception, [e.message for e in at.exception]
    named, unnamed = at.table
    assert named.value.index.name == "layer" and named.proto.hide_index is False
    assert unnamed.proto.hide_index is True  # 0, 1, ... of a frame without an index: left out
