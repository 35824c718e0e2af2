"""The README's commands work as written on a fresh clone, without an activated venv, and its
library example runs and says what it prints."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks(language: str) -> list[str]:
    """The README's fenced code blocks of ``language``."""
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_no_command_relies_on_an_activated_venv():
    # `pip install -e .` puts `explorer` in .venv/bin, which is not on PATH until the venv is
    # activated: the README's `explorer embed ...` was "command not found".
    lines = [line.strip() for block in blocks("bash") for line in block.splitlines()]
    bare = [
        line
        for line in lines
        if re.match(r"^(explorer|streamlit|pytest|pip|python) ", line)
        or re.match(r"^[A-Z_]+=\S+ (explorer|streamlit|pytest|pip) ", line)
    ]
    assert bare == []


def test_the_library_example_runs_and_its_comments_hold():
    (example,) = blocks("python")
    assert len(example.strip().splitlines()) <= 12  # "the library in ten lines", imports aside
    found: dict = {}
    exec(compile(example, "README.md", "exec"), found)  # the project's own README, nothing else
    explorer, model, bank = found["explorer"], found["model"], found["bank"]
    assert len(model.tokenize(bank).tokens) == 19
    assert model.hidden_states(bank).shape == (7, 19, 384)
    assert len(found["occurrences"]) == 3 and found["vectors"].shape[0] == 3
    assert explorer.cosine_similarity(found["vectors"]).shape == (3, 3)
    closest = explorer.neighbors(found["corpus"].sentence("mean", "last"), 0, k=1).indices
    assert closest.tolist() == [1]  # "the dog"


def test_the_images_exist_and_are_small():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README.read_text())
    assert len(images) >= 3
    for image in images:
        path = README.parent / image
        assert path.is_file(), image
        assert path.stat().st_size < 300_000, image
