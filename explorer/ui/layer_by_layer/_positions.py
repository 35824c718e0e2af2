"""The Layers page's "Where is a token?" section: the model's absolute position table in 2-D
and the cosine of every position with every other (Wang and Chen 2020), or what a model
without a table uses instead."""

from __future__ import annotations

import streamlit as st

from explorer.codegen.positions import positions_snippet
from explorer.figures.positions import position_figure, position_notice
from explorer.model.ref import ModelRef
from explorer.positions import position_cosines, position_map, position_table
from explorer.ui import compute, messages
from explorer.ui.model_in_use import load
from explorer.ui.widgets import show_code

CODE_CAPTION = (
    "Plain transformers + NumPy: the model's position table, its first two principal "
    "components and the cosine of every position with every other, printing the numbers of "
    "the sentence above."
)


def positions_section(model_ref: ModelRef) -> None:
    """An expander with the position table of ``model_ref`` (cached per model)."""

    def compute_view():
        positions = position_table(load(model_ref))
        if positions.table is None:
            return positions, None, None
        return positions, position_map(positions.table), position_cosines(positions.table)

    with st.expander("Where is a token? The position embeddings"):
        positions, coords, cosines = compute.cached(
            "states", ("positions", model_ref), compute_view
        )
        if positions.table is None:
            messages.info(f"This model has {positions.note}.")
            show_code(positions_snippet(model_ref, positions.note), caption=CODE_CAPTION)
            return
        messages.info(position_notice(cosines, positions.first))
        st.plotly_chart(
            position_figure(coords, cosines, positions.first),
            width="stretch",
            key="layers.positions",
        )
        st.caption(
            f"Row p of a {len(positions.table)} x {positions.table.shape[1]} table is added to "
            "the token at position p before the first layer. Wang and Chen (2020), “What Do "
            "Position Embeddings Learn?”, found BERT's learned table to be a smooth curve in "
            "few dimensions, neighbouring positions alike: the 2-D view joins the positions in "
            "order, coloured from dark purple (the first) to yellow (the last); the heatmap "
            "compares every position with every other."
            + (f" {positions.note}." if positions.note else "")
        )
        show_code(positions_snippet(model_ref, positions.note), caption=CODE_CAPTION)
