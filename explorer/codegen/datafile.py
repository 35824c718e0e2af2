"""A snippet's data beside it: a few texts are written into the program, more go to a JSON
file the page offers next to the code, which the program reads (the program stays short enough
to read; the texts are still all there, so it prints the page's numbers)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from explorer.codegen import literal

INLINE_ROWS = 20
"""Most rows a snippet writes out; beyond, its data is a file (:func:`data_file`)."""


def inline(rows: int) -> bool:
    """Whether a snippet of ``rows`` rows writes them out (else it reads :func:`data_file`)."""
    return rows <= INLINE_ROWS


def _plain(value: object) -> object:
    """``value`` as JSON holds it: numbers as floats (NaN stays NaN, which Python's json
    reads back), the rest as text."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) or hasattr(value, "dtype"):
        return float(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)


def data_file(columns: Mapping[str, Sequence]) -> bytes:
    """The JSON file a snippet reads: ``{name: list}`` for each of ``columns`` (UTF-8)."""
    data = {name: [_plain(v) for v in values] for name, values in columns.items()}
    return json.dumps(data, ensure_ascii=False, indent=0).encode("utf-8")


def read_lines(file_name: str, names: Sequence[str]) -> str:
    """Snippet lines reading the lists ``names`` from ``file_name`` (:func:`data_file`)."""
    assigned = ", ".join(names)
    taken = ", ".join(f"data[{literal(name)}]" for name in names)
    return (
        "import json\n\n"
        f"# the page's data: save {file_name} (the button above the code) beside this program\n"
        f"with open({literal(file_name)}, encoding='utf-8') as file:\n"
        "    data = json.load(file)\n"
        f"{assigned} = {taken}\n"
    )
