"""Projections: sentence vectors or word occurrences in 2-D/3-D with PCA, UMAP or t-SNE."""

from __future__ import annotations

import streamlit as st

from explorer.data import corpora
from explorer.maps import DEFAULT_K
from explorer.ui import messages, presentation, projection_maps, sources
from explorer.ui.model_in_use import current_model
from explorer.ui.widgets import URL, choose, header

SENSES = "Word senses (all words)"
DEFAULT_WORD = "bank"
DEFAULT_LINES = (
    "The bank raised its interest rates again.\n"
    "She opened a savings account at the bank.\n"
    "We had a picnic on the grassy bank of the river.\n"
    "The canoe drifted slowly towards the muddy bank.\n"
    "The striker scored twice in the second half.\n"
    "Our team lost the final on penalties.\n"
    "This soup needs more salt and pepper.\n"
    "Fresh bread from the oven smells wonderful."
)
LEVELS = {
    "sentences": "Sentences: one point per text",
    "words": "Words: one point per occurrence of a word",
}


header("pages/projections.py")
notice = st.container()  # what the map shows, once it is drawn
model = current_model()

# -- what to project, and how ------------------------------------------------------------------
settings = presentation.controls("projections.settings")
top = settings.columns([2, 2, 3])
middle = settings.columns(4)
bottom = settings.columns(4, vertical_alignment="bottom")
level = top[0].radio(
    "Points", tuple(LEVELS), format_func=LEVELS.get, key="projections.level", bind=URL
)
words = level == "words"
word = None
if words:
    word = (
        middle[0]
        .text_input(
            "Word",
            DEFAULT_WORD,
            key="projections.word",
            bind=URL,
            help="Every occurrence is a point.",
        )
        .strip()
    )

# -- the texts --------------------------------------------------------------------------------
builtins = {n: sources.dataset(n) for n in corpora.DATASET_NAMES}
if words and word.lower() in corpora.SENSE_WORDS:
    builtins[SENSES] = sources.senses(word.lower())
failed = None
try:
    source = sources.text_source(
        "projections",
        builtins,
        default=SENSES if words else "Topics",
        paste_default=DEFAULT_LINES,
        dataset_key="projections.word_dataset" if words else "projections.dataset",
        columns=top[1:],
        saved=not words,
        vectors=not words,
    )
except ValueError as error:
    source, failed = None, error

# -- how to project ---------------------------------------------------------------------------
choice, compare = projection_maps.embedding_controls(
    middle,
    bottom,
    words=words,
    uploaded=source is not None and source.uploaded_vectors,
    cls_token=projection_maps.menu_first_token(source, model),
)
params = projection_maps.projection_controls("projections", middle[2:], bottom[:2])
colours = projection_maps.colour_choices(source, words=words)
colour = choose(
    bottom[3],
    "Colour by",
    colours,
    colours.get,
    "projections.colour",
    "labels",
    f"Labels (or, for a word, its sentences); how well the map keeps each point's "
    f"{DEFAULT_K} nearest texts of the full space near it (red: misplaced); k-means clusters "
    "of the full-space vectors, named by their most distinctive words; or any column of the "
    "data (numbers on a colour scale, anything else with a legend).",
)
if failed is not None:
    messages.error(failed)
if source is None or not source.ready:
    st.stop()
try:
    points, texts, labels, legend_title, note = projection_maps.source_points(
        model.ref, source, choice, word, params
    )
except ValueError as error:
    messages.error(error)
    st.stop()
if note:
    messages.info(note)

# -- vectors and the map -----------------------------------------------------------------------
try:
    shown, params, clusters = projection_maps.shown_points(
        source, points, texts, labels, legend_title, params, colour
    )
    uploaded = source.vectors is not None
    if projection_maps.other_view(
        points,
        params,
        shown,
        model,
        uploaded=uploaded,
        clusters=bool(clusters),
        where=settings if presentation.is_on() else st,
    ):
        st.stop()
    projector = projection_maps.fitted(points, params)
    kept_share = (
        projection_maps.preservation(points, params, DEFAULT_K) if colour == "kept" else None
    )
except ValueError as error:
    messages.warning(error)
    st.stop()
projection_maps.map_section(
    source,
    points,
    params,
    projector,
    shown,
    compare=compare,
    clusters=clusters,
    kept_share=kept_share,
    notice=notice,
    controls=settings if presentation.is_on() else None,
)
