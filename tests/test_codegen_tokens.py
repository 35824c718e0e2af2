"""The Tokens page's "Show code" snippet runs and prints what Model.tokenize gives."""

from __future__ import annotations

import re

import pytest

import explorer
from explorer.codegen.tokens import tokens_snippet
from explorer.figures.tokens import tokens_notice
from explorer.model.ref import ModelRef
from tests.snippets import run_snippet

TEXT = "Contextual embeddings help BERT tell a river bank from a bank vault."


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        (TEXT, None),
        (TEXT, "After stealing money from the bank vault, the robber went fishing."),
        ("It's a \"quoted\" text with 'quotes' and a backslash \\ too.", None),
    ],
)
def test_snippet_matches_the_library(bundled, text, pair):
    source = tokens_snippet(ModelRef(explorer.DEFAULT_MODEL), text, pair, bundled.max_length)
    namespace, printed = run_snippet(source)
    expected = bundled.tokenize(text, pair)
    assert namespace["tokens"] == expected.tokens
    assert list(namespace["ids"]) == expected.ids
    assert list(namespace["types"]) == expected.segment_ids
    assert [tuple(o) for o in namespace["offsets"]] == expected.offsets
    lines = printed.splitlines()
    assert len(lines) == len(expected) + 2
    for line, token, token_id, segment in zip(
        lines[1:], expected.tokens, expected.ids, expected.segment_ids, strict=False
    ):
        assert line.split()[:3] == [token, str(token_id), str(segment)]
    # issue 33.5: the last line carries every number of the page's headline
    headline = tokens_notice(expected)
    assert set(re.findall(r"\d+", headline)) <= set(re.findall(r"\d+", lines[-1])), headline
    assert lines[-1].startswith(f"{expected.num_words} words became")


def test_snippet_truncates_like_the_library(bundled):
    text = "embeddings " * 400
    namespace, printed = run_snippet(
        tokens_snippet(ModelRef(explorer.DEFAULT_MODEL), text, None, 64)
    )
    assert len(namespace["tokens"]) == 64
    assert namespace["tokens"][-1] == "[SEP]"
    assert "Truncated: only the first 64 tokens were kept." in printed
    full = bundled.tokenize(text)
    assert full.truncated
    namespace, _ = run_snippet(
        tokens_snippet(ModelRef(explorer.DEFAULT_MODEL), text, None, bundled.max_length)
    )
    assert namespace["tokens"] == full.tokens


def test_snippet_for_a_hub_model_names_it():
    source = tokens_snippet(ModelRef("bert-base-uncased"), "A bank.", None, 512)
    assert "name = 'bert-base-uncased'" in source
    assert "max_length=512" in source
    assert "pair = None" in source
    compile(source, "<tokens snippet>", "exec")


def test_snippet_reads_typed_special_tokens_as_text_like_the_library(bundled):
    # issue 32, finding 14: the explorer reads a typed "[SEP]" as text; so does the snippet
    text, pair = "A typed [SEP] and [CLS] are text.", "[SEP] [PAD] too"
    namespace, _ = run_snippet(tokens_snippet(ModelRef(explorer.DEFAULT_MODEL), text, pair, 512))
    expected = bundled.tokenize(text, pair)
    assert namespace["tokens"] == expected.tokens and expected.special.count(True) == 3
    assert list(namespace["types"]) == expected.segment_ids
