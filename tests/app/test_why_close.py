"""AppTest of "Why are these two close?" on Similarity & search and in the Projections
neighbour panel: the pair on screen is explained under the page's pooling and layers, the
numbers are the library's, [CLS] pooling waits for the person and is capped."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import explorer
from explorer.data.examples import SIMILARITY_QUERY, SIMILARITY_SENTENCES
from explorer.explain import explain_similarity
from tests.app.rendered import html_table, plain

pytestmark = pytest.mark.slow

PAIRS = "similarity.why.pairs"


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _charts(at) -> dict[str, dict]:
    return {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def _matrix(z) -> np.ndarray:
    """A heatmap's ``z``: plotly stores numpy arrays as base64 ``bdata`` with a shape."""
    if isinstance(z, dict) and "bdata" in z:
        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
        return flat.reshape([int(n) for n in str(z["shape"]).split(",")])
    return np.asarray(z, dtype=float)


def _infos(at) -> list[str]:
    return [plain(i.value) for i in at.info]


def test_the_query_and_its_best_result_are_explained_by_default(page, bundled):
    at = page("similarity")
    _ok(at)
    results = html_table(at, "similarity.results")
    best = results["text"].iloc[0]
    assert at.selectbox(key="similarity.why_a").value == "q"
    assert at.selectbox(key="similarity.why_b").value == "r0"
    expected = explain_similarity(bundled, SIMILARITY_QUERY, best, "mean", "last")
    assert expected.score == pytest.approx(results["score"].iloc[0], abs=5e-4)  # the cosine shown
    pairs = _matrix(_charts(at)[PAIRS]["data"][0]["z"])
    np.testing.assert_allclose(pairs, expected.pairs, atol=1e-5)
    assert pairs.sum() == pytest.approx(expected.score, abs=1e-5)
    i, j, value = expected.top_pairs(1)[0]
    notice = next(n for n in _infos(at) if n.startswith("The cosine is"))
    assert f"{value / expected.score:.0%} of it" in notice
    assert f"{expected.tokens_a[i]!r} with {expected.tokens_b[j]!r}" in notice
    listed = [m.value for m in at.markdown if m.value.startswith("**The top pairs**")]
    assert listed and plain(listed[0]).count("\n- ") == 3
    assert any(f"{expected.tokens_a[i]!r} with" in plain(m) for m in listed)
    assert len([h for h in at.get("html") if "rgba(" in h.proto.body]) >= 2  # shaded tokens
    assert any("pairs = (parts_a @ parts_b.T" in c.value for c in at.code)


def test_two_sentences_under_another_pooling_and_the_pages_layers(page, bundled):
    at = page("similarity")
    at.selectbox(key="similarity.layers").set_value("sum_last4").run()
    at.selectbox(key="similarity.why_a").set_value("s0").run()
    at.selectbox(key="similarity.why_b").set_value("s2").run()
    at.selectbox(key="similarity.why_pooling").set_value("max").run()
    _ok(at)
    lines = SIMILARITY_SENTENCES.splitlines()
    expected = explain_similarity(bundled, lines[0], lines[2], "max", "sum_last4")
    u, v = explorer.sentence_embeddings(bundled, [lines[0], lines[2]], "max", "sum_last4")
    assert expected.score == pytest.approx(float(u @ v / np.linalg.norm(u) / np.linalg.norm(v)))
    np.testing.assert_allclose(
        _matrix(_charts(at)[PAIRS]["data"][0]["z"]), expected.pairs, atol=1e-5
    )
    assert any("Max over tokens, Sum of last four layers" in m.value for m in at.markdown)


def test_cls_pooling_waits_for_the_person_then_shows_attributions_with_the_gap(page):
    at = page("similarity")
    at.selectbox(key="similarity.why_pooling").set_value("cls").run()
    _ok(at)
    assert PAIRS not in _charts(at)
    assert any("attribution per token" in c.value for c in at.caption)
    assert not any(n.startswith("With [CLS] pooling the cosine") for n in _infos(at))
    at.toggle(key="similarity.why.attribute").set_value(True).run()
    _ok(at)
    notice = next(n for n in _infos(at) if n.startswith("With [CLS] pooling the cosine"))
    assert "integrated gradients" in notice and "gap" in notice
    assert PAIRS not in _charts(at)  # one vector per text: no pairs to draw
    assert any(m.value.startswith("**The top tokens**") for m in at.markdown)
    assert any("def integrated_gradients" in c.value for c in at.code)


def test_cls_attribution_of_long_texts_is_refused_with_what_to_do(page):
    at = page("similarity")
    long = " ".join(["the invoice was paid late"] * 15)
    at.text_area(key="similarity.text").input(f"{long}.\n{long}!\nA short one.").run()
    at.selectbox(key="similarity.why_a").set_value("s0").run()
    at.selectbox(key="similarity.why_b").set_value("s1").run()
    at.selectbox(key="similarity.why_pooling").set_value("cls").run()
    at.toggle(key="similarity.why.attribute").set_value(True).run()
    _ok(at)
    refusal = next(n for n in _infos(at) if "at most 128 tokens" in n)
    assert "mean or max pooling" in refusal


def test_cls_pooling_names_the_models_own_first_and_padding_tokens(roberta_page):
    # all-mpnet-base-v2: the menu, the caption and the toggle said [CLS] and [PAD].
    at = roberta_page("similarity")
    menu = at.selectbox(key="similarity.why_pooling")
    assert "<s> token" in menu.options and not any("[CLS]" in o for o in menu.options)
    menu.set_value("cls").run()
    _ok(at)
    said = next(plain(c.value) for c in at.caption if "attribution per token" in c.value)
    assert "With <s> pooling" in said and "all <pad>" in said and "[" not in said
    toggle = at.toggle(key="similarity.why.attribute")
    assert plain(toggle.label).startswith("Attribute <s> similarities")


def _panel_script() -> None:
    import streamlit as st

    from explorer.choice import VectorChoice
    from explorer.maps import ProjectionParams
    from explorer.model.ref import ModelRef
    from explorer.ui.projection_maps import _map as mapview
    from explorer.ui.projection_maps import fit
    from explorer.ui.projection_maps._points import Points

    texts, word = tuple(st.session_state["texts"]), st.session_state["word"]
    post = st.session_state.get("post", "none")
    choice = VectorChoice("mean", "last", post=post)
    points = Points(ModelRef(st.session_state["model"]), texts, choice, word)
    params = ProjectionParams("pca", 2)
    shown = mapview.MapPoints(list(texts), None, None, "Label", "A map")
    if word is not None:
        from explorer.ui.compute import word_layer_vectors
        from explorer.words import occurrence_points

        found, _, _ = word_layer_vectors(points.ref, texts, word, "mean")
        occurrences, spans, _ = occurrence_points(found, list(texts), None)
        shown = mapview.MapPoints(occurrences, None, spans, "Sentence", "A map")
    mapview.draw(points, params, fit(points, params), shown)


TEXTS = (
    "The bank raised its interest rates again, the third time this year.",
    "She opened a savings account at the bank on the corner of the square.",
    "We had a picnic on the grassy bank of the river and watched the boats.",
    "The canoe drifted slowly towards the muddy bank as the sun went down.",
    "The striker scored twice in the second half of the final.",
    "Our team lost the final on penalties after a long evening.",
    "This soup needs more salt and pepper before it is served.",
    "Fresh bread from the oven smells wonderful on a cold morning.",
    "The invoice was paid late because the office had closed.",
    "They settled the bill after the deadline had passed.",
    "It will rain all weekend according to the forecast.",
    "The museum opens a new exhibition of old maps tomorrow.",
)


@pytest.fixture
def selection(monkeypatch):
    from explorer.ui.projection_maps import _map as mapview

    monkeypatch.setattr(mapview, "selected_rows", lambda state, n: [3])


def _panel(word: str | None = None, post: str = "none") -> AppTest:
    at = AppTest.from_function(_panel_script, default_timeout=180)
    at.session_state["post"] = post
    at.session_state["texts"] = TEXTS
    at.session_state["model"] = explorer.DEFAULT_MODEL
    at.session_state["word"] = word
    at.run()
    _ok(at)
    return at


def test_the_neighbour_panel_explains_the_point_and_a_neighbour_it_lists_whole(selection, bundled):
    at = _panel()
    neighbours = html_table(at, "projections.neighbours")
    assert set(neighbours["text"]) <= set(TEXTS) and len(neighbours) == 10  # whole texts
    other = int(neighbours["point"].iloc[0])
    assert at.selectbox(key="projections.why.other").value == other  # the nearest by default
    expected = explain_similarity(bundled, TEXTS[3], TEXTS[other], "mean", "last")
    assert expected.score == pytest.approx(neighbours["cosine"].iloc[0], abs=5e-4)
    pairs = _matrix(_charts(at)["projections.why.pairs"]["data"][0]["z"])
    np.testing.assert_allclose(pairs, expected.pairs, atol=1e-5)
    assert any(f"Why are point 3 and point {other} close?" in h.value for h in at.subheader)
    second = int(neighbours["point"].iloc[4])
    at.selectbox(key="projections.why.other").set_value(second).run()
    _ok(at)
    again = explain_similarity(bundled, TEXTS[3], TEXTS[second], "mean", "last")
    pairs = _matrix(_charts(at)["projections.why.pairs"]["data"][0]["z"])
    np.testing.assert_allclose(pairs, again.pairs, atol=1e-5)
    at.selectbox(key="projections.why.other").set_value(-1).run()  # none
    assert "projections.why.pairs" not in _charts(at) and not at.subheader


def test_a_word_map_lists_whole_sentences_with_the_word_marked_and_explains_nothing(selection):
    at = _panel("the")  # 22 occurrences
    neighbours = html_table(at, "projections.neighbours")
    assert len(neighbours) == 10 and set(neighbours["text"]) <= set(TEXTS)
    body = next(h.proto.body for h in at.get("html") if "projections.neighbours" in h.proto.body)
    assert body.count("<mark><b>the</b></mark>") + body.count("<mark><b>The</b></mark>") == 10
    assert not [s for s in at.selectbox if s.key == "projections.why.other"]
    assert "projections.why.pairs" not in _charts(at)


def test_a_post_processed_map_says_its_explanation_is_of_the_raw_cosine(selection):
    at = _panel(post="center")
    assert "projections.why.pairs" in _charts(at)
    assert any("post-processing the map uses is not applied" in c.value for c in at.caption)
    assert not any("post-processing" in c.value for c in _panel().caption)
