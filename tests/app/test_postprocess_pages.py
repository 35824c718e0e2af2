"""AppTest of the post-processing choice on Projections, Similarity & search and Word in
context: off by default, and when chosen it changes the numbers, says what the top rogue
dimensions carried before and after, and shows in "Show code"."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.app.rendered import plain
from tests.app.test_context_page import _array

pytestmark = pytest.mark.slow


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _chart(at, key: str) -> dict:
    return next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if c.key == key)


def _rogue(at) -> list[str]:
    return [plain(m.value) for m in at.info if "dimensions" in m.value and "carried" in m.value]


CASES = [
    # page, chart key, mode, what the note says is the reference, its "after" words, code line
    ("projections", "projections.chart", "standardize", "240 texts on the map",
     "after standardize", "std = vectors.std(axis=0)"),
    ("similarity", "similarity.heatmaps", "abtt", "60 built-in remarks",
     "after all-but-the-top", "reference_vectors = pooled_vectors(reference)"),
    ("context", "context.heatmap", "standardize", "every token of these sentences",
     "after standardize", "Post-processing (standardize)"),
]  # fmt: skip


def _values(figure: dict) -> np.ndarray:
    """The chart's numbers: a heatmap's cells or a map's x coordinates."""
    trace = figure["data"][0]
    return _array(trace["z"]) if "z" in trace else _array(trace["x"])


@pytest.mark.parametrize(("name", "chart", "mode", "reference", "after", "code"), CASES)
def test_post_processing_changes_the_numbers_says_so_and_shows_in_the_code(
    page, name, chart, mode, reference, after, code
):
    at = page(name)
    _ok(at)
    assert at.selectbox(key=f"{name}.post").value == "none"  # off by default
    assert not _rogue(at)
    before = _values(_chart(at, chart))
    at.selectbox(key=f"{name}.post").set_value(mode).run()
    _ok(at)
    notes = _rogue(at)
    assert len(notes) == 1 and reference in notes[0] and after in notes[0], notes
    figure = _chart(at, chart)
    values = _values(figure)
    assert values.shape == before.shape and not np.allclose(values, before)
    assert any(code in c.value for c in at.code)
    if name == "context":
        assert "(standardized)" in figure["layout"]["title"]["text"]
