"""Running a "Show code" snippet in the tests: the way a person would paste it into Python."""

from __future__ import annotations

import contextlib
import io
import os
import re


def run_snippet(
    source: str, name: str = "<snippet>", folder: str | os.PathLike | None = None
) -> tuple[dict, str]:
    """Execute ``source`` in a fresh namespace (in ``folder`` when given, for snippets that
    open files by relative name); return the namespace and what it printed."""
    namespace: dict = {}
    out = io.StringIO()
    with (
        contextlib.chdir(folder) if folder is not None else contextlib.nullcontext(),
        contextlib.redirect_stdout(out),
    ):
        exec(compile(source, name, "exec"), namespace)  # noqa: S102 - the test's own snippet
    return namespace, out.getvalue()


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?%|(?<![\w.])[-+]?\d+\.\d+")


def headline_numbers(text: str) -> list[str]:
    """The percents and decimals of ``text`` (``"45%"``, ``"0.94"``, ``"+0.12"``): the numbers
    a page's headline quotes, as its sentence prints them."""
    return _NUMBER.findall(text)


def assert_prints_headline(printed: str, headline: str, constants: tuple[str, ...] = ()) -> None:
    """Every percent and decimal of the page's ``headline`` is among those the snippet
    ``printed`` (but the thresholds and paper values named in ``constants``)."""
    shown = {number.lstrip("+") for number in headline_numbers(printed)}
    missing = [
        number
        for number in headline_numbers(headline)
        if number not in constants and number.lstrip("+") not in shown
    ]
    assert not missing, f"the snippet does not print {missing} of the headline {headline!r}"
