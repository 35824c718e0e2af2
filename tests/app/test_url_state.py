"""A shared link restores a page: widgets bound to the URL read their value from it."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, TIMEOUT


def _open(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(params)
    at.run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_tokens_text_from_the_url():
    at = _open("tokens", {"tokens.text": "Unbelievable tokenization"})
    assert at.text_area(key="tokens.text").value == "Unbelievable tokenization"
    tokens = at.dataframe[0].value["token"].tolist()
    assert "##ization" in tokens


@pytest.mark.parametrize(
    ("key", "label", "layers"),
    [
        ("context.layers", "Embedding layer (static)", "embeddings"),
        # "context.strategy" named the layer choice before it was renamed "context.layers"
        # (issue 34): a link made before still opens on its choice
        ("context.strategy", "Sum of last four layers", "sum_last4"),
    ],
)
def test_context_word_and_layers_from_the_url(key, label, layers):
    at = _open(
        "context",
        {
            "context.text": "The bat flew out of the cave.\nHe swung the bat hard.",
            "context.word": "bat",
            key: label,
        },
    )
    assert at.text_input(key="context.word").value == "bat"
    assert at.selectbox(key="context.layers").value == layers
    assert "context.strategy" not in at.query_params  # the address keeps the new key only
    assert not at.error


def test_context_senses_from_the_url():
    text = "animal | The bat flew out of the cave.\nsports | He swung the bat hard."
    at = _open("context", {"context.text": text, "context.word": "bat"})
    assert at.text_area(key="context.text").value == text
    assert "context.gap" not in {c.key for c in at.get("plotly_chart")}  # one pair only
    assert at.dataframe[0].value["Kind"].tolist() == ["different senses"]


def test_projections_pooling_and_method_from_the_url():
    at = _open(
        "projections",
        {"projections.pooling": "[CLS] token", "projections.method": "t-SNE"},
    )
    assert at.selectbox(key="projections.pooling").value == "cls"
    assert at.radio(key="projections.method").value == "tsne"
