"""Issue 36.4: the vocabulary map's what-to-notice sentence, computed from the map and the two
neighbour tables, and its "Show code" program printing the numbers the sentence quotes."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer import vocabulary
from explorer.codegen.vocabulary import vocabulary_snippet
from explorer.figures.vocabulary import vocabulary_figure, vocabulary_notice
from explorer.model.ref import ModelRef
from tests.conftest import TUTORIAL
from tests.snippets import assert_prints_headline, run_snippet


@pytest.fixture(scope="module")
def distilbert(distilbert_path) -> explorer.Model:
    return explorer.load_model(distilbert_path)


def _pieces(model, piece: str):
    frame = vocabulary.vocabulary_map(model)
    near = vocabulary.static_neighbours(model, piece, 10)
    context = vocabulary.contextual_neighbours(model, TUTORIAL, piece, 10)
    return frame, near, context


@pytest.mark.parametrize("model", ["bundled", "tiny", "distilbert"])
@pytest.mark.parametrize("piece", ["bank", "river"])
def test_notice_quotes_the_numbers_on_screen(request, model, piece):
    model = request.getfixturevalue(model)
    frame, near, context = _pieces(model, piece)
    notice = vocabulary_notice(frame, piece, near, context)
    counts = frame["kind"].value_counts()
    for kind in vocabulary.KINDS:
        if counts.get(kind, 0):
            assert f"{counts[kind]:,} {kind}" in notice
    first, second = frame.attrs["variance"]
    assert f"two axes hold {first:.1%} and {second:.1%} of the table's variance" in notice
    figure = vocabulary_figure(frame)
    assert f"{first:.1%}" in figure.layout.xaxis.title.text
    assert f"{second:.1%}" in figure.layout.yaxis.title.text
    assert "kind" in figure.layout.legend.title.text
    colours = [trace.marker.color for trace in figure.data]
    assert None not in colours and len(set(colours)) == len(colours)
    x = frame["x"].to_numpy(np.float64)
    cont = round(x[frame["kind"] == "continuation"].mean(), 2)
    whole = round(x[frame["kind"] == "whole word"].mean(), 2)
    spread = round(x.std(ddof=1), 2)
    assert f"continuations average {cont:+.2f} and whole words {whole:+.2f}" in notice
    assert f"spread (standard deviation) of {spread:.2f}" in notice
    apart = abs(cont - whole) >= spread / 2
    assert ("does not set the two kinds apart" in notice) is not apart
    shared = [p for p, _ in near if p in set(context["token"])]
    assert (f"{len(shared)} of its 10" in notice) if shared else ("none of its 10" in notice)
    top = context.iloc[0]
    assert f"nearest in context is {top['token']} (cosine {top['contextual']:.3f}" in notice
    assert f"{top['static']:.3f} in the static table" in notice


def _frame(kinds, xs):
    return pd.DataFrame({"id": range(len(kinds)), "piece": list("abcdefgh"[: len(kinds)]),
                         "kind": kinds, "x": np.asarray(xs, np.float32), "y": 0.0})  # fmt: skip


def test_notice_ties_and_degenerate_cases():
    # equal means (a tie): not apart, whatever the spread
    tie = _frame(["whole word", "continuation", "whole word", "continuation"], [1, 1, -1, -1])
    assert "does not set the two kinds apart" in vocabulary_notice(tie)
    assert "continuations average +0.00 and whole words +0.00" in vocabulary_notice(tie)
    # every point at one place: spread 0, never "apart"
    flat = _frame(["whole word", "continuation"], [0.5, 0.5])
    assert "does not set" in vocabulary_notice(flat) and "of 0.00" in vocabulary_notice(flat)
    # clearly apart
    apart = _frame(["whole word", "whole word", "continuation", "continuation"], [1, 1, -1, -1])
    assert "the first axis sets the two kinds apart" in vocabulary_notice(apart)
    # no continuations (and no variance shares known): no PC 1 clause, only counts
    words = _frame(["whole word", "special"], [0.0, 1.0])
    assert vocabulary_notice(words) == "Of the 2 pieces: 1 whole word, 1 special."
    near = [("b", 0.5), ("c", 0.25)]
    assert "does not hold a" in vocabulary_notice(words, "a", near, None)
    assert "cosine 0.500" in vocabulary_notice(words, "a", near, None)
    empty = pd.DataFrame(columns=["position", "token", "contextual", "static"])
    assert "holds no other token" in vocabulary_notice(words, "a", near, empty)
    one = pd.DataFrame({"position": [2], "token": ["c"], "contextual": [0.9], "static": [0.25]})
    assert "1 of its 2 nearest static pieces (c) is among its 1 nearest token in" in (
        vocabulary_notice(words, "a", near, one)
    )


@pytest.mark.parametrize("model", ["tiny_bert_path", "distilbert_path"])
def test_snippet_prints_what_the_notice_quotes(request, model):
    path = request.getfixturevalue(model)
    frame, near, context = _pieces(explorer.load_model(path), "bank")
    namespace, printed = run_snippet(vocabulary_snippet(ModelRef(path), TUTORIAL, "bank"))
    assert [p for p, _ in namespace["near"]] == [p for p, _ in near]
    np.testing.assert_allclose([c for _, c in namespace["near"]], [c for _, c in near], atol=1e-5)
    assert [t for t, _, _ in namespace["context"]] == list(context["token"])
    np.testing.assert_allclose([c for _, c, _ in namespace["context"]], context["contextual"],
                               atol=1e-5)  # fmt: skip
    np.testing.assert_allclose([s for _, _, s in namespace["context"]], context["static"],
                               atol=1e-5)  # fmt: skip
    assert list(namespace["kinds"]) == list(frame["kind"])
    x = np.abs(namespace["xy"][:, 0])
    np.testing.assert_allclose(x, np.abs(frame["x"].to_numpy(np.float64)), atol=1e-4)
    notice = vocabulary_notice(frame, "bank", near, context)
    assert_prints_headline(printed, notice)
    counts = re.findall(
        r"\d[\d,]* (?:whole word|continuation|special|number|punctuation)(?=[,.])", notice
    )
    assert len(counts) >= 3 and all(count in printed for count in counts), counts


def test_snippet_when_the_text_lacks_the_piece(tiny, tiny_bert_path):
    namespace, printed = run_snippet(
        vocabulary_snippet(ModelRef(tiny_bert_path), "A river.", "bank")
    )
    assert namespace["context"] == [] and "the text does not hold bank" in printed
