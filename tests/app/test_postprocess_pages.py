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


def test_projections_post_processing_changes_the_map_and_says_so(page):
    at = page("projections")
    _ok(at)
    assert at.selectbox(key="projections.post").value == "none"
    assert not _rogue(at)
    before = [json.loads(c.proto.spec) for c in at.get("plotly_chart")][0]
    at.selectbox(key="projections.post").set_value("standardize").run()
    _ok(at)
    notes = _rogue(at)
    assert len(notes) == 1 and "240 texts on the map" in notes[0]
    assert "after standardize" in notes[0]
    after = [json.loads(c.proto.spec) for c in at.get("plotly_chart")][0]
    assert after["data"][0]["x"] != before["data"][0]["x"]
    assert any("std = vectors.std(axis=0)" in c.value for c in at.code)


def test_similarity_post_processing_changes_the_comparison_and_its_code(page):
    at = page("similarity")
    _ok(at)
    assert at.selectbox(key="similarity.post").value == "none"
    assert not _rogue(at)
    before = _array(_chart(at, "similarity.heatmaps")["data"][0]["z"])
    at.selectbox(key="similarity.post").set_value("abtt").run()
    _ok(at)
    notes = _rogue(at)
    assert len(notes) == 1 and "60 built-in remarks" in notes[0]
    assert "after all-but-the-top" in notes[0]
    after = _array(_chart(at, "similarity.heatmaps")["data"][0]["z"])
    assert after.shape == before.shape and not np.allclose(after, before)
    assert any("reference_vectors = pooled_vectors(reference)" in c.value for c in at.code)


def test_word_in_context_post_processing_replaces_the_raw_cosines(page):
    at = page("context")
    _ok(at)
    assert at.selectbox(key="context.post").value == "none"
    assert not _rogue(at)
    before = _array(_chart(at, "context.heatmap")["data"][0]["z"])
    at.selectbox(key="context.post").set_value("standardize").run()
    _ok(at)
    notes = _rogue(at)
    assert len(notes) == 1 and "every token of these sentences" in notes[0]
    assert "after standardize" in notes[0]
    figure = _chart(at, "context.heatmap")
    assert "(standardized)" in figure["layout"]["title"]["text"]
    assert not np.allclose(_array(figure["data"][0]["z"]), before)
    assert any("Post-processing (standardize)" in c.value for c in at.code)
