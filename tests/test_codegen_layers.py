"""The Layers page's "Show code" snippet runs and prints the numbers the page shows."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer import layerstats
from explorer.codegen.layers import layers_snippet
from explorer.figures.layers import summary_notice
from explorer.model.ref import ModelRef
from tests.conftest import TUTORIAL
from tests.snippets import assert_prints_headline, run_snippet


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "layer", "token"),
    [(TUTORIAL, 5, 5), (TUTORIAL, 0, 0), ("A \"quoted\" bank, with 'quotes' \\ too.", 6, 3)],
)
def test_snippet_matches_the_library(bundled, text, layer, token):
    source = layers_snippet(ModelRef(explorer.DEFAULT_MODEL), text, layer, token)
    assert "output_hidden_states=True" in source and "torch.inference_mode()" in source
    namespace, printed = run_snippet(source)
    hidden = bundled.hidden_states(text)
    assert namespace["hidden"].shape == hidden.shape
    assert f"{hidden.shape}" in printed
    np.testing.assert_allclose(namespace["hidden"], hidden, atol=1e-4)

    expected = layerstats.vector_statistics(hidden[layer, token])
    for key in ("mean", "std", "norm", "max_abs"):
        assert float(namespace[key]) == pytest.approx(expected[key], abs=1e-4), key
    # The printed line carries the same numbers, to 4 decimals as on the page.
    printed_numbers = [float(x) for x in re.findall(r"-?\d+\.\d{4}", printed.splitlines()[-1])]
    wanted = [expected[key] for key in ("mean", "std", "norm", "max_abs")]
    np.testing.assert_allclose(printed_numbers, wanted, atol=1e-4)
    assert repr(bundled.tokenize(text).tokens[token]) in printed

    # The per-layer table agrees with the snippet's array too.
    table = layerstats.layer_statistics(namespace["hidden"])
    np.testing.assert_allclose(table["std"], layerstats.layer_statistics(hidden)["std"], atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("include_special", [True, False])
def test_snippet_prints_the_headline(bundled, include_special):
    # issue 33.5: the page's headline quotes the summary table, which the snippet did not print
    tokenization = bundled.tokenize(TUTORIAL)
    token = 6
    source = layers_snippet(ModelRef(explorer.DEFAULT_MODEL), TUTORIAL, 5, token, include_special)
    _, printed = run_snippet(source)
    hidden = bundled.hidden_states(TUTORIAL)
    summary = layerstats.layer_summary(hidden, token, include_special, tokenization.special)
    headline = summary_notice(summary, tokenization.tokens[token])
    assert_prints_headline(printed, headline)
