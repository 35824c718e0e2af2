"""The README's commands work as written on a fresh clone, without an activated venv."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_no_command_relies_on_an_activated_venv():
    # `pip install -e .` puts `explorer` in .venv/bin, which is not on PATH until the venv is
    # activated: the README's `explorer embed ...` was "command not found".
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    bare = [
        line
        for line in lines
        if re.match(r"^(explorer|streamlit|pytest|pip|python) ", line)
        or re.match(r"^[A-Z_]+=\S+ (explorer|streamlit|pytest|pip) ", line)
    ]
    assert bare == []
