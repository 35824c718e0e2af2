"""Similarity & search over a saved corpus: every row searched with the store's own model,
poolings and layers; the snippet prints the same ranks; clear messages for bad input, a damaged
store or another model; never the server's folder."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.app.rendered import html_table, plain
from tests.snippets import run_snippet
from tests.store_helpers import TEXTS, write_csv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def folder(tmp_path_factory, bundled, tiny):
    from explorer.data.store import Settings, embed_to_store

    allowed = tmp_path_factory.mktemp("similarity-corpora")
    source = write_csv(allowed / "input.csv", TEXTS)
    embed_to_store(bundled, source, allowed / "tickets", label_column="label")
    embed_to_store(
        bundled, source, allowed / "some", Settings(poolings=("mean",), layers=[0, 3, 6])
    )
    embed_to_store(tiny, source, allowed / "tiny", Settings(layers="last"), label_column="label")
    shutil.copytree(allowed / "tickets", allowed / "broken")
    with open(allowed / "broken/vectors/mean/layer_06.npy", "r+b") as file:
        file.truncate(1000)
    shutil.copytree(allowed / "tickets", allowed / "tampered")
    manifest = json.loads((allowed / "tampered/manifest.json").read_text())
    manifest["model"]["fingerprint"] = "sha256:" + "0" * 64
    (allowed / "tampered/manifest.json").write_text(json.dumps(manifest))
    return allowed


def _results(at):
    """The search results table (whole texts: explorer.figures.tables), or None."""
    return html_table(at, "similarity.results")


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _saved(page, monkeypatch, folder, store: str = "tickets"):
    monkeypatch.setenv("EXPLORER_CORPORA", str(folder))
    at = page("similarity")
    at.radio(key="similarity.corpus.source").set_value("saved").run()
    _ok(at)
    options = at.selectbox(key="similarity.corpus.store").options
    assert store in options  # the box shows the folder names
    at.selectbox(key="similarity.corpus.store").set_value(store).run()
    _ok(at)
    return at


def _text(at) -> str:
    shown = (*at.markdown, *at.caption, *at.info, *at.error, *at.warning)
    return " ".join(plain(m.value) for m in shown)


def _heatmaps_shown(at) -> bool:
    return any("Cosine similarity of every pair" in c.proto.spec for c in at.get("plotly_chart"))


def test_a_saved_corpus_is_searched_whole_and_the_snippet_agrees(page, monkeypatch, folder):
    at = _saved(page, monkeypatch, folder)
    assert not at.error
    assert at.selectbox(key="similarity.store_pooling").options == [
        "[CLS] token",
        "Mean of tokens",
        "Max over tokens",
        "Mean + max (concatenated)",
    ]
    at.text_input(key="similarity.query").set_value("Who scored the goal?").run()
    at.slider(key="similarity.k").set_value(4).run()
    _ok(at)
    results = _results(at)
    assert list(results.columns) == ["rank", "score", "text", "row", "label"] + [
        "score (input)",
        "source",
    ]
    assert results["rank"].tolist() == [1, 2, 3, 4] and results["score"].is_monotonic_decreasing
    assert (results["label"] == "sport").sum() >= 2
    for _, result in results.iterrows():
        assert TEXTS[result["row"]]["text"] == result["text"]
        assert f"doc{result['row']}" == result["source"]
    text = _text(at)
    assert f"All {len(TEXTS)} rows of the saved corpus searched" in text
    assert "nothing but the query ran the model" in text
    assert str(folder) not in text
    assert _heatmaps_shown(at)  # the similarity part above still works

    code = at.code[-1].value
    assert "explorer.open_corpus('path/to/tickets')" in code and str(folder) not in code
    code = code.replace("'path/to/tickets'", repr(str(folder / "tickets")))
    _, printed = run_snippet(code)
    expected = [
        f"{r.rank}. {r.score:.4f}  row {r.row}  {r.text}" for r in results.itertuples(index=False)
    ]
    assert printed.splitlines() == expected


def test_only_the_stores_poolings_and_layers_are_offered(page, monkeypatch, folder):
    at = _saved(page, monkeypatch, folder, "some")
    assert at.selectbox(key="similarity.store_pooling").options == ["Mean of tokens"]
    layers = at.selectbox(key="similarity.store_layers")
    assert layers.options == ["Last layer", "Embedding layer (static)", "Layer 3"]
    assert layers.value == "last" and not at.error
    at.selectbox(key="similarity.layers").set_value("sum_last4").run()
    _ok(at)
    assert "does not keep every layer sum of last four layers needs" in _text(at)
    at.selectbox(key="similarity.store_layers").set_value("3").run()
    _ok(at)
    assert len(_results(at)) == 5
    assert "pooling, layers, k = 'mean', 3, 5" in at.code[-1].value


def test_bad_queries_say_so_and_the_page_keeps_working(page, monkeypatch, folder):
    at = _saved(page, monkeypatch, folder)
    at.text_input(key="similarity.query").set_value("   ").run()
    _ok(at)
    assert "The query is empty" in plain(at.error[0].value)
    assert _results(at) is None and _heatmaps_shown(at)
    at.text_input(key="similarity.query").set_value("goal " * 4000).run()  # 20,000 characters
    _ok(at)
    assert not at.error and len(_results(at)) == 5
    assert "only its beginning was embedded" in _text(at)


def test_a_damaged_store_is_a_message_without_its_folder(page, monkeypatch, folder):
    at = _saved(page, monkeypatch, folder, "broken")
    message = plain(at.error[0].value)
    assert message.startswith("This saved corpus cannot be opened")
    assert "layer_06.npy" in message and str(folder) not in message
    assert _heatmaps_shown(at) and _results(at) is None


def test_a_store_of_other_weights_is_refused(page, monkeypatch, folder):
    at = _saved(page, monkeypatch, folder, "tampered")
    message = plain(at.error[0].value)
    assert "all-MiniLM-L6-v2" in message and "fingerprint differs" in message
    assert _results(at) is None and _heatmaps_shown(at)


def test_a_store_of_another_model_uses_it_only_when_offered(
    page, monkeypatch, folder, tiny_bert_path
):
    from pathlib import Path

    name = Path(tiny_bert_path).name
    monkeypatch.delenv("EXPLORER_MODELS", raising=False)
    at = _saved(page, monkeypatch, folder, "tiny")
    message = plain(at.error[0].value)
    assert f"This corpus was embedded with {name}" in message and "EXPLORER_MODELS" in message
    assert str(Path(tiny_bert_path).parent) not in message and _results(at) is None

    monkeypatch.setenv("EXPLORER_MODELS", tiny_bert_path)
    at = _saved(page, monkeypatch, folder, "tiny")
    assert not at.error and len(_results(at)) == 5
    text = _text(at)
    assert f"ran the model, {name} (local), the model this corpus was embedded with" in text
    assert str(Path(tiny_bert_path).parent) not in text
    assert at.selectbox(key="similarity.store_layers").options == ["Last layer"]


def _explained_score(at) -> float:
    """The cosine "Why are these two close?" splits, from its list of top pairs."""
    import re

    (listed,) = [m.value for m in at.markdown if m.value.startswith("**The top pairs**")]
    return float(re.search(r"cosine (-?\d\.\d+)\)", listed).group(1))


def test_why_close_offers_the_query_and_its_results(page, monkeypatch, folder):
    # Issue 33: with a saved corpus only the built-in sentences were offered.
    at = _saved(page, monkeypatch, folder)
    _ok(at)
    options = at.selectbox(key="similarity.why_a").options
    assert any(o.startswith("Query: ") for o in options)
    assert sum(o.startswith("Result ") for o in options) == len(_results(at))
    at.selectbox(key="similarity.why_a").set_value("q").run()
    at.selectbox(key="similarity.why_b").set_value("r0").run()
    _ok(at)
    best = _results(at)["score"].iloc[0]
    assert _explained_score(at) == pytest.approx(best, abs=2e-3)  # the cosine of the search
    assert not any("explained with" in plain(i.value) for i in at.info)  # the model in use


def test_why_close_uses_the_model_the_corpus_was_embedded_with(
    page, monkeypatch, folder, tiny_bert_path
):
    from pathlib import Path

    monkeypatch.setenv("EXPLORER_MODELS", tiny_bert_path)
    at = _saved(page, monkeypatch, folder, "tiny")
    at.selectbox(key="similarity.why_a").set_value("q").run()
    at.selectbox(key="similarity.why_b").set_value("r0").run()
    _ok(at)
    notes = [plain(i.value) for i in at.info if "explained with" in plain(i.value)]
    assert notes and f"{Path(tiny_bert_path).name} (local)" in notes[0]
    assert "not the model in use" in notes[0]
    best = _results(at)["score"].iloc[0]
    assert _explained_score(at) == pytest.approx(best, abs=2e-3)
    # two built-in sentences are the model in use's, and say nothing of the corpus's model
    at.selectbox(key="similarity.why_a").set_value("s0").run()
    at.selectbox(key="similarity.why_b").set_value("s1").run()
    _ok(at)
    assert not any("explained with" in plain(i.value) for i in at.info)


def test_a_corpus_embedded_with_random_weights_gets_a_snippet_that_builds_them(
    page, monkeypatch, tiny_bert_path, tmp_path
):
    """Issue 34: a store embedded with random weights names its model "<folder> (random
    weights)" in its manifest; its snippet called explorer.load_model with that and failed."""
    import explorer
    from explorer.data.store import embed_to_store
    from explorer.model.loading import random_weights
    from explorer.ui.model_in_use import PICKER_KEY
    from tests.tiny_models import save_copy

    trained = save_copy(tiny_bert_path, tmp_path / "model", seed=1)  # not seed 0's weights
    stores = tmp_path / "corpora"
    source = write_csv(tmp_path / "input.csv", TEXTS)
    embed_to_store(random_weights(explorer.load_model(trained)), source, stores / "random")
    monkeypatch.setenv("EXPLORER_MODELS", "*")
    monkeypatch.setenv("EXPLORER_CORPORA", str(stores))
    at = page("similarity")
    other = next(o for o in at.selectbox(key=PICKER_KEY).options if o.startswith("Other"))
    at.selectbox(key=PICKER_KEY).select(other).run()
    at.text_input(key="model.other").input(f"random-weights:{trained}").run()
    at.radio(key="similarity.corpus.source").set_value("saved").run()
    at.selectbox(key="similarity.corpus.store").set_value("random").run()
    at.text_input(key="similarity.query").set_value("Who scored the goal?").run()
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    results = _results(at)
    code = at.code[-1].value
    assert "random_weights(explorer.load_model(name))" in code
    code = code.replace("'path/to/random'", repr(str(stores / "random")))
    _, printed = run_snippet(code)
    expected = [
        f"{r.rank}. {r.score:.4f}  row {r.row}  {r.text}" for r in results.itertuples(index=False)
    ]
    assert printed.splitlines() == expected


def test_a_corpus_of_a_model_with_s_names_its_first_token(
    roberta_page, monkeypatch, tmp_path, tiny_roberta
):
    # The Pooling menu and the search's caption read "[CLS] token" for a corpus embedded with
    # a model whose first token is <s> (MPNet, RoBERTa).
    from explorer.data.store import Settings, embed_to_store

    source = write_csv(tmp_path / "input.csv", TEXTS)
    settings = Settings(poolings=("cls", "mean"), layers="last")
    embed_to_store(tiny_roberta, source, tmp_path / "roberta", settings)
    monkeypatch.setenv("EXPLORER_CORPORA", str(tmp_path))
    at = roberta_page("similarity")
    at.radio(key="similarity.corpus.source").set_value("saved").run()
    at.selectbox(key="similarity.corpus.store").set_value("roberta").run()
    _ok(at)
    menu = at.selectbox(key="similarity.store_pooling")
    assert "<s> token" in menu.options and not any("[CLS]" in o for o in menu.options)
    menu.set_value("cls").run()
    _ok(at)
    assert "searched (<s> token, " in _text(at) and "[CLS]" not in _text(at)
