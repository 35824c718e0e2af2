"""The custom-axes "Show code" snippet runs and gives the library's coordinates."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.codegen.axes import axes_snippet, vectors_program
from explorer.maps._axes import custom_axes, text_vector, word_vector
from explorer.model.ref import ModelRef
from tests.snippets import run_snippet

TEXTS = [
    "The bank approved the loan.",
    "We sat on the grassy river bank all afternoon.",
    "Stocks fell sharply today, and the bank lost money.",
    "The boat drifted to the muddy bank of the river.",
    "This soup needs more salt.",
]


def test_snippets_compile_and_hold_no_projection():
    code = axes_snippet(
        ModelRef("bert-base-uncased"), TEXTS, ("money", "river"), None, "cls", "sum_last4"
    )
    compile(code, "<snippet>", "exec")
    assert "PCA(" not in code and "x_direction = unit(ends[1] - ends[0])" in code
    assert code.startswith("# Custom axes · ")
    program = vectors_program(ModelRef("bert-base-uncased"), TEXTS, word="bank", spans=[(0, 4, 8)])
    assert "point_texts = [texts[t] for t, _, _ in occurrences]" in program
    with pytest.raises(ValueError, match="spans"):
        vectors_program(ModelRef("bert-base-uncased"), TEXTS, word="bank")


@pytest.mark.slow
@pytest.mark.parametrize("y_ends", [None, ("cold", "hot")])
def test_sentence_axes_snippet_reproduces_the_library(bundled, y_ends):
    code = axes_snippet(
        ModelRef(bundled.name), TEXTS, ("money", "river"), y_ends, "mean", "sum_last4"
    )
    namespace, out = run_snippet(code)
    vectors = explorer.sentence_embeddings(bundled, TEXTS, "mean", "sum_last4")
    ends = [
        text_vector(bundled, t, "mean", "sum_last4") for t in ["money", "river", *(y_ends or ())]
    ]
    axes = custom_axes(vectors, *ends)
    np.testing.assert_allclose(namespace["coords"], axes.coords, atol=1e-4)
    # It prints the first points' coordinates (the numbers the page's chart draws) and texts.
    printed = out.strip().splitlines()[-5:]
    for line, (x, y), text in zip(printed, axes.coords, TEXTS, strict=True):
        shown_x, shown_y = map(float, line.split()[:2])
        assert abs(shown_x - x) < 2e-4 and abs(shown_y - y) < 2e-4 and line.endswith(text[:60])


@pytest.mark.slow
def test_word_axes_snippet_reproduces_the_library(bundled):
    occurrences, vectors = explorer.word_vectors(bundled, TEXTS, "bank", "last")
    spans = [(o.text_index, o.char_start, o.char_end) for o in occurrences]
    code = axes_snippet(
        ModelRef(bundled.name),
        TEXTS,
        ("money", "river"),
        None,
        None,
        "last",
        word="bank",
        spans=spans,
    )
    namespace, _ = run_snippet(code)
    axes = custom_axes(
        vectors, word_vector(bundled, "money", "last"), word_vector(bundled, "river", "last")
    )
    np.testing.assert_allclose(namespace["coords"], axes.coords, atol=1e-4)
