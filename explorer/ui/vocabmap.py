"""The Tokens page's vocabulary map: the input embedding table in 2-D (cached once per model)
and a piece's nearest pieces in that static table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer import vocabulary
from explorer.figures.vocabulary import vocabulary_figure
from explorer.ui import compute, messages
from explorer.ui.model import load


def vocabulary_section(model_name: str) -> None:
    """The map of ``model_name``'s vocabulary, coloured by kind or id, and static neighbours."""
    st.subheader("The vocabulary as a map")
    if not st.toggle("Show every piece of the vocabulary", key="tokens.vocab_map"):
        return
    model = load(model_name)
    frame = compute.cached(
        "projections",
        ("vocabulary map", model_name),
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
    try:
        near = vocabulary.static_neighbours(model, piece.strip(), 10)
    except ValueError as error:
        messages.error(error)
        return
    st.dataframe(
        pd.DataFrame(near, columns=["piece", "cosine"]),
        hide_index=True,
        key="tokens.vocab_near",
        column_config={"cosine": st.column_config.NumberColumn("cosine", format="%.3f")},
    )
    st.caption(
        "Neighbours in the static input table: before any context. The Word in context and "
        "Similarity pages show what the layers add."
    )
