"""The Compare models page's maps and search: the same texts under both models (the same
pooling and layer choice), B's map turned onto A's, each text coloured by the share of its
nearest neighbours both models agree on, the texts they disagree about most, and one query's
results under each."""

from __future__ import annotations

import streamlit as st

from explorer.codegen.compare import neighbours_snippet, search_compare_snippet
from explorer.compare import nearest_sets, neighbour_agreement, paired_maps
from explorer.data.examples import SIMILARITY_QUERY
from explorer.figures.compare_maps import (
    agreement_notice,
    disagreement_table,
    followed_text,
    paired_maps_figure,
    search_notice,
    search_table,
)
from explorer.figures.tables import text_table_html
from explorer.layers import layer_choices
from explorer.similarity import neighbors
from explorer.ui import compute, messages
from explorer.ui.compare_models._pair import Pair
from explorer.ui.compare_models._sections import capped, readings
from explorer.ui.widgets import URL, layers_select, pooling_select, show_code

MAPS_KEY = "compare.maps"
"""Key of the paired maps (their click selection lives under it)."""

K_CHOICES = (5, 10, 20)
"""Neighbours compared per text."""

SEARCH_K = 5
"""Results per model for one query."""


def _vectors(pair: Pair, texts: tuple[str, ...], pooling: str, layers: str):
    """Both models' sentence vectors of the maps' texts, the first of the page corpus
    ``texts`` (read once per model with the CKA's words, :func:`readings`)."""
    return tuple(reading.corpus.sentence(pooling, layers) for reading in readings(pair, texts))


def maps_section(pair: Pair, texts: tuple[str, ...]) -> None:
    """The linked maps, the agreement per text and the disagreement table; then one query."""
    st.subheader("Neighbours side by side", anchor=False)
    columns = st.columns(3)
    firsts = {model.tokenizer.cls_token for model in pair.models()}  # one menu, both models
    pooling = pooling_select(
        columns[0], "compare.pooling", cls_token=min(firsts) if len(firsts) == 1 else None
    )
    depth = min(model.num_layers for model in pair.models())  # choices both models have
    layers = layers_select(columns[1], "compare.layers", layer_choices(depth))
    k = columns[2].selectbox(
        "Neighbours per text",
        K_CHOICES,
        index=1,
        key="compare.k",
        bind=URL,
        help="How many nearest texts (cosine, in the full space) each model gives each text.",
    )
    corpus = texts
    texts, note = capped(pair, corpus)
    if note:
        messages.info(note)
    try:
        vectors_a, vectors_b = _vectors(pair, corpus, pooling, layers)
        agreement = neighbour_agreement(vectors_a, vectors_b, k)
    except ValueError as error:
        messages.error(error)
        return
    map_a, map_b = paired_maps(vectors_a, vectors_b)
    near_a, near_b = nearest_sets(vectors_a, k), nearest_sets(vectors_b, k)
    messages.info(agreement_notice(agreement, k))
    selection = (st.session_state.get(MAPS_KEY) or {}).get("selection")
    followed, clicked = followed_text(selection, agreement)
    figure = paired_maps_figure(
        map_a,
        map_b,
        agreement,
        texts,
        pair.a.label,
        pair.b.label,
        k,
        followed,
        (near_a[followed], near_b[followed]),
    )
    st.plotly_chart(
        figure, width="stretch", key=MAPS_KEY, on_select="rerun", selection_mode="points"
    )
    messages.markdown(
        "**Followed** ({how}): “{text}”, {share} of its {k} neighbours shared. Its nearest "
        "texts under each model (✓: under both):",
        how="clicked" if clicked else "the text the models disagree about most; click another",
        text=texts[followed],
        share=f"{agreement[followed]:.0%}",
        k=k,
    )
    st.html(
        text_table_html(
            search_table(texts, near_a[followed], near_b[followed]),
            "compare.followed",
            text_columns=("model A", "model B"),
        )
    )
    st.caption(
        f"{len(texts):,} texts, a PCA map of each model's vectors; B's map is turned (and "
        "mirrored if need be) onto A's by orthogonal Procrustes, so a text the two models "
        "place alike sits in the same spot in both. Colour: the share of the text's "
        f"{k} nearest neighbours in the full space (not on the map) that both models agree on."
    )
    st.markdown("**The texts the two models disagree about most**")
    table = disagreement_table(texts, agreement, near_a, near_b)
    columns = ("text", "nearest under A", "nearest under B")
    st.html(text_table_html(table, "compare.disagree", text_columns=columns))
    show_code(
        neighbours_snippet(
            pair.a.ref,
            pair.b.ref,
            list(texts),
            pooling,
            layers,
            k,
        ),
        caption="Plain transformers + NumPy: both models' sentence vectors, then each text's "
        "nearest neighbours under each and the share they have in common.",
    )
    _search(pair, texts, (vectors_a, vectors_b), pooling, layers)


def _search(pair: Pair, texts: tuple[str, ...], vectors, pooling: str, layers: str) -> None:
    """One query against the same texts under both models: both top lists and their overlap."""
    st.subheader("Search side by side", anchor=False)
    query = st.text_input(
        "Query",
        SIMILARITY_QUERY,
        key="compare.query",
        bind=URL,
        help="Searched in the texts above.",
    )
    try:
        found = [
            neighbors(
                vectors[i],
                compute.embed_corpus(side.ref, (query,)).sentence(pooling, layers)[0],
                SEARCH_K,
            ).indices.tolist()
            for i, side in enumerate((pair.a, pair.b))
        ]
    except ValueError as error:
        messages.error(error)
        return
    messages.info(search_notice(*found))
    table = search_table(texts, *found)
    st.html(text_table_html(table, "compare.search", text_columns=("model A", "model B")))
    show_code(
        search_compare_snippet(
            pair.a.ref,
            pair.b.ref,
            list(texts),
            query,
            pooling,
            layers,
            SEARCH_K,
        ),
        caption="Plain transformers + NumPy: the query's top results under each model.",
    )
