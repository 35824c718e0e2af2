"""AppTest of the Similarity & search page: defaults, URL state, bad input, a new query."""

from __future__ import annotations

import json

import pytest

from tests.app.rendered import html_table, plain

pytestmark = pytest.mark.slow


def _results(at):
    """The search results table (whole texts: explorer.figures.tables), or None."""
    return html_table(at, "similarity.results")


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _figures(at) -> list[dict]:
    """The figures of the sentences compared (not those of "Why are these two close?")."""
    charts = at.get("plotly_chart")
    return [json.loads(c.proto.spec) for c in charts if not c.key.startswith("similarity.why")]


def test_defaults_show_heatmaps_agreement_and_search(page):
    at = page("similarity")
    assert not at.error and not at.warning
    heatmaps, agreement = _figures(at)
    assert [a["text"] for a in heatmaps["layout"]["annotations"]] == [
        "[CLS] token",
        "Mean of tokens",
        "Max over tokens",
        "Mean + max (concatenated)",
    ]
    assert agreement["data"][0]["type"] == "heatmap"
    notice = plain(at.info[0].value)
    assert (
        notice.startswith("Under [CLS] token (last layer), sentences")
        and "squeezes every pair" in notice
    )
    assert heatmaps["data"][0]["textfont"]["size"] >= 15  # readable on a projector
    assert heatmaps["data"][0]["text"][0][0] == "1"
    results = _results(at)
    assert len(results) == 5 and results["score"].is_monotonic_decreasing
    assert results["label"].str.startswith("sports").sum() >= 3  # "Which team won the game?"
    assert len(at.get("download_button")) == 3
    code = "\n".join(block.value for block in at.code)
    assert "def spearman" in code and "top = np.argsort" in code


def test_url_query_parameters_restore_the_view(fresh_app):
    """A shared link: Streamlit's bound widgets put their displayed labels in the URL."""
    at = fresh_app
    at.query_params.update(
        {
            "similarity.text": "A cat sat.\nA dog ran.\nStocks fell sharply.",
            "similarity.pooling": ["[CLS] token", "Max over tokens"],
            "similarity.strategy": "Sum of last four layers",
            "similarity.query": "Share prices dropped",
            "similarity.search_pooling": "[CLS] token",
            "similarity.k": "3",
        }
    )
    at.run()
    at.switch_page("pages/similarity.py").run()
    _ok(at)
    assert (
        at.text_area(key="similarity.text").value == "A cat sat.\nA dog ran.\nStocks fell sharply."
    )
    assert at.multiselect(key="similarity.pooling").value == ["cls", "max"]
    assert at.selectbox(key="similarity.layers").value == "sum_last4"
    assert at.text_input(key="similarity.query").value == "Share prices dropped"
    assert at.selectbox(key="similarity.search_pooling").value == "cls"
    assert at.slider(key="similarity.k").value == 3
    heatmaps, _ = _figures(at)
    assert len(heatmaps["data"]) == 2 and "Sum of last four" in heatmaps["layout"]["title"]["text"]
    # "similarity.strategy" was the layers' key before it was named for what it holds: an old
    # link still chooses them, and the address keeps the new key only
    assert "similarity.strategy" not in at.query_params
    assert len(_results(at)) == 3


def test_the_layers_key_of_a_link_wins_over_the_old_one(fresh_app):
    at = fresh_app
    at.query_params.update(
        {
            "similarity.layers": "Embedding layer (static)",
            "similarity.strategy": "Sum of last four layers",
        }
    )
    at.run()
    at.switch_page("pages/similarity.py").run()
    _ok(at)
    assert at.selectbox(key="similarity.layers").value == "embeddings"
    assert "similarity.strategy" not in at.query_params


def test_bad_input_gets_messages_and_a_new_query_new_results(page):
    at = page("similarity")
    before = _results(at)["text"].tolist()
    at.text_area(key="similarity.text").input("Only one line.\nAnd two.").run()
    _ok(at)
    assert "at least 3" in at.error[0].value
    assert _results(at) is not None  # the search still works
    code = [block.value for block in at.code]  # the search's and the explanation's only
    assert len(code) == 2 and not any("def spearman" in c for c in code)
    at.text_input(key="similarity.query").input("The soup was cold and bland").run()
    _ok(at)
    after = _results(at)
    assert after["text"].tolist() != before and after["label"].str.startswith("food").any()
    at.text_input(key="similarity.query").input("   ").run()
    assert any("query is empty" in e.value for e in at.error)
    at.radio(key="similarity.corpus.source").set_value("upload").run()
    at.file_uploader(key="similarity.corpus.csv").set_value(("c.csv", b"a,b\nx,y\n", "text/csv"))
    at.run()
    _ok(at)
    # The shared text-source picker lets the person choose the text column of any CSV.
    assert at.selectbox(key="similarity.corpus.text_column").options == ["a", "b"]


def test_the_heatmaps_name_the_models_own_first_token(roberta_page):
    # all-mpnet-base-v2's notice said "Under <s> token" above heatmaps titled "[CLS] token".
    at = roberta_page("similarity")
    _ok(at)
    heatmaps, agreement = _figures(at)
    titles = [plain(a["text"]) for a in heatmaps["layout"]["annotations"]]
    assert titles[0] == "<s> token" and not any("[CLS]" in t for t in titles)
    assert [plain(name) for name in agreement["data"][0]["x"]][0] == "<s> token"
    assert plain(at.info[0].value).startswith("Under <s> token")
    # ... and so do the menus that choose the poolings (they read "[CLS] token")
    chosen = at.multiselect(key="similarity.pooling")
    assert "<s> token" in chosen.options and not any("[CLS]" in o for o in chosen.options)
    assert "<s> token" in chosen.help
    assert "<s> token" in at.selectbox(key="similarity.search_pooling").options
