"""explorer.figures.attention: pure figure builders, escaped labels, pooled long inputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from explorer.attention import _weights as attention
from explorer.attention._lens import Lens
from explorer.figures import attention as figures
from explorer.figures.attention_notices import what_to_notice

TOKENS = ["[CLS]", "<script>", "bank", ",", "[SEP]", "river", "[SEP]"]


def _stack(layers=2, heads=3, n=7, seed=0):
    rng = np.random.default_rng(seed)
    raw = rng.random((layers, heads, n, n)).astype(np.float32)
    return raw / raw.sum(-1, keepdims=True)


def test_pool_keeps_rows_summing_to_one():
    stack = _stack(n=50)
    pooled, starts = figures.pool(stack, 8)
    assert pooled.shape == (2, 3, 8, 8) and starts[0] == 0 and len(starts) == 8
    np.testing.assert_allclose(pooled.sum(-1), 1.0, atol=1e-5)
    same, starts = figures.pool(stack, 64)
    assert same is stack and starts == list(range(50))


def test_overview_grid_is_one_image_of_all_heads():
    figure = figures.overview_grid(_stack(), max_tokens=4)
    z = np.array(figure.data[0].z, dtype=float)
    assert z.shape == (2 * 5 - 1, 3 * 5 - 1)
    assert list(figure.layout.xaxis.ticktext) == ["head 1", "head 2", "head 3"]
    assert list(figure.layout.yaxis.ticktext) == ["layer 1", "layer 2"]


def test_overview_grids_colour_bar_sits_under_the_grid_not_a_gap_away():
    # The cells are square, so the grid (as high as the figure) is narrower than the chart:
    # the colour bar at the chart's right edge stood a wide gap from it. The grid is centred
    # (its x domain shrinks about the middle) and the bar lies centred under it.
    figure = figures.overview_grid(np.full((12, 12, 5, 5), 0.2), max_tokens=4)
    bar, layout = figure.data[0].colorbar, figure.layout
    assert layout.xaxis.constrain == "domain" and layout.xaxis.constraintoward in (None, "center")
    assert bar.orientation == "h" and bar.x == 0.5 and bar.xanchor == "center"
    assert bar.y < 0 and bar.yanchor == "top" and bar.len <= 0.5  # below the plot, short
    assert layout.margin.b >= 60  # room for it
    assert layout.height - layout.margin.t - layout.margin.b >= 60 * 12  # the grid kept its size


def test_token_labels_are_escaped_everywhere():
    stack = _stack()
    shown = [
        figures.head_heatmap(stack[0, 0], TOKENS),
        figures.head_view(stack[0, 0], TOKENS, [0, 0, 0, 0, 0, 1, 1]),
        figures.comparison(stack[0, 0], stack[0, 1], stack[0, 2], TOKENS),
    ]
    for figure in shown:
        text = json.dumps(figure.to_plotly_json(), default=str)
        assert "<script>" not in text and "&lt;script&gt;" in text


def test_head_view_lines_follow_the_weights_and_focus():
    matrix = np.zeros((3, 3), np.float32)
    matrix[0, 2] = 0.9
    matrix[1, 0] = 0.5
    matrix[2, 2] = 0.02  # below min_weight: no line
    figure = figures.head_view(matrix, ["a", "b", "c"], [0, 0, 1])
    lines = [t for t in figure.data if t.mode == "lines"]
    assert sum(len(t.x) // 3 for t in lines) == 2
    across = [t for t in lines if t.line.color == figures.ACROSS]
    assert len(across) == 1 and list(across[0].y[:2]) == [0, 2]
    focused = figures.head_view(matrix, ["a", "b", "c"], focus=1)
    assert sum(len(t.x) // 3 for t in focused.data if t.mode == "lines") == 1


def test_comparison_has_three_panels():
    stack = _stack(n=100)
    figure = figures.comparison(stack[0, 0], stack[0, 1], stack[1, 0], list(map(str, range(100))))
    assert len(figure.data) == 3 and np.array(figure.data[0].z).shape == (64, 64)


def test_token_labels_and_their_rows_grow_with_the_scale():
    # issue 27.5: presentation mode's style sheet cannot reach the pixel sizes a figure sets
    stack, tokens = _stack(n=40), [f"t{i}" for i in range(40)]
    for build in (
        lambda scale: figures.head_heatmap(stack[0, 0], tokens, scale=scale),
        lambda scale: figures.comparison(
            stack[0, 0], stack[0, 1], stack[1, 0], tokens, scale=scale
        ),
    ):
        normal, large = build(1.0), build(1.35)
        assert large.layout.xaxis.tickfont.size >= round(1.35 * normal.layout.xaxis.tickfont.size)
        assert large.layout.yaxis.tickfont.size == large.layout.xaxis.tickfont.size
        assert large.layout.height > normal.layout.height  # room for the larger labels


def test_statistics_sentence_reads_the_numbers():
    stack = np.zeros((3, 1, 5, 5), np.float32)
    stack[:, :, :, 4] = 1  # everything on [SEP]...
    stack[2, 0] = np.eye(5, k=-1) + np.eye(5, k=4)  # ...except layer 3: previous token
    stats = attention.head_statistics(stack, ["[CLS]", "a", "b", "c", "[SEP]"])
    sentence = what_to_notice(stats)
    assert "[SEP]" in sentence and "layers 1-2" in sentence
    assert "layer 3 head 1" in sentence and "previous" in sentence
    table = figures.statistics_table(stats)
    assert "on [SEP]" in table.columns


def test_lens_table_and_figure():
    lens = Lens(
        tokens=["[CLS]", "[MASK]", "[SEP]"],
        positions=[1],
        top_tokens=[[["a", "<b>"]], [["c", "d"]]],
        probabilities=np.array([[[0.6, 0.3]], [[0.9, 0.05]]], np.float32),
        truncated=False,
    )
    table = figures.lens_table(lens)
    assert isinstance(table, pd.DataFrame) and table.shape == (2, 2)
    assert table.loc["layer 1", "#1"] == "c (0.90)"
    figure = figures.lens_figure(lens, k=2)
    assert figure.data[0].text[0][1] == "&lt;b&gt;"
    with pytest.raises(IndexError):
        figures.lens_table(lens, mask=3)


def test_head_view_labels_sit_outside_the_lines_and_the_lines_use_the_width():
    # the labels were drawn between the columns, under the lines, and the lines used 45% of
    # the chart's width (x from -0.6 to 1.6)
    tokens = ["[CLS]", "the", "mississippi", "river", "[SEP]"]
    matrix = np.full((5, 5), 0.2, np.float32)
    figure = figures.head_view(matrix, tokens)
    left, right = (t for t in figure.data if t.mode == "markers+text")
    assert (left.x[0], left.textposition) == (0, "middle left")
    assert (right.x[0], right.textposition) == (1, "middle right")
    assert left.cliponaxis is False and right.cliponaxis is False
    low, high = figure.layout.xaxis.range
    assert -0.05 <= low and high <= 1.05  # the lines span the plot area
    margin = figures.label_width(tokens)
    assert figure.layout.margin.l >= margin and figure.layout.margin.r >= margin
    assert margin >= 0.6 * 12 * len("mississippi")
    width = 940  # the chart's width in the page at 1400 px
    assert width - figure.layout.margin.l - figure.layout.margin.r >= 0.7 * width
    large = figures.head_view(matrix, tokens, scale=1.35)
    assert large.data[-1].textfont.size == round(12 * 1.35) > figure.data[-1].textfont.size
    assert large.layout.margin.l > figure.layout.margin.l  # still outside the lines
