"""Streamlit's "magic" writes every bare expression of a page script to the page: a string
meant as a constant's docstring shows up as stray text above the page's title."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
DOCSTRING_HOLDERS = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def bare_strings(tree: ast.AST) -> list[int]:
    """Line numbers of string statements that are not a module, class or function docstring."""
    lines = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for index, statement in enumerate(body):
            if not (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                continue
            if index == 0 and isinstance(node, DOCSTRING_HOLDERS):
                continue
            lines.append(statement.lineno)
    return lines


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_no_bare_string_reaches_the_page(script: Path) -> None:
    assert bare_strings(ast.parse(script.read_text())) == []


def test_the_check_finds_a_constant_docstring() -> None:
    tree = ast.parse('"""Page."""\nLIMIT = 3\n"""The limit."""\n')
    assert bare_strings(tree) == [3]
