"""Figures of the Similarity page: readable cell numbers."""

from __future__ import annotations

import numpy as np

from explorer.figures.similarity import cell_font, similarity_heatmaps


def test_cell_numbers_are_large_enough_for_a_projector():
    assert cell_font(6, 1) == 22 and cell_font(6, 4) >= 16 and cell_font(100, 4) == 11
    figure = similarity_heatmaps({"mean": np.eye(4)}, ["a", "b", "c", "d"])
    assert figure.data[0].textfont.size >= 20 and figure.data[0].texttemplate == "%{z:.2f}"
