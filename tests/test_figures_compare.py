"""Figures and what-to-notice sentences of the Compare models page, the pair's memory refusal
and the pair's token cap."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.compare import TokenStats, pair_refusal
from explorer.figures.compare import (
    cross_cka_heatmap,
    cross_cka_notice,
    token_stats_notice,
    token_stats_table,
)
from explorer.server import limits

MATRIX = np.array([[0.9, 0.5, 0.2], [0.4, 0.8, 0.3], [0.1, 0.6, 0.7], [0.2, 0.3, 0.95]])


def test_heatmap_rings_the_best_layer_of_b_for_each_layer_of_a():
    figure = cross_cka_heatmap(MATRIX, "A model", "B model")
    heat, rings = figure.data
    assert np.array_equal(np.asarray(heat.z), MATRIX)
    assert list(rings.x) == ["0", "1", "2", "2"] and list(rings.y) == ["0", "1", "2", "3"]
    assert "B model" in figure.layout.xaxis.title.text
    # a white ring draws nothing on the white legend: its name says what it looks like
    assert rings.marker.color == "white" and rings.name.startswith("white box")


def test_the_rows_title_fits_beside_the_rows_at_any_font_scale():
    """In presentation mode (text 1.35x) the rows' title "layer of model A: all-MiniLM-L6-v2
    (bundled)" ran past 7 short rows into the chart's title: its lines must fit the plot."""
    label = "all-MiniLM-L6-v2 (bundled)"
    for scale in (1.0, 1.35):
        figure = cross_cka_heatmap(np.full((7, 7), 0.5), label, "B", scale=scale)
        layout = figure.layout
        plot_px = layout.height - layout.margin.t - layout.margin.b - 60  # less the x axis
        lines = layout.yaxis.title.text.split("<br>")
        assert label in lines  # model A named on a line of its own
        assert max(len(line) for line in lines) * 7 * scale <= plot_px, (scale, plot_px)


def test_cka_notice_reads_the_matrix():
    sentence = cross_cka_notice(MATRIX, "A model", "B model")
    assert sentence.startswith(
        "The higher A's layer, the higher its best match in B (B's layer 0 for A's layer 0, "
        "2 for A's last)"
    )
    assert (
        "A's last layer (layer 3) is most like B's layer 2 of 2, 100% of the way up B " in sentence
    )
    assert "(CKA 0.95)" in sentence
    assert "least alike 0.10" in sentence
    shuffled = cross_cka_notice(MATRIX[::-1], "A", "B")
    assert shuffled.startswith("B's best-matching layers do not follow A's order")
    # all-mpnet-base-v2 against its random weights: every row within a few hundredths, the best
    # match jumping from B's layer 2 to 12 on 0.01; "the layers line up" read into noise
    rows = np.linspace(0.38, 0.12, 13)[:, None] + np.linspace(0.0, 0.01, 13)[None, :]
    rows[:6, 2] += 0.005
    flat = cross_cka_notice(rows, "A", "B")
    assert "line up" not in flat and "do not follow" not in flat
    assert flat.startswith("Each layer of A is about as alike to every layer of B")
    assert "differ by 0.01 on average" in flat and "(CKA 0.13)" in flat


def test_token_notice_names_who_splits_more_with_both_shares():
    a, b = TokenStats(100, 110, 9, 0), TokenStats(100, 125, 12, 3)
    sentence = token_stats_notice(a, b, "MiniLM", "RoBERTa")
    assert sentence.startswith(
        "Model B (RoBERTa) splits 12% of the corpus's words, model A (MiniLM) 9%."
    )
    assert "model A 1.10, model B 1.25" in sentence
    assert "model B 3" in sentence and "model A 0" not in sentence
    same = token_stats_notice(a, TokenStats(200, 220, 19, 0), "X", "Y")
    assert same.startswith(
        "Both tokenizers split about as many of the corpus's words: model A (X) 9%"
    )
    # two tokenizers with equal counts (a vocabulary shared but for its special tokens)
    alike = token_stats_notice(a, TokenStats(100, 110, 9, 0), "X", "Y")
    assert alike.startswith("The two tokenizers cut the corpus into the same 100 words and 110")
    assert "both split 9% of the words" in alike
    # The counts are the corpus's: the chips above the notice show one text, not "these words".
    assert all("these" not in s for s in (sentence, same, alike))
    itself = token_stats_notice(a, a, "X", "X with random weights", same_tokenizer=True)
    assert itself.startswith("Model B has model A's tokenizer: both split 9% of the corpus's words")
    table = token_stats_table([a, b], ["MiniLM", "RoBERTa"])
    assert table["% of words split"].tolist() == [9.0, 12.0]
    assert table["tokens per word"].tolist() == [1.1, 1.25]


def test_pair_refusal_says_what_fits():
    assert pair_refusal("A", 100 * 2**20, "B", 400 * 2**20, 1024 * 2**20) is None
    message = pair_refusal(
        "MiniLM", 87 * 2**20, "BERT-large", 1279 * 2**20, 1024 * 2**20, ["random weights"]
    )
    assert "1,366 MB together" in message and "(1,024 MB)" in message
    assert "Beside MiniLM, these fit: random weights." in message
    alone = pair_refusal("big", 900 * 2**20, "big too", 900 * 2**20, 1024 * 2**20)
    assert "a smaller model A would" in alone


def test_pair_tokens_share_the_budget_by_work(bundled, bert_base_path):
    import explorer

    assert limits.pair_tokens(bundled, bundled) == limits.MAX_PAIR_TOKENS // 2
    big = explorer.load_model(bert_base_path)
    assert limits.pair_tokens(bundled, big) < limits.MAX_PAIR_TOKENS // 8
    assert limits.pair_note(3, 3, 100) is None
    assert "first 2 of 3 texts" in limits.pair_note(2, 3, 100)
    with pytest.raises(ValueError):
        limits.pair_tokens(bundled, bundled, budget=0)


def test_maps_figure_colours_both_maps_by_agreement_and_escapes_hover_text():
    from explorer.figures.compare_maps import paired_maps_figure

    points = np.arange(8.0).reshape(4, 2)
    agreement = np.array([0.0, 0.5, 1.0, 0.5])
    texts = ["a <b>bold</b> text", "b", "c", "d"]
    figure = paired_maps_figure(points, points, agreement, texts, "A", "B", 2)
    left, right = figure.data
    assert list(left.marker.color) == list(right.marker.color) == list(agreement)
    assert "<b>bold</b>" not in left.text[0] and "&lt;b&gt;" in left.text[0]
    with pytest.raises(ValueError):
        paired_maps_figure(points, points[:3], agreement, texts, "A", "B", 2)
    # plotly's toolbar (about 30 px) sits above the subplot titles (about 20 px), not on them
    assert figure.layout.margin.t >= 55


def test_agreement_notice_and_disagreement_table_read_the_numbers():
    from explorer.figures.compare_maps import agreement_notice, disagreement_table

    agreement = np.array([1.0, 0.0, 0.5, 0.0])
    sentence = agreement_notice(agreement, 2)
    assert sentence == (
        "On average the two models agree on 38% of a text's 2 nearest neighbours (0.8 of 2), "
        "on 0% for the text they disagree about most; 1 of 4 texts have the same 2 under both "
        "and 2 have none in common."
    )
    near_a = np.array([[1, 2], [0, 2], [0, 1], [2, 1]])
    near_b = np.array([[1, 2], [3, 2], [0, 3], [0, 1]])
    table = disagreement_table(["t0", "t1", "t2", "t3"], agreement, near_a, near_b, rows=2)
    assert table["text"].tolist() == ["t1", "t3"]  # lowest first, ties in text order
    assert table["nearest under A"].tolist() == ["t0\nt2", "t2\nt1"]
    assert table["nearest under B"].tolist() == ["t3\nt2", "t0\nt1"]


def test_search_table_marks_what_both_found():
    from explorer.figures.compare_maps import search_notice, search_table

    texts = ["t0", "t1", "t2", "t3"]
    table = search_table(texts, [0, 1, 2], [2, 3, 0])
    assert table["model A"].tolist() == ["t0 ✓", "t1", "t2 ✓"]
    assert table["model B"].tolist() == ["t2 ✓", "t3", "t0 ✓"]
    assert search_notice([0, 1, 2], [2, 3, 0]) == (
        "The two models share 2 of their top 3 results (marked ✓). Their first results differ."
    )
    none = search_notice([0, 1, 2], [3, 4, 5])  # no row is marked: no ✓ to point at
    assert none.startswith("The two models share none of their top 3 results.")
    assert "✓" not in none
    assert search_notice([0, 1], [0, 3]).endswith("Both put the same text first.")


def test_the_followed_text_is_starred_in_both_maps_with_each_models_neighbours_ringed():
    from explorer.figures.compare_maps import paired_maps_figure

    points = np.arange(10.0).reshape(5, 2)
    figure = paired_maps_figure(
        points,
        -points,
        np.full(5, 0.5),
        list("abcde"),
        "A",
        "B",
        2,
        3,
        (np.array([1, 2]), np.array([0, 4])),
    )
    assert [list(t.customdata[:, 0]) for t in figure.data[:2]] == [[0, 1, 2, 3, 4]] * 2
    marks = {(t.xaxis, t.marker.symbol): list(t.x) for t in figure.data[2:]}
    assert marks[("x", "star")] == [6.0] and marks[("x2", "star")] == [-6.0]
    assert marks[("x", "circle-open")] == [2.0, 4.0]  # A's neighbours on A's map
    assert marks[("x2", "circle-open")] == [0.0, -8.0]  # B's on B's


def test_a_click_on_either_map_follows_that_text_else_the_most_disputed():
    from explorer.figures.compare_maps import followed_text

    agreement = np.array([0.5, 0.1, 0.1, 0.9])
    assert followed_text(None, agreement) == (1, False)
    # What Streamlit sends for a click on B's map (customdata comes as a dict: not used).
    click = {"points": [{"curve_number": 1, "point_index": 3, "customdata": {"0": 3}}]}
    assert followed_text(click, agreement) == (3, True)
    ring = {"points": [{"curve_number": 2, "point_index": 0}]}  # a ring, not a text
    assert followed_text(ring, agreement) == (1, False)
    stale = {"points": [{"curve_number": 0, "point_index": 9}]}
    assert followed_text(stale, agreement) == (1, False)


def test_two_text_columns_share_the_tables_width():
    from explorer.figures.compare_maps import search_table
    from explorer.figures.tables import text_table_html

    table = search_table(["a long text", "b", "c"], [0, 1], [2, 0])
    both = text_table_html(table, "t", text_columns=("model A", "model B"))
    assert both.count("width:50%;") == 4 and "width:100%;" not in both.split("<tbody>")[1]
    one = text_table_html(table, "t", text_columns=("model A",))
    assert one.split("<tbody>")[1].count("width:100%;") == 2  # a single text column: unchanged
