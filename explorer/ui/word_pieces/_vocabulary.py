"""The Tokens page's vocabulary map: the input embedding table in 2-D (cached once per model)
and a piece's nearest pieces in that static table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import vocabulary
from explorer.codegen.vocabulary import vocabulary_snippet
from explorer.figures.vocabulary import vocabulary_figure, vocabulary_notice
from explorer.model.ref import ModelRef
from explorer.ui import compute, messages, presentation
from explorer.ui.model_in_use import load
from explorer.ui.widgets import show_code


def vocabulary_section(model_ref: ModelRef, text: str) -> None:
    """The map of ``model_ref``'s vocabulary, coloured by kind or id, and a piece's static
    neighbours beside its contextual ones in the page's ``text``."""
    st.subheader("The vocabulary as a map")
    if not st.toggle("Show every piece of the vocabulary", key="tokens.vocab_map"):
        return
    model = load(model_ref)
    frame = compute.cached(
        "projections",
        ("vocabulary map", model_ref),
        lambda: vocabulary.vocabulary_map(model),
        "Projecting the vocabulary…",
    )
    colour = st.radio("Colour by", ["kind", "id"], horizontal=True, key="tokens.vocab_colour")
    st.plotly_chart(vocabulary_figure(frame, colour), key="tokens.vocab", width="stretch")
    counts = frame["kind"].value_counts()
    st.caption(
        f"{len(frame):,} pieces: "
        + ", ".join(f"{counts.get(k, 0):,} {k}" for k in vocabulary.KINDS)
        + ". In WordPiece vocabularies a lower id roughly means a more frequent piece."
    )
    piece = st.text_input("Nearest pieces of", "bank", key="tokens.vocab_piece")
    piece = piece.strip()
    try:
        near = vocabulary.static_neighbours(model, piece, 10)
    except ValueError as error:
        messages.info(vocabulary_notice(frame))
        messages.error(error)
        return
    try:
        context = vocabulary.contextual_neighbours(model, text, piece, 10)
    except ValueError as error:
        context, missing = None, error
    messages.info(vocabulary_notice(frame, piece, near, context))
    left, right = st.columns(2)
    left.caption("Nearest pieces in the static input table: before any context.")
    presentation.table(
        pd.DataFrame(near, columns=["piece", "cosine"]),
        container=left,
        hide_index=True,
        key="tokens.vocab_near",
        column_config={"cosine": st.column_config.NumberColumn("cosine", format="%.3f")},
    )
    if context is None:
        messages.info(missing, right)
    else:
        right.caption(
            "Nearest tokens of the text above at the last layer (contextual), with the cosine of "
            "the same two pieces in the static table: what context adds."
        )
        presentation.table(
            context,
            container=right,
            hide_index=True,
            key="tokens.vocab_context",
            column_config={
                c: st.column_config.NumberColumn(c, format="%.3f") for c in ("contextual", "static")
            },
        )
    show_code(
        vocabulary_snippet(model_ref, text, piece),
        caption="The input embedding table, its PCA, the kinds of pieces and the nearest "
        "pieces: the numbers of the sentence above.",
        label="Show code (the vocabulary map)",
    )
