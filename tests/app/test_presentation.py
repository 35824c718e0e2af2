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
    assert at.get("plotly_chart") or at.get("arrow_data_frame") or at.get("html")


def test_without_presentation_mode_the_settings_stand_open(page):
    at = page("similarity")
    assert "Settings" not in [e.label for e in at.expander]
    assert at.text_area(key="similarity.text").value
