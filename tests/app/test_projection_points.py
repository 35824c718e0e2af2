"""The Projections page's points (explorer.ui.projection_maps._points) carry one
:class:`explorer.VectorChoice` (issue 34): a sentence map's vectors are the choice's sentence
vectors, a word map's the choice's word vectors (its pooling does not apply), post-processed by
the choice's ``post``; a saved corpus's points read the same choice from the store."""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

import explorer
from explorer.choice import VectorChoice
from explorer.explain import postprocess

TEXTS = (
    "The bank raised its rates.",
    "We sat on the river bank.",
    "A bank lent them the money.",
    "The bank of the canal was muddy.",
    "Bread is baked in the morning.",
)


def _script() -> None:
    import numpy as np
    import streamlit as st

    from explorer.model.ref import ModelRef
    from explorer.ui.projection_maps._points import Points

    ref = ModelRef(st.session_state["model"])
    found = {}
    for name, (choice, word) in st.session_state["asked"].items():
        points = Points(ref, tuple(st.session_state["texts"]), choice, word)
        found[name] = np.asarray(points.vectors()).copy()
    st.session_state["found"] = found


def test_points_take_their_vectors_from_one_choice(tiny_bert_path, tiny):
    sentence = VectorChoice("max", "sum_last4", post="center")
    word = VectorChoice(layers=2, subwords="first")
    asked = {
        "sentence": (sentence, None),
        "word": (word, "bank"),
        "word, another pooling": (word.replace(pooling="cls"), "bank"),
    }
    at = AppTest.from_function(_script, default_timeout=120)
    at.session_state["model"] = tiny_bert_path
    at.session_state["texts"] = TEXTS
    at.session_state["asked"] = asked
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    found = at.session_state["found"]

    raw = explorer.embed_corpus(tiny, list(TEXTS)).sentence(sentence)
    np.testing.assert_allclose(found["sentence"], postprocess(raw, "center"), atol=1e-5)
    _, words = explorer.word_vectors(tiny, list(TEXTS), "bank", word)
    np.testing.assert_allclose(found["word"], words, atol=1e-5)
    np.testing.assert_array_equal(found["word, another pooling"], found["word"])
