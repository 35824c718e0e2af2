"""Figures of the Similarity page: readable cell numbers."""

from __future__ import annotations

import numpy as np

from explorer.figures.similarity import cell_font, cell_text, similarity_heatmaps


def test_cell_numbers_are_large_enough_for_a_projector():
    assert cell_font(6, 1) == 22 and cell_font(6, 4) >= 15 and cell_font(100, 4) == 10
    figure = similarity_heatmaps({"mean": np.eye(4)}, ["a", "b", "c", "d"])
    assert figure.data[0].textfont.size == 22 and figure.data[0].texttemplate == "%{text}"
    assert list(figure.data[0].text[0]) == ["1", ".00", ".00", ".00"]


def test_cell_text_drops_the_leading_zero():
    assert [cell_text(v) for v in (0.814, -0.02, 1.0, -0.5)] == [".81", "-.02", "1", "-.50"]
    # all-mpnet-base-v2's mean pooling gave -0.002 for two sentences: "-.00" read as a sign
    assert [cell_text(v) for v in (-0.004, 0.004, -0.0)] == [".00", ".00", ".00"]


def test_scale_enlarges_the_cell_numbers_and_the_figure() -> None:
    from explorer.figures.similarity import cell_font, similarity_heatmaps

    matrix = np.eye(4) * 0.5 + 0.5
    plain = similarity_heatmaps({"mean": matrix, "cls": matrix}, list("abcd"))
    large = similarity_heatmaps({"mean": matrix, "cls": matrix}, list("abcd"), scale=1.35)
    assert large.data[0].textfont.size > plain.data[0].textfont.size
    assert large.layout.height > plain.layout.height and large.layout.font.size > 14
    assert cell_font(4, 2, 1.35) >= 1.3 * cell_font(4, 2)


def test_four_heatmaps_leave_no_empty_band_above_them() -> None:
    # On a projector four square heatmaps about 215 px wide sat in a 621 px high figure,
    # under a 200 px empty band. The figure's height is now what a square heatmap needs on a
    # chart about 1,000 px wide (scale times that in presentation mode), and what is left
    # over goes below the heatmaps.
    from explorer.figures.similarity import BESIDE, CHART_WIDTH

    matrices = {name: np.eye(6) for name in ("cls", "mean", "max", "mean+max")}
    for scale in (1.0, 1.35):
        figure = similarity_heatmaps(matrices, list("abcdef"), scale=scale)
        layout = figure.layout
        start, end = layout.xaxis.domain
        wide = (end - start) * (CHART_WIDTH - BESIDE) * scale  # one heatmap's width
        high = layout.height - layout.margin.t - layout.margin.b - 60 * scale  # its room
        assert wide <= high + 1 and high - wide <= 0.1 * wide, (scale, wide, high)
        assert all(
            layout[f"yaxis{i if i > 1 else ''}"].constraintoward == "top" for i in (1, 2, 3, 4)
        )
        assert figure.data[0].textfont.size >= 15 * scale  # the numbers stay legible


def test_a_models_own_first_token_names_the_pooling_as_text_not_a_tag() -> None:
    # Plotly reads "<s>" as a strikethrough tag: "<s> token" drew a struck-out " token".
    import pandas as pd

    from explorer.figures.similarity import agreement_figure
    from explorer.pooling import pooling_labels

    labels = pooling_labels("<s>")
    matrix = np.eye(4) * 0.5 + 0.5
    heatmaps = similarity_heatmaps({"cls": matrix, "mean": matrix}, list("abcd"), labels)
    titles = [a.text for a in heatmaps.layout.annotations]
    assert titles == ["&lt;s&gt; token", "Mean of tokens"]
    assert "<s>" not in heatmaps.data[0].hovertemplate and "<s>" not in heatmaps.data[0].name
    rho = pd.DataFrame(np.eye(2), index=["cls", "mean"], columns=["cls", "mean"])
    assert list(agreement_figure(rho, labels).data[0].x) == ["&lt;s&gt; token", "Mean of tokens"]
