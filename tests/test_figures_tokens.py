"""Token chips, table and counts of the Tokens page (pure functions, no Streamlit)."""

from __future__ import annotations

import html
from html.parser import HTMLParser

import pytest

from explorer.figures import tokens as figures_tokens
from explorer.figures.tokens import (
    SPECIAL_COLOUR,
    piece_html,
    token_chips_html,
    token_counts,
    tokens_notice,
    tokens_table,
)
from explorer.model import Tokenization

TEXT = "Contextual embeddings help BERT tell a river bank from a bank vault."
PAYLOADS = ("<script>alert(1)</script>", "<img src=x onerror=alert(1)>")


class _Words(HTMLParser):
    """Collect the text of every ``class="word"`` chip and of every special chip."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self.specials: list[str] = []
        self._depth = 0  # nesting depth inside the current word chip, 0 = outside
        self._special = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self._depth:
            self._depth += 1
        elif attrs.get("class") == "word":
            self._depth = 1
            self.words.append("")
        elif SPECIAL_COLOUR in (attrs.get("style") or ""):
            self._special = True
            self.specials.append("")

    def handle_endtag(self, tag):
        if self._depth:
            self._depth -= 1
        self._special = False

    def handle_data(self, data):
        if self._depth:
            self.words[-1] += data
        elif self._special:
            self.specials[-1] += data


def _parse(markup: str) -> _Words:
    parser = _Words()
    parser.feed(markup)
    return parser


def _synthetic(tokens: list[str], text: str) -> Tokenization:
    """A hand-made tokenization: [CLS], one word per middle token, [SEP]."""
    n = len(tokens)
    words = [None, *range(n - 2), None]
    return Tokenization(
        text=text,
        pair=None,
        tokens=tokens,
        ids=list(range(100, 100 + n)),
        segment_ids=[0] * n,
        attention_mask=[1] * n,
        offsets=[(0, 0), *[(0, len(text))] * (n - 2), (0, 0)],
        word_ids=words,
        sequence_ids=[None, *[0] * (n - 2), None],
        special=[True, *[False] * (n - 2), True],
        truncated=False,
    )


def test_chips_show_every_token(bundled):
    tokenization = bundled.tokenize(TEXT)
    markup = token_chips_html(tokenization)
    for token in tokenization.tokens:
        bare = token.removeprefix("##")
        assert html.escape(bare) in markup, token
    for token_id in tokenization.ids:
        assert f"id {token_id} " in markup


def test_chips_group_the_pieces_of_a_word(bundled):
    tokenization = bundled.tokenize(TEXT)
    assert tokenization.tokens[3:7] == ["em", "##bed", "##ding", "##s"]
    parsed = _parse(token_chips_html(tokenization))
    assert len(parsed.words) == tokenization.num_words
    assert "em##bed##ding##s" in parsed.words
    assert "context##ual" in parsed.words
    assert parsed.words.count("bank") == 2
    assert parsed.specials == ["[CLS]", "[SEP]"]


def test_pieces_of_a_word_share_one_chip_and_words_alternate_colours(bundled):
    markup = token_chips_html(bundled.tokenize("embeddings help"))
    chips = markup.split('class="word"')[1:]
    assert len(chips) == 2
    background = [chip.split("background:")[1].split(";")[0] for chip in chips]
    assert background[0] != background[1]
    assert chips[0].count(">##</span>") == 3


def test_chips_of_a_pair_have_one_row_per_sentence(bundled):
    markup = token_chips_html(bundled.tokenize("A river bank.", "A bank vault."))
    assert "Sentence A" in markup and "Sentence B" in markup
    assert markup.index("Sentence B") > markup.index("[SEP]")
    assert "Sentence A" not in token_chips_html(bundled.tokenize("A river bank."))


def test_show_special_false_leaves_special_tokens_out(bundled):
    markup = token_chips_html(bundled.tokenize("embeddings"), show_special=False)
    assert "[CLS]" not in markup and "[SEP]" not in markup
    assert _parse(markup).words == ["em##bed##ding##s"]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_chips_escape_html_from_the_text(bundled, payload):
    markup = token_chips_html(bundled.tokenize(f"Look: {payload} bank", payload))
    assert "<script" not in markup
    assert "<img" not in markup
    assert "&lt;" in markup


@pytest.mark.parametrize("payload", PAYLOADS)
def test_chips_escape_html_in_tokens_and_titles(payload):
    # A tokenizer that kept the payload whole (no punctuation splitting) must not inject it.
    markup = token_chips_html(_synthetic(["[CLS]", payload, '"quoted"', "[SEP]"], payload))
    assert "<script" not in markup
    assert "<img" not in markup
    assert html.escape(payload) in markup
    assert "&quot;quoted&quot;" in markup
    assert '"quoted"' not in markup  # a raw quote would end a title attribute


def test_piece_html_dims_subword_markers():
    assert piece_html("##ding").endswith("ding")
    assert "##</span>" in piece_html("##ding")
    assert piece_html("##") == "##"
    assert piece_html("\u0120bank").endswith("bank")
    assert piece_html("<b>") == "&lt;b&gt;"


def test_counts(bundled):
    counts = token_counts(bundled.tokenize(TEXT))
    assert counts.characters == len(TEXT)
    assert counts.words == 13
    assert counts.tokens == 19 and counts.special == 2 and counts.pieces == 17
    assert counts.split_words == 2  # contextual, embeddings
    assert counts.tokens_per_word == pytest.approx(17 / 13)
    assert counts.covered_characters == len(TEXT)


def test_counts_of_a_truncated_text(bundled):
    text = "bank " * 1000
    tokenization = bundled.tokenize(text)
    counts = token_counts(tokenization)
    assert tokenization.truncated
    assert counts.tokens == bundled.max_length
    assert 0 < counts.covered_characters < len(text)


def test_table_has_one_row_per_token_and_the_covered_text(bundled):
    tokenization = bundled.tokenize("Embeddings!", "Bank.")
    table = tokens_table(tokenization)
    assert len(table) == len(tokenization)
    assert list(table["token"]) == tokenization.tokens
    assert list(table["id"]) == tokenization.ids
    assert list(table["segment_id"]) == tokenization.segment_ids
    assert list(table["text"])[1:5] == ["Em", "bed", "ding", "s"]
    assert table["word_id"].isna().tolist() == tokenization.special
    assert set(table.columns) >= {"start", "end", "attention_mask", "special", "subword"}


def test_chips_show_ids_under_the_tokens_when_asked(bundled):
    tokenization = bundled.tokenize("Embeddings help.")
    plain_chips = token_chips_html(tokenization)
    with_ids = token_chips_html(tokenization, show_ids=True)
    assert 'class="token-id"' not in plain_chips
    assert with_ids.count('class="token-id"') == len(tokenization)
    for token_id in tokenization.ids:
        assert f'style="{figures_tokens._ID}">{token_id}</span>' in with_ids


def test_tokens_notice_counts_and_names_the_split_words(bundled):
    notice = tokens_notice(bundled.tokenize("Contextual embeddings help."))
    assert notice.startswith("4 words became 8 pieces: 2 split (")
    assert "embeddings → em ##bed ##ding ##s" in notice
    assert "the 2 special tokens the tokenizer adds ([CLS], [SEP]), the model reads 10" in notice
    whole = tokens_notice(bundled.tokenize("A bank."))
    assert "every word is in the vocabulary whole" in whole
