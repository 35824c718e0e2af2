"""Figures of the "Word in context" page: pure functions from arrays to plotly figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from explorer.figures.context import (
    BASELINE_NAME,
    layer_similarity_chart,
    sense_gap_chart,
    similarity_heatmap,
)

MATRIX = np.array([[1.0, 0.9, 0.5], [0.9, 1.0, 0.6], [0.5, 0.6, 1.0]])
LABELS = ["#1 the bank vault", "#2 river bank.", "#3 a bank."]
HOVER = ["#1 bank (s1: …the bank vault…)", "#2 bank (s1: …river bank.)", "#3 bank (s2: …)"]


def test_heatmap_has_title_axes_values_and_hover():
    figure = similarity_heatmap(MATRIX, LABELS, HOVER, title="Cosine similarity: last layer")
    assert isinstance(figure, go.Figure)
    assert figure.layout.title.text == "Cosine similarity: last layer"
    assert figure.layout.xaxis.title.text == "Occurrence"
    assert figure.layout.yaxis.title.text == "Occurrence"
    assert figure.layout.yaxis.autorange == "reversed"  # #1 on top, like a matrix
    (trace,) = figure.data
    np.testing.assert_allclose(np.array(trace.z), MATRIX)
    assert list(trace.x) == LABELS and list(trace.y) == LABELS
    assert trace.texttemplate == "%{z:.2f}"
    assert "customdata[0]" in trace.hovertemplate and "%{z:.3f}" in trace.hovertemplate
    assert trace.customdata[0][2][1] == HOVER[2]
    assert trace.colorbar.title.text == "cosine"


def test_heatmap_colour_range_spans_off_diagonal_values_unless_fixed():
    trace = similarity_heatmap(MATRIX, LABELS).data[0]
    assert (trace.zmin, trace.zmax) == (0.5, 1.0)
    fixed = similarity_heatmap(MATRIX, LABELS, color_range=(-1.0, 1.0)).data[0]
    assert (fixed.zmin, fixed.zmax) == (-1.0, 1.0)


def test_heatmap_escapes_html_in_labels():
    figure = similarity_heatmap(MATRIX, ["<b>x</b>", "b", "c"], ["<img src=x>", "b", "c"])
    trace = figure.data[0]
    assert trace.x[0] == "&lt;b&gt;x&lt;/b&gt;"
    assert trace.customdata[0][0][0] == "&lt;img src=x&gt;"


def test_heatmap_rejects_mismatched_labels():
    with pytest.raises(ValueError, match="does not match"):
        similarity_heatmap(MATRIX, LABELS[:2])
    with pytest.raises(ValueError, match="hover labels"):
        similarity_heatmap(MATRIX, LABELS, HOVER[:1])


def test_changing_the_matrix_changes_the_heatmap():
    other = similarity_heatmap(MATRIX * 0.5 + 0.5, LABELS).data[0].z
    assert not np.allclose(np.array(other), np.array(similarity_heatmap(MATRIX, LABELS).data[0].z))


def test_layer_chart_has_one_line_per_pair_and_a_dashed_baseline():
    sims = np.linspace(0.2, 0.9, 7 * 3).reshape(7, 3)
    baseline = np.linspace(0.1, 0.3, 7)
    pairs = ["#1 vs #2", "#1 vs #3", "#2 vs #3"]
    members = [(HOVER[0], HOVER[1]), (HOVER[0], HOVER[2]), (HOVER[1], HOVER[2])]
    figure = layer_similarity_chart(sims, pairs, baseline, members, title="By layer")
    assert figure.layout.title.text == "By layer"
    assert figure.layout.xaxis.title.text.startswith("Layer")
    assert figure.layout.yaxis.title.text == "Cosine similarity"
    assert figure.layout.legend.title.text == "Pair"
    assert [t.name for t in figure.data] == [*pairs, BASELINE_NAME]
    for p, trace in enumerate(figure.data[:3]):
        assert list(trace.x) == list(range(7))
        np.testing.assert_allclose(trace.y, sims[:, p])
        assert "customdata[0]" in trace.hovertemplate and "%{y:.3f}" in trace.hovertemplate
        assert pairs[p] in trace.hovertemplate
        assert tuple(trace.customdata[0]) == members[p]
    line = figure.data[-1]
    assert line.line.dash == "dash"
    np.testing.assert_allclose(line.y, baseline)
    assert "random token pairs" in line.hovertemplate


def test_layer_chart_without_baseline_and_bad_shapes():
    sims = np.zeros((4, 2))
    figure = layer_similarity_chart(sims, ["#1 vs #2", "#1 vs #3"])
    assert len(figure.data) == 2
    with pytest.raises(ValueError, match="do not match"):
        layer_similarity_chart(sims, ["#1 vs #2"])
    with pytest.raises(ValueError, match="Baseline"):
        layer_similarity_chart(sims, ["a", "b"], baseline=np.zeros(3))
    with pytest.raises(ValueError, match="hover entries"):
        layer_similarity_chart(sims, ["a", "b"], pair_hover=[("x", "y")])


def _gap_table(layers: int = 4) -> pd.DataFrame:
    same = np.linspace(0.95, 0.8, layers)
    different = np.linspace(0.96, 0.6, layers)
    table = pd.DataFrame({"same sense": same, "different senses": different})
    table["gap"] = table["same sense"] - table["different senses"]
    return table.rename_axis("layer")


def test_sense_gap_chart_shades_the_gap_between_two_lines():
    table = _gap_table()
    figure = sense_gap_chart(table, baseline=np.full(4, 0.3), word="<b>bank</b>")
    different, same, baseline = figure.data
    np.testing.assert_allclose(same.y, table["same sense"])
    np.testing.assert_allclose(different.y, table["different senses"])
    assert same.fill == "tonexty" and different.fill is None
    assert baseline.name == BASELINE_NAME and baseline.line.dash == "dash"
    assert "<b>" not in same.name and "&lt;b&gt;bank" in same.name
    assert figure.layout.xaxis.title.text.startswith("Layer")
    assert figure.layout.yaxis.title.text == "Mean cosine similarity"
    assert figure.layout.annotations[0].text == f"gap {table['gap'].iloc[-1]:+.2f}"


def test_sense_gap_chart_checks_its_inputs():
    with pytest.raises(ValueError, match="lacks the columns"):
        sense_gap_chart(_gap_table().drop(columns="gap"))
    with pytest.raises(ValueError, match="Baseline"):
        sense_gap_chart(_gap_table(), baseline=np.zeros(3))


def test_pairs_from_one_sentence_are_dotted_and_named():
    figure = layer_similarity_chart(
        np.zeros((3, 2)), ["#1 vs #2", "#1 vs #3"], kinds=["same sentence", "unlabelled"]
    )
    assert figure.data[0].name == "#1 vs #2 (same sentence)" and figure.data[0].line.dash == "dot"
    assert figure.data[1].name == "#1 vs #3" and figure.data[1].line.dash == "solid"
    with pytest.raises(ValueError, match="kinds"):
        layer_similarity_chart(np.zeros((3, 2)), ["a", "b"], kinds=["same sense"])


def test_the_gap_label_sits_in_the_margin_beside_the_lines():
    # drawn at the last layer inside the plot, "gap +0.10" sat on the lines running into it
    from explorer.figures.context import GAP_LABEL_MARGIN

    table = pd.DataFrame(
        {"same sense": [0.9, 0.8, 0.7], "different senses": [0.9, 0.75, 0.6]},
        index=pd.RangeIndex(3, name="layer"),
    )
    table["gap"] = table["same sense"] - table["different senses"]
    figure = sense_gap_chart(table, word="bank")
    label = figure.layout.annotations[0]
    assert (label.xref, label.x, label.xanchor) == ("paper", 1, "left")
    assert label.y == pytest.approx(0.65)
    assert figure.layout.margin.r == GAP_LABEL_MARGIN >= 0.62 * label.font.size * len(label.text)


def test_scale_enlarges_the_numbers_in_the_cells():
    matrix = np.eye(3) * 0.5 + 0.5
    plain = similarity_heatmap(matrix, ["a", "b", "c"])
    large = similarity_heatmap(matrix, ["a", "b", "c"], scale=1.35)
    assert large.data[0].textfont.size == round(plain.data[0].textfont.size * 1.35)
    assert large.layout.height > plain.layout.height


def test_many_pairs_grow_the_pair_chart_instead_of_squeezing_its_plot():
    """12 occurrences are 66 pairs: their legend (two entries a row under the plot) used to
    take more than the chart's fixed 520 px, squeezing the plot and scrolling the legend."""
    from explorer.context import pair_labels

    heights = {}
    for occurrences in (2, 6, 12):
        labels = pair_labels(occurrences)
        sims = np.full((7, len(labels)), 0.5)
        figure = layer_similarity_chart(sims, labels, baseline=np.zeros(7))
        legend_px = 21 * -(-len(figure.data) // 2)
        heights[occurrences] = figure.layout.height
        assert figure.layout.height - legend_px >= 340, (occurrences, figure.layout.height)
        # and the legend shows every row instead of scrolling (plotly's default: half the height)
        room = figure.layout.legend.maxheight or 0.5
        assert (room if room > 1 else room * figure.layout.height) >= legend_px, occurrences
    assert heights[2] == heights[6] == 520  # the page's example keeps its size
    # Presentation mode's larger text (1.35x): rows that much taller, and room for all of them
    labels = pair_labels(6)
    big = layer_similarity_chart(np.full((7, 15), 0.5), labels, baseline=np.zeros(7), scale=1.35)
    assert big.layout.legend.maxheight >= 1.35 * 21 * 8
