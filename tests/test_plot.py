"""explorer.plot without the app: no Streamlit, clear errors, the notice on every figure."""

from __future__ import annotations

import html
import subprocess
import sys

import numpy as np
import pytest

import explorer
from explorer import plot

SIX = [f"text {i}" for i in range(6)]  # distinct: identical texts share a fold
BANK = (
    "After stealing money from the bank vault, the bank robber was seen fishing on the "
    "Mississippi river bank."
)


def _two_words():
    from explorer.data import corpora

    senses = corpora.load_senses()
    return senses[senses["word"].isin(["bank", "bat"])]


def test_importing_plot_does_not_import_streamlit():
    code = "import sys, explorer.plot; assert 'streamlit' not in sys.modules, 'streamlit'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_figure_carries_its_notice(tiny):
    figures = [
        plot.layers(tiny, BANK),
        plot.word_in_context(tiny, [BANK, "The bank is closed."], "bank"),
        plot.similarity(tiny, [BANK, "The bank is closed.", "We fished."]),
        plot.projection(tiny, [BANK, "The bank is closed.", "We fished.", "A vault."]),
        plot.attention(tiny, BANK),
        plot.why_close(tiny, BANK, "The bank is closed."),
        plot.probe(
            tiny,
            [f"cat {i}" for i in range(6)] + [f"bank {i}" for i in range(6)],
            ["pet"] * 6 + ["money"] * 6,
            folds=3,
        ),
        plot.contextual(tiny, _two_words()),
    ]
    for figure in figures:
        notice = figure.layout.meta["notice"]
        assert notice and notice.split()[0] in figure.layout.title.subtitle.text
    shown = plot.tokens(tiny, BANK)
    assert "tokens" in shown.notice and html.escape(shown.notice) in shown._repr_html_()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: plot.tokens(m, 3), "text must be a string"),
        (lambda m: plot.tokens(m, "  "), "empty"),
        (lambda m: plot.layers(m, BANK, token=999), "token must be a position"),
        (lambda m: plot.layers(m, BANK, layer=99), "layer must be"),
        (lambda m: plot.word_in_context(m, [BANK], "vault"), "occurs only once"),
        (lambda m: plot.word_in_context(m, [BANK], "zebra"), "does not occur"),
        (lambda m: plot.word_in_context(m, [BANK, BANK], "bank", layers="top9"), "top9"),
        (lambda m: plot.similarity(m, ["a", "b"]), "at least 3"),
        (lambda m: plot.similarity(m, ["a"] * 61), "at most 60"),
        (lambda m: plot.similarity(m, ["a", "b", "c"], "median"), "median"),
        (lambda m: plot.similarity(m, [1, 2, 3]), "list of strings"),
        (lambda m: plot.similarity(42, ["a", "b", "c"]), "explorer.Model"),
        (lambda m: plot.probe(m, ["a", "b", "c"], ["x", "y"]), "3 texts but 2 labels"),
        (lambda m: plot.probe(m, SIX, ["x", "y"] * 3, "median", folds=2), "median"),
        (lambda m: plot.why_close(m, BANK, 7), "b must be a string"),
        (lambda m: plot.why_close(m, BANK, BANK, "median"), "median"),
        (lambda m: plot.attention(m, None), "text must be a string"),
        (lambda m: plot.contextual(m, _two_words()[["text"]]), "columns word, sense and text"),
        (lambda m: plot.projection(m, ["a", "b", "c"], ["x"]), "3 texts but 1 labels"),
        (lambda m: plot.projection(m, ["a", "b", "c"], method="mds"), "mds"),
        (lambda m: plot.projection(m, ["a", "b", "c"], dimensions=4), "dimensions"),
        (lambda m: plot.projection(np.ones((2, 4)), ["a", "b", "c"]), "one row per text"),
        (lambda m: plot.compare("random", m, [BANK]), "only model_b can be"),
        (lambda m: plot.compare(m, 3.5, [BANK]), "explorer.Model"),
        (lambda m: plot.compare(m, m, [1, 2]), "list of strings"),
        (lambda m: plot.compare(m, m, []), "texts is empty"),
        (lambda m: plot.compare(m, m, ["bank"]), "at least 2 words"),
    ],
)
def test_bad_input_is_a_clear_value_error(tiny, call, message):
    with pytest.raises(ValueError, match=message):
        call(tiny)


def test_projection_of_your_own_vectors_draws_them_as_they_are():
    rng = np.random.default_rng(0)
    vectors = np.vstack([rng.normal(0, 1, (10, 8)), rng.normal(6, 1, (10, 8))])
    labels = ["left"] * 10 + ["right"] * 10
    figure = plot.projection(vectors, [f"text {i}" for i in range(20)], labels)
    assert [trace.name for trace in figure.data] == ["left", "right"]
    xs = [np.mean(trace.x) for trace in figure.data]
    assert abs(xs[0] - xs[1]) > 5  # PCA's first axis separates the two clouds
    assert "label" in figure.layout.meta["notice"]


def test_why_close_under_cls_is_the_attribution_per_token(tiny):
    shown = plot.why_close(tiny, "The bank vault.", "The river bank.", "cls")
    assert isinstance(shown, plot.Attribution)
    assert shown.explanation.pairs is None and shown.notice
    assert html.escape(shown.notice) in shown._repr_html_()


def test_compare_is_cross_cka_over_the_words_both_tokenizers_read(tiny, other_tokenizer_path):
    from explorer.compare import cross_cka
    from explorer.figures.compare import cross_cka_notice

    other = explorer.load_model(other_tokenizer_path)
    texts = [BANK, "She sat on the bank of the river.", "The bat flew out of the cave."]
    figure = plot.compare(tiny, other, texts)
    matrix = cross_cka(tiny, other, texts)
    assert matrix.shape == (tiny.num_layers + 1, other.num_layers + 1)
    assert np.array_equal(np.asarray(figure.data[0].z), matrix)
    assert figure.layout.meta["notice"] == cross_cka_notice(matrix, tiny.name, other.name)
    assert figure.layout.title.subtitle.text


def test_compare_with_random_weights_is_the_same_architecture_untrained(tiny):
    from explorer.compare import cross_cka
    from explorer.model.loading import random_weights

    texts = [BANK, "She sat on the bank of the river."]
    figure = plot.compare(tiny, "random", texts)
    matrix = cross_cka(tiny, random_weights(tiny), texts)  # seed 0, as the page builds it
    assert np.array_equal(np.asarray(figure.data[0].z), matrix)
    assert "random weights" in figure.layout.xaxis.title.text
