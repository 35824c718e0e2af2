"""Streamlit keeps a widget's ``format_func`` and callbacks for as long as the session shows
the widget. A lambda or function written in a page keeps the page's whole namespace alive with
it (the Attention page kept each session's last 75 MB of attention weights); a lambda in a
function keeps what it names. So widgets get :func:`explorer.ui.widgets.option_labels` (or a
module-level function, or a constant dict's ``get``), never a lambda or a page's function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from explorer.ui.widgets import option_labels

ROOT = Path(__file__).resolve().parents[1]
KEPT = {"format_func", "on_change", "on_click", "on_select", "on_submit"}
FILES = sorted([*ROOT.glob("pages/*.py"), ROOT / "app.py", *ROOT.glob("explorer/ui/**/*.py")])


def _kept_callables(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    page_functions = (
        {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        if path.parent.name == "pages" or path.name == "app.py"
        else set()
    )
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg not in KEPT:
                continue
            value = keyword.value
            if isinstance(value, ast.Lambda) or (
                isinstance(value, ast.Name) and value.id in page_functions
            ):
                found.append(f"{path.relative_to(root)}:{value.lineno} {keyword.arg}")
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_widgets_keep_no_lambda_or_page_function(path):
    assert _kept_callables(path) == []


def test_the_check_finds_a_lambda_and_a_page_function(tmp_path):
    page = tmp_path / "pages" / "demo.py"
    page.parent.mkdir()
    page.write_text(
        "import streamlit as st\n"
        "def reload():\n    pass\n"
        "st.selectbox('a', [1], format_func=lambda i: str(i))\n"
        "st.button('b', on_click=reload)\n"
    )
    found = _kept_callables(page, root=tmp_path)
    assert found == ["pages/demo.py:4 format_func", "pages/demo.py:5 on_click"]


def test_option_labels_hold_only_their_labels():
    label = option_labels((i, f"row {i}") for i in range(3))
    assert [label(i) for i in range(3)] == ["row 0", "row 1", "row 2"]
    assert label(7) == "7"  # a stale option: shown as it is, not an error
    (cell,) = label.__closure__
    assert cell.cell_contents == {0: "row 0", 1: "row 1", 2: "row 2"}
