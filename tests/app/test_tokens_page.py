"""AppTest of the Tokens page: table, chips, counts, truncation, pairs and bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from explorer.model import DEFAULT_MODEL
from tests.app.rendered import plain


def _table(at):
    return at.dataframe[0].value


def test_first_load_shows_the_default_text_split_into_subwords(page):
    at = page("tokens")
    assert not at.error and not at.warning
    table = _table(at)
    assert table["token"].iloc[0] == "[CLS]" and table["token"].iloc[-1] == "[SEP]"
    assert table["subword"].any()
    assert ["em", "##bed", "##ding", "##s"] == table["token"].iloc[3:7].tolist()
    assert set(table["segment_id"]) == {0}
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Tokens"] == str(len(table))
    chips = at.html[0].value
    assert "##</span>ding" in chips
    assert chips.count('class="token-id"') == len(table)  # ids shown, not only on hover
    assert at.toggle(key="tokens.ids").value
    assert "13 words became 17 pieces" in plain(at.info[0].value)
    code = at.code[0].value
    assert (
        "return_offsets_mapping=True" in code and "sentence-transformers/all-MiniLM-L6-v2" in code
    )
    assert DEFAULT_MODEL in code


def test_changing_the_text_changes_the_table(page):
    at = page("tokens")
    before = len(_table(at))
    at.text_area(key="tokens.text").input("A bank.").run()
    assert not at.exception, [e.message for e in at.exception]
    table = _table(at)
    assert len(table) != before
    assert table["token"].tolist() == ["[CLS]", "a", "bank", ".", "[SEP]"]
    assert not table["subword"].any()
    assert "'A bank.'" in at.code[0].value


@pytest.mark.parametrize("text", ["", "   \n  "])
def test_empty_text_shows_an_error_not_a_traceback(page, text):
    at = page("tokens")
    at.text_area(key="tokens.text").input(text).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.error and "empty" in at.error[0].value
    assert not at.dataframe


@pytest.mark.parametrize(
    "payload", ["<script>alert(1)</script> bank", "<img src=x onerror=alert(1)> bank"]
)
def test_html_payload_is_shown_as_text(page, payload):
    at = page("tokens")
    at.text_area(key="tokens.text").input(payload).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error
    for element in at.html:
        assert "<script" not in element.value and "<img" not in element.value
    assert "script" in _table(at)["token"].tolist() or "im" in _table(at)["token"].tolist()


def test_long_paste_is_truncated_with_a_warning(page):
    at = page("tokens")
    text = ("The bank robber went fishing on the river bank. " * 420)[:20_000]
    at.text_area(key="tokens.text").input(text).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.warning, "expected a truncation warning"
    assert "512 tokens" in at.warning[0].value
    assert len(_table(at)) == 512
    # The counts beside each other are all of what the model reads: not 20,000 characters
    # beside the words of the first 512 tokens.
    metrics = {m.label: m.value for m in at.metric}
    assert "Characters" not in metrics
    read = int(metrics["Characters read"].replace(",", ""))
    assert read == _table(at)["end"].max() < len(text)


def test_sentence_pair_gets_segment_id_one(page):
    at = page("tokens")
    at.checkbox(key="tokens.pair_on").check().run()
    assert not at.exception, [e.message for e in at.exception]
    table = _table(at)
    assert set(table["segment_id"]) == {0, 1}
    second = table[table["segment_id"] == 1]
    assert second["token"].iloc[-1] == "[SEP]" and len(second) > 1
    assert "Sentence B" in at.html[0].value
    at.text_area(key="tokens.pair").input("").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.error and "Second sentence" in at.error[0].value


def _last_chips(at) -> str:
    """The last HTML the page drew (not a style sheet: presentation.WHOLE_LABELS comes last)."""
    return [h.value for h in at.html if not h.value.startswith("<style>")][-1]


def test_try_a_word_shows_its_pieces(page):
    at = page("tokens")
    assert "em" in _last_chips(at) and "[CLS]" not in _last_chips(at)
    at.text_input(key="tokens.word").input("unbelievableness").run()
    assert not at.exception, [e.message for e in at.exception]
    assert "unbelievableness" in _last_chips(at)  # in the word's hover title
    at.text_input(key="tokens.word").input("").run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("empty" in i.value for i in at.info)  # after the what-to-notice info


def test_ids_can_be_hidden_and_the_table_fits_its_rows(page):
    at = page("tokens")
    at.toggle(key="tokens.ids").set_value(False).run()
    assert not at.exception, [e.message for e in at.exception]
    assert 'class="token-id"' not in at.html[0].value
    text = " ".join(["word"] * 40)
    at.text_area(key="tokens.text").input(text).run()
    frame = at.dataframe[0]
    assert len(frame.value) == 42  # the height (set by the page) fits up to LONG rows


def _shown_cells(table) -> pd.DataFrame:
    """A static table's cells as ``st.table`` draws them: the Styler's display values."""
    import pyarrow as pa

    values = table.proto.arrow_data.styler.display_values
    return pa.ipc.open_stream(values).read_pandas()


def test_special_tokens_word_cell_shows_a_mark_not_none(page):
    # The grid paints a missing number as a grey "None" (Streamlit 1.67's default placeholder):
    # a first-time reader took it for a word called None. Both modes show the same mark.
    from explorer.ui.presentation import KEY
    from explorer.ui.word_pieces._sections import COLUMNS, NO_WORD

    at = page("tokens")
    (grid,) = at.dataframe
    special = grid.value["special"].to_numpy(bool)
    assert special.any() and grid.value["word_id"][special].isna().all()
    assert grid.value["word_id"][~special].notna().all()
    assert grid.proto.placeholder == NO_WORD and NO_WORD.strip() and NO_WORD != "None"
    assert NO_WORD in COLUMNS["word_id"]["help"] and "no word" in COLUMNS["word_id"]["help"]

    at.sidebar.toggle(key=KEY).set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    (table,) = at.table
    cells = _shown_cells(table)
    words = cells.iloc[:, list(table.value.columns).index("word")]
    assert (words[special] == NO_WORD).all()
    assert words[~special].str.fullmatch(r"\d+").all()


def test_the_introduction_names_the_models_own_special_tokens(page, tiny_roberta_path, monkeypatch):
    # all-mpnet-base-v2 adds <s> and </s>; the introduction spoke of [CLS] and [SEP].
    from pathlib import Path

    monkeypatch.setenv("EXPLORER_MODELS", tiny_roberta_path)
    at = page("tokens")
    assert "`[CLS]` and `[SEP]`" in at.markdown[0].value
    at.selectbox(key="model").set_value(f"{Path(tiny_roberta_path).name} (local)").run()
    assert not at.exception, [e.message for e in at.exception]
    intro = next(m.value for m in at.markdown if "special tokens such as" in m.value)
    assert "`<s>` and `</s>`" in intro and "[CLS]" not in intro
    assert _table(at)["token"].iloc[0] == "<s>"


def _special_help(at) -> str:
    return json.loads(at.dataframe[0].proto.columns)["special"]["help"]


def test_the_special_columns_help_names_the_models_own(page, tiny_roberta_path, monkeypatch):
    # It read "[CLS], [SEP], ... added" for every model.
    from pathlib import Path

    monkeypatch.setenv("EXPLORER_MODELS", tiny_roberta_path)
    at = page("tokens")
    assert _special_help(at) == "Added by the tokenizer: [CLS], [SEP]"
    at.selectbox(key="model").set_value(f"{Path(tiny_roberta_path).name} (local)").run()
    assert not at.exception, [e.message for e in at.exception]
    assert _special_help(at) == "Added by the tokenizer: <s>, </s>"


def test_the_subword_help_shows_hashes_only_when_the_tokenizer_writes_them():
    # Byte-level BPE (RoBERTa) marks a word's start (Ġ), not a continuation (##...).
    from explorer.model import Tokenization
    from explorer.ui.word_pieces._sections import column_config

    def tokenization(tokens):
        return Tokenization(
            "embed", None, tokens, [0, 1, 2, 3], [0] * 4, [1] * 4, [(0, 0), (0, 2), (2, 5), (0, 0)],
            [None, 0, 0, None], [None, 0, 0, None], [True, False, False, True], False,
        )  # fmt: skip

    bpe = column_config(tokenization(["<s>", "em", "bed", "</s>"]))
    assert "##" not in bpe["subword"]["help"]
    assert bpe["special"]["help"] == "Added by the tokenizer: <s>, </s>"
    wordpiece = column_config(tokenization(["[CLS]", "em", "##bed", "[SEP]"]))
    assert "(##...)" in wordpiece["subword"]["help"]
