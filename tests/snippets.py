"""Running a "Show code" snippet in the tests: the way a person would paste it into Python."""

from __future__ import annotations

import contextlib
import io
import os


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
