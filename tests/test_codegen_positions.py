"""The "Where is a token?" section's "Show code" snippet runs and prints the numbers the
section's sentence quotes, the library's table, map and cosines; without a table, the note."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.codegen.positions import positions_snippet
from explorer.figures.positions import position_notice
from explorer.model.ref import ModelRef
from explorer.positions import position_cosines, position_map, position_table
from tests.snippets import assert_prints_headline, run_snippet
from tests.tiny_models import save_random


@pytest.mark.parametrize("fixture", ["tiny_bert_path", "tiny_roberta_path"])
def test_snippet_matches_the_library_and_the_sentence(request, fixture):
    path = request.getfixturevalue(fixture)
    model = explorer.load_model(path)
    positions = position_table(model)
    namespace, printed = run_snippet(positions_snippet(ModelRef(path), positions.note))
    assert namespace["first"] == positions.first
    np.testing.assert_allclose(namespace["table"], positions.table, atol=1e-7)
    np.testing.assert_allclose(namespace["xy"], position_map(positions.table), atol=1e-5)
    cosines = position_cosines(positions.table)
    np.testing.assert_allclose(namespace["cosines"], cosines, atol=1e-6)
    notice = position_notice(cosines, positions.first)
    assert_prints_headline(printed, notice)
    assert f"{len(positions.table)} positions (from {positions.first})" in printed
    assert f"The {len(positions.table)} positions (from {positions.first})" in notice


def test_roberta_table_starts_after_the_padding_index(tiny_roberta_path):
    namespace, _ = run_snippet(positions_snippet(ModelRef(tiny_roberta_path)))
    assert namespace["first"] >= 1


@pytest.fixture(scope="module")
def no_table_path(tmp_path_factory) -> str:
    """A tiny random DeBERTa-v2 with relative attention only (no position table)."""
    from transformers import BertTokenizer, DebertaV2Config, DebertaV2Model

    config = DebertaV2Config(
        vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, relative_attention=True, position_biased_input=False,
    )  # fmt: skip
    folder = tmp_path_factory.mktemp("deberta-no-table")
    return save_random(folder, config, DebertaV2Model, BertTokenizer)


def test_a_model_without_a_table_prints_the_note(no_table_path):
    positions = position_table(explorer.load_model(no_table_path))
    assert positions.table is None
    namespace, printed = run_snippet(positions_snippet(ModelRef(no_table_path), positions.note))
    assert namespace["table"] is None
    assert printed.strip() == f"This model has {positions.note}."
    _, generic = run_snippet(positions_snippet(ModelRef(no_table_path)))
    assert generic.startswith("This model has no absolute position table")
