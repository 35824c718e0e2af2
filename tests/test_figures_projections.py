"""Projection figures: safe hover text, legends, axis titles, the pooling grid, selection."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from explorer.figures.frozen import FrozenFigure
from explorer.figures.projections import (
    axis_titles,
    hover_text,
    pooling_grid,
    projection_figure,
    projection_title,
    selected_rows,
)

TEXTS = [
    "The bank raised its rates.",
    "We sat on the river bank.",
    "Soup & bread <script>alert(1)</script>",
    "Rain again.",
]


def test_hover_bolds_the_span_and_escapes_html():
    text = "A <b>bold</b> bank & more"
    start = text.index("bank")
    hover = hover_text(text, (start, start + 4))
    assert hover == "A &lt;b&gt;bold&lt;/b&gt; <b>bank</b> &amp; more"


def test_hover_escapes_script_tags():
    hover = hover_text(TEXTS[2])
    assert "<script>" not in hover
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in hover


def test_hover_wraps_long_text_between_words():
    text = " ".join(f"word{i:02d}" for i in range(40))  # 279 characters
    hover = hover_text(text, width=60)
    lines = hover.split("<br>")
    assert len(lines) >= 4
    assert all(len(line) <= 60 for line in lines)
    assert " ".join(lines) == text


def test_hover_bold_survives_wrapping_and_clipping():
    text = "x " * 300 + "the bank here " + "y " * 300
    start = text.index("bank")
    hover = hover_text(text, (start, start + 4), max_chars=200)
    assert "<b>bank</b>" in hover
    assert hover.startswith("…") and hover.endswith("…")
    assert len(hover.replace("<br>", "")) < 230


def test_axis_titles():
    assert axis_titles("pca", 2, [0.231, 0.1]) == ["PC1 (23.1 %)", "PC2 (10.0 %)"]
    assert axis_titles("pca", 3) == ["PC1", "PC2", "PC3"]
    assert axis_titles("umap", 3) == ["UMAP 1", "UMAP 2", "UMAP 3"]
    assert axis_titles("tsne", 2) == ["t-SNE 1", "t-SNE 2"]
    with pytest.raises(ValueError, match="Unknown projection"):
        axis_titles("lda")


def test_title_names_method_pooling_and_strategy():
    title = projection_title("umap", 240, layers="sum_last4", pooling="mean")
    assert "UMAP of 240 sentence vectors" in title
    assert "Mean of tokens" in title and "Sum of last four layers" in title
    title = projection_title("tsne", 28, layers="last", word="bank")
    assert "t-SNE of 28 occurrences of “bank”" in title and "Last layer" in title


def test_figure_has_one_trace_per_label_with_row_indices():
    coords = np.arange(8, dtype=np.float32).reshape(4, 2)
    labels = ["finance", "river", "food", "weather"][:2] * 2
    figure = projection_figure(
        coords, TEXTS, labels, title="T", axes=["PC1 (50.0 %)", "PC2 (20.0 %)"]
    )
    assert [t.name for t in figure.data] == ["finance", "river"]
    assert all(isinstance(t, go.Scatter) and t.showlegend for t in figure.data)
    assert list(figure.data[0].customdata) == [0, 2]
    assert list(figure.data[1].customdata) == [1, 3]
    assert list(figure.data[1].x) == [2.0, 6.0]
    assert figure.layout.xaxis.title.text == "PC1 (50.0 %)"
    assert figure.layout.yaxis.title.text == "PC2 (20.0 %)"
    assert figure.layout.legend.title.text == "Label"
    assert figure.data[0].marker.color != figure.data[1].marker.color
    assert "&lt;script&gt;" in figure.data[0].text[1]
    assert figure.data[0].hovertemplate.startswith("<i>%{fullData.name}</i><br>%{text}")


def test_figure_highlights_the_word_in_hover():
    spans = [(4, 8), (20, 24), None, None]
    figure = projection_figure(np.zeros((4, 2)) + np.arange(4)[:, None], TEXTS, spans=spans)
    hovers = figure.data[0].text
    assert hovers[0] == "The <b>bank</b> raised its rates."
    assert hovers[1] == "We sat on the river <b>bank</b>."


def test_unlabelled_points_share_one_colour_without_legend():
    figure = projection_figure(np.random.default_rng(0).normal(size=(4, 2)), TEXTS)
    assert len(figure.data) == 1 and figure.data[0].showlegend is False
    assert figure.data[0].hovertemplate == "%{text}<extra></extra>"


def test_3d_figure_uses_scene_axes():
    figure = projection_figure(
        np.random.default_rng(0).normal(size=(4, 3)),
        TEXTS,
        ["a", "b", "a", "b"],
        axes=axis_titles("umap", 3),
    )
    assert all(isinstance(t, go.Scatter3d) for t in figure.data)
    assert figure.layout.scene.zaxis.title.text == "UMAP 3"


def test_figure_checks_sizes():
    with pytest.raises(ValueError, match="4 points but 3 texts"):
        projection_figure(np.zeros((4, 2)), TEXTS[:3])
    with pytest.raises(ValueError, match="4 points but 2 labels"):
        projection_figure(np.zeros((4, 2)), TEXTS, ["a", "b"])
    with pytest.raises(ValueError, match="2 or 3 coordinates"):
        projection_figure(np.zeros((4, 4)), TEXTS)


def test_pooling_grid_is_2x2_with_trustworthiness_in_subtitles():
    rng = np.random.default_rng(0)
    poolings = ("cls", "mean", "max", "mean_max")
    coords = {p: rng.normal(size=(4, 2)) for p in poolings}
    trust = {"cls": 0.81, "mean": 0.9, "max": 0.75, "mean_max": None}
    figure = pooling_grid(coords, trust, TEXTS, ["x", "y", "x", "y"], method="pca", title="G")
    subtitles = [a.text for a in figure.layout.annotations]
    assert subtitles == [
        "[CLS] token · trustworthiness 0.81",
        "Mean of tokens · trustworthiness 0.90",
        "Max over tokens · trustworthiness 0.75",
        "Mean + max (concatenated)",
    ]
    assert len(figure.data) == 8  # 2 labels x 4 subplots
    assert [t.name for t in figure.data if t.showlegend] == ["x", "y"]
    assert {t.xaxis for t in figure.data} == {"x", "x2", "x3", "x4"}
    colours = {(t.name, t.marker.color) for t in figure.data}
    assert len(colours) == 2  # one colour per label in every subplot
    with pytest.raises(ValueError, match=r"Expected \(4, 2\)"):
        pooling_grid({"cls": np.zeros((3, 2))}, {}, TEXTS, method="pca")


def test_the_pooling_titles_and_notice_name_the_models_first_token():
    """A model whose first token is <s> (MPNet, RoBERTa): its pooling named so, escaped (plotly
    reads <s> as a strike-through tag)."""
    from explorer.figures.projections import pooling_grid_notice, projection_title

    title = projection_title("pca", 4, layers="last", pooling="cls", cls_token="<s>")
    assert "&lt;s&gt; token · " in title and "[CLS]" not in title
    coords = {p: np.random.default_rng(0).normal(size=(4, 2)) for p in ("cls", "mean")}
    trust = {"cls": 0.95, "mean": 0.7}
    grid = pooling_grid(coords, trust, TEXTS, method="pca", cls_token="<s>")
    assert grid.layout.annotations[0].text == "&lt;s&gt; token · trustworthiness 0.95"
    assert pooling_grid_notice(trust, "<s>").startswith("The <s> token map keeps the most")
    notice = pooling_grid_notice({"mean": 0.9, "mean_max": 0.7})
    assert "The mean of tokens map keeps" in notice  # a menu label inside a sentence
    assert "the mean + max (concatenated) map the least" in notice


def test_selected_rows_reads_customdata():
    selection = {
        "points": [
            {"curve_number": 1, "point_index": 0, "customdata": 3},
            {"curve_number": 0, "point_index": 0, "customdata": [1]},
            {"curve_number": 0, "point_index": 1, "customdata": 3},
            {"curve_number": 0, "point_index": 2, "customdata": 99},  # stale
            {"curve_number": 0, "point_index": 3},
        ],
        "point_indices": [0, 1, 2],
    }
    assert selected_rows(selection, 4) == [1, 3]
    assert selected_rows({"points": []}, 4) == []
    assert selected_rows(None, 4) == []


def test_large_maps_draw_with_webgl_and_small_ones_with_svg():
    from explorer.figures.projections import WEBGL_ABOVE, projection_figure

    rng = np.random.default_rng(0)
    big = rng.normal(size=(WEBGL_ABOVE + 1, 2))
    labels = ["a", "b"] * ((WEBGL_ABOVE + 1) // 2) + ["a"]
    figure = projection_figure(big, ["t"] * len(big), labels)
    assert {trace.type for trace in figure.data} == {"scattergl"}
    small = projection_figure(big[:10], ["t"] * 10, labels[:10])
    assert {trace.type for trace in small.data} == {"scatter"}
    # smaller markers on the WebGL map, in either colouring
    shares = projection_figure(big, ["t"] * len(big), labels, values=np.full(len(big), 0.5))
    assert {t.marker.size for t in (*figure.data, *shares.data)} == {6}
    assert {trace.marker.size for trace in small.data} == {9}


def test_a_frozen_figure_serialises_like_the_figure_and_is_never_copied():
    import plotly.io

    coords = np.arange(8, dtype=np.float32).reshape(4, 2)
    figure = projection_figure(coords, TEXTS, ["a", "b", "a", "b"], title="T")
    frozen = FrozenFigure.of(figure)
    assert frozen.to_dict() is frozen.to_dict()  # no deep copy per call
    assert plotly.io.to_json(frozen, validate=False) == plotly.io.to_json(figure, validate=False)
    extra = frozen.with_traces([go.Scatter(x=[0.0], y=[1.0], name="mark")])
    assert (frozen.n_traces, extra.n_traces) == (2, 3)
    assert extra.to_dict()["data"][:2] == frozen.to_dict()["data"]  # shared, not rebuilt
    assert extra.to_dict()["data"][2]["name"] == "mark"
    assert extra.to_dict()["layout"] is frozen.to_dict()["layout"]
    tall = frozen.with_layout(height=860)
    assert tall.to_dict()["layout"]["height"] == 860 != frozen.to_dict()["layout"]["height"]
    assert tall.to_dict()["layout"]["title"] == frozen.to_dict()["layout"]["title"]
    assert tall.to_dict()["data"][0] is frozen.to_dict()["data"][0]
    with pytest.raises(ValueError, match="figure dictionary"):
        FrozenFigure({"layout": {}})


def test_named_clusters_are_listed_in_the_order_of_their_numbers() -> None:
    # k-means numbers clusters by size, not by where their first point is: the legend read
    # 2, 1, 4, 3 in first-appearance order
    labels = ["2: river · bank", "1: goal · match", "noise", "4: bread · oven", "3: rain · wind"]
    labels += ["10: tax · loan"]
    coords = np.random.default_rng(0).normal(size=(6, 2))
    figure = projection_figure(coords, ["t"] * 6, labels)
    names = [trace.name for trace in figure.data if trace.showlegend is not False]
    assert [name.split(":")[0] for name in names] == ["1", "2", "3", "4", "10", "noise"]
    topics = ["sports", "food", "sports", "weather", "food", "sports"]
    figure = projection_figure(coords, ["t"] * 6, topics)
    assert [trace.name for trace in figure.data] == ["sports", "food", "weather"]
