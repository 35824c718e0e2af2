"""Views of a saved corpus load no model, yet name its pooling with the store's model's own
first token ("<s> token" for a RoBERTa/MPNet store), read from its tokenizer alone."""

from __future__ import annotations

import json

import pytest

from explorer.model.first_token import first_token
from tests.app.rendered import plain
from tests.store_helpers import projected_store

pytestmark = pytest.mark.slow


def test_first_token_reads_the_tokenizer_of_a_local_model(tiny_roberta_path, tiny_bert_path):
    assert first_token(tiny_roberta_path) == "<s>"
    assert first_token(tiny_bert_path) == "[CLS]"
    # random weights have their source's tokenizer, however the manifest spells them
    assert first_token(f"{tiny_roberta_path} (random weights)") == "<s>"
    assert first_token(f"random-weights:{tiny_roberta_path}") == "<s>"


def test_first_token_is_none_when_the_tokenizer_cannot_be_read_here(tmp_path):
    assert first_token(str(tmp_path / "no-such-folder")) is None
    assert first_token("nobody-here/not-in-the-cache") is None  # never asks the hub
    (tmp_path / "config.json").write_text("{}")
    assert first_token(str(tmp_path)) is None  # a folder without a tokenizer


@pytest.fixture(scope="module")
def roberta_corpora(tmp_path_factory, tiny_roberta):
    allowed = tmp_path_factory.mktemp("roberta-corpora")
    _, entry = projected_store(tiny_roberta, allowed, "roberta", pooling="cls")
    return allowed, entry


def _saved(page, monkeypatch, allowed, name: str):
    monkeypatch.setenv("EXPLORER_CORPORA", str(allowed))
    at = page(name)
    at.radio(key=f"{name}.source").set_value("saved").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_which_layer_names_the_stores_first_token(page, monkeypatch, roberta_corpora):
    at = _saved(page, monkeypatch, roberta_corpora[0], "probe")
    poolings = at.multiselect(key="probe.stored_poolings")
    assert "<s> token" in poolings.options and "[CLS] token" not in poolings.options
    poolings.set_value(["cls"]).run()
    assert not at.exception, [e.message for e in at.exception]
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {trace.get("name") for trace in chart["data"]}
    assert any(name and "<s> token" in name for name in names), names
    assert not any(name and "[CLS]" in name for name in names), names


def test_projections_titles_a_saved_map_with_the_stores_first_token(
    page, monkeypatch, roberta_corpora
):
    at = _saved(page, monkeypatch, roberta_corpora[0], "projections")
    menu = at.selectbox(key="projections.pooling")
    assert "<s> token" in menu.options and "[CLS] token" not in menu.options  # not the page's
    menu.set_value("cls").run()
    assert not at.exception, [e.message for e in at.exception]
    title = plain(json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"])
    assert "<s> token" in title and "[CLS]" not in title, title


def test_the_every_row_map_is_titled_with_the_stores_first_token(
    page, monkeypatch, roberta_corpora
):
    from explorer.server import limits
    from explorer.ui import compute

    allowed, entry = roberta_corpora
    monkeypatch.setattr(limits, "MAX_POINTS", 6)
    compute.clear()
    try:
        at = _saved(page, monkeypatch, allowed, "projections")
        at.selectbox(key="projections.pooling").set_value("cls").run()
        assert not at.exception, [e.message for e in at.exception]
        assert at.checkbox(key="projections.every_row").value
        (component,) = [
            e for e in at.get("component_instance") if "bigmap" in e.proto.component_name
        ]
        args = plain(component.proto.json_args)
        assert "<s> token" in args and "[CLS]" not in args, args
    finally:
        compute.clear()
