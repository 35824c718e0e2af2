"""AppTest of the "Word in context" page: heatmap, per-layer chart, table, bad input."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from explorer import context as ctx
from explorer.context.sentences import TUTORIAL_SENTENCES
from explorer.figures.context import BASELINE_NAME
from tests.app.rendered import plain


def _figures(at) -> dict[str, dict]:
    """The page's plotly figures as JSON specs, by their Streamlit key."""
    return {
        chart.key: json.loads(chart.proto.spec)
        for chart in at.get("plotly_chart")
        if chart.key is not None
    }


def _array(value) -> np.ndarray:
    """A plotly JSON array: a plain list, or plotly's base64 ``{"dtype", "bdata", "shape"}``."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = [int(n) for n in str(value.get("shape", flat.size)).split(",")]
        return flat.reshape(shape)
    return np.asarray(value)


def _heatmap(at) -> np.ndarray:
    return _array(_figures(at)["context.heatmap"]["data"][0]["z"])


def _by_layer(at) -> list[dict]:
    return _figures(at)["context.by_layer"]["data"]


def _check(at):
    assert not at.exception, [e.message for e in at.exception]


pytestmark = pytest.mark.slow


def test_default_renders_heatmap_chart_table_and_code(page):
    at = page("context")
    assert not at.error and not at.warning
    assert at.text_area(key="context.text").value == ctx.DEFAULT_TEXT
    assert at.text_input(key="context.word").value == "bank"
    assert at.selectbox(key="context.layers").value == "last"
    assert at.selectbox(key="context.subwords").value == "mean"
    assert "6 occurrences" in at.subheader[0].value
    figures = _figures(at)
    assert set(figures) == {"context.gap", "context.heatmap", "context.by_layer"}
    assert len(_heatmap(at)) == 6
    traces = _by_layer(at)
    assert len(traces) == 15 + 1 and traces[-1]["name"] == BASELINE_NAME
    assert _array(traces[0]["y"]).shape == (7,)  # layers 0..6 of the bundled model
    table = at.dataframe[0].value
    assert table.shape == (15, 8) and table.index[0] == "#1 vs #2"
    assert table["Kind"].iloc[0] == "same sense" and table["Kind"].iloc[2] == "different senses"
    code = at.code[0].value
    assert "word = 'bank'" in code and "occurrences[L]" in code
    occurrences = next(m.value for m in at.markdown if "<mark>" in m.value)
    assert occurrences.count("<mark><b>bank</b></mark>") == 6
    assert occurrences.count("_finance_") == 3 and occurrences.count("_river_") == 3


def test_the_page_opens_with_the_gap_it_plots(page):
    at = page("context")
    notice = plain(at.info[0].value)
    gap = _figures(at)["context.gap"]["data"]
    different, same = (_array(trace["y"]) for trace in gap[:2])
    assert "Same sense" in gap[1]["name"] and "Different senses" in gap[0]["name"]
    assert gap[1]["fill"] == "tonexty"  # the gap is shaded
    assert f"same sense score {same[-1]:.2f}" in notice
    assert f"different senses {different[-1]:.2f}" in notice
    assert f"gap of {same[-1] - different[-1]:.2f}" in notice
    assert same[-1] > different[-1]  # the bundled model separates the default senses
    layer_zero = next(plain(c.value) for c in at.caption if "At layer 0" in plain(c.value))
    assert "position embedding" in layer_zero and "not 1.00" in layer_zero


def test_pairs_from_one_sentence_are_flagged(page):
    at = page("context")
    at.text_area(key="context.text").input("\n".join(TUTORIAL_SENTENCES)).run()
    _check(at)
    names = [trace["name"] for trace in _by_layer(at)]
    assert names[0] == "#1 vs #2 (same sentence)" and names[2] == "#1 vs #4"
    assert "context.gap" not in _figures(at)  # no senses given: no gap, and a hint
    notice = plain(at.info[0].value)
    assert "from one sentence score" in notice and "share all their context" in notice
    assert any("'river | " in plain(i.value) for i in at.info)
    assert any("Dotted lines are pairs from one sentence" in plain(c.value) for c in at.caption)


def test_dotted_lines_are_explained_only_when_there_are_some(page):
    # The default sentences hold one "bank" each: no pair from one sentence, no dotted line,
    # and the caption under the chart used to explain dotted lines all the same.
    at = page("context")
    assert "same sentence" not in set(at.dataframe[0].value["Kind"])
    assert all(t.get("line", {}).get("dash") != "dot" for t in _by_layer(at))
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "The dashed line is the mean cosine" in captions and "Dotted lines" not in captions


def test_senses_of_user_lines_are_read_before_a_bar_or_a_tab(page):
    at = page("context")
    text = "money | I robbed a bank.\nriver\tWe sat on a bank.\nmoney | The bank is shut."
    at.text_area(key="context.text").input(text).run()
    _check(at)
    assert "context.gap" in _figures(at)
    assert at.dataframe[0].value["Kind"].tolist() == [
        "different senses",
        "same sense",
        "different senses",
    ]
    heatmap = _figures(at)["context.heatmap"]["data"][0]
    assert list(heatmap["x"]) == ["#1 bank (money)", "#2 bank (river)", "#3 bank (money)"]


def test_a_sense_word_links_to_its_map(page):
    at = page("context")
    links = [e for e in at.get("page_link")]
    assert links, "no link to Projections"
    link = links[0].proto
    assert "projections" in link.page
    assert "bank" in link.label


def test_changing_the_strategy_changes_the_heatmap(page):
    at = page("context")
    before = _heatmap(at)
    at.selectbox(key="context.layers").set_value("concat_last4").run()
    _check(at)
    assert _heatmap(at).shape == before.shape and not np.allclose(_heatmap(at), before)
    assert "torch.cat(" in at.code[0].value
    assert "concatenation" in _figures(at)["context.heatmap"]["layout"]["title"]["text"]


def test_changing_the_word_changes_the_output(page):
    at = page("context")
    at.text_area(key="context.text").input("\n".join(TUTORIAL_SENTENCES)).run()
    at.text_input(key="context.word").input("man").run()
    _check(at)
    assert not at.error
    assert "2 occurrences" in at.subheader[0].value
    assert len(_heatmap(at)) == 2
    assert len(_by_layer(at)) == 1 + 1


def test_unknown_word_lists_the_words_that_are_there(page):
    at = page("context")
    at.text_input(key="context.word").input("zebra").run()
    _check(at)
    assert at.error
    message = at.error[0].value
    assert "zebra" in message and "does not occur" in message
    assert "mortgage" in message and "canoe" in message
    assert not _figures(at)


@pytest.mark.parametrize("text", ["", "  \n \n"])
def test_empty_sentences_show_an_error(page, text):
    at = page("context")
    at.text_area(key="context.text").input(text).run()
    _check(at)
    assert at.error and "no sentences" in plain(at.error[0].value).lower()
    assert not _figures(at)


def test_empty_word_shows_an_error(page):
    at = page("context")
    at.text_input(key="context.word").input("  ").run()
    _check(at)
    assert at.error and "empty" in at.error[0].value


def test_a_single_occurrence_is_shown_with_an_info(page):
    at = page("context")
    at.text_input(key="context.word").input("mortgage").run()
    _check(at)
    assert not at.error
    assert at.info and "at least two occurrences" in at.info[0].value
    assert any("<mark><b>mortgage</b></mark>" in m.value for m in at.markdown)
    assert not _figures(at)


def test_mean_centring_changes_the_per_layer_chart(page):
    at = page("context")
    before = _by_layer(at)
    at.selectbox(key="context.post").set_value("center").run()
    _check(at)
    after = _by_layer(at)
    for old, new in zip(before, after, strict=True):
        assert not np.allclose(_array(old["y"]), _array(new["y"]))
    baseline_before, baseline_after = _array(before[-1]["y"]), _array(after[-1]["y"])
    assert np.abs(baseline_after).max() < baseline_before.min()
    assert "occurrences - mean" in at.code[0].value
    assert "mean-centred" in _figures(at)["context.heatmap"]["layout"]["title"]["text"]


def test_loading_an_example_fills_sentences_and_word(page):
    at = page("context")
    at.selectbox(key="context.example").set_value("bat").run()
    _check(at)
    assert at.text_input(key="context.word").value == "bat"
    assert at.text_area(key="context.text").value == ctx.labelled_examples("bat", 3)
    assert "context.gap" in _figures(at)
    assert at.selectbox(key="context.example").value is None
    assert "6 occurrences of “bat”" in at.subheader[0].value
    assert len(_heatmap(at)) == 6


def test_user_text_is_escaped(page):
    at = page("context")
    at.text_area(key="context.text").input("<b>A</b> *bank*.\nA bank & <i>a</i> bank.").run()
    _check(at)
    listing = next(m.value for m in at.markdown if "<mark>" in m.value)
    assert "<b>A</b>" not in listing and "<i>" not in listing
    assert "&lt;b&gt;A&lt;/b&gt;" in listing and "\\*" in listing


def test_the_post_processing_help_names_no_other_models_tokens(roberta_page):
    # It said "[CLS] and [SEP] left out" for a model whose special tokens are <s> and </s>.
    at = roberta_page("context")
    assert not at.exception, [e.message for e in at.exception]
    help = at.selectbox(key="context.post").help
    assert "special tokens left out" in help and "[CLS]" not in help
