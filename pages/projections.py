"""Projections: sentence vectors or word occurrences in 2-D/3-D with PCA, UMAP or t-SNE."""

from __future__ import annotations

import streamlit as st

import explorer
from explorer import maps as proj
from explorer.data import corpora
from explorer.figures.projections import projection_title
from explorer.maps import DEFAULT_K
from explorer.server import limits
from explorer.ui import compute, maps, mapview, messages, savedmap, sources, vectors, views
from explorer.ui.model import current_model, current_model_name
from explorer.ui.projections import fit, preservation, source_points
from explorer.ui.widgets import URL, choose, header, layers_select, pooling_select

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
COLOURS = {
    "labels": "Labels",
    "sentences": "Sentences",
    "kept": "Neighbours kept",
    "clusters": "Clusters (named)",
}


header("pages/projections.py")
notice = st.container()  # what the map shows, once it is drawn
name = current_model_name()

# -- what to project, and how ------------------------------------------------------------------
top = st.columns([2, 2, 3])
middle = st.columns(4)
bottom = st.columns(4, vertical_alignment="bottom")
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
uploaded = source and source.vectors  # precomputed vectors: no pooling, layers, other views
by_vectors = st.session_state.get("projections.source") == "vectors"  # also while awaited

# -- how to project ---------------------------------------------------------------------------
pooling, layers, compare = None, None, "none"
if not by_vectors:
    pooling = None if words else pooling_select(middle[0], "projections.pooling")
    layers = layers_select(
        middle[1],
        "projections.layers",
        explorer.LAYER_CHOICES,
        help="Which hidden layers are used, and how they are combined (after pooling each one).",
    )
    compare = choose(
        bottom[2],
        "Compare with",
        [c for c in maps.COMPARISONS if not (words and c == "poolings")],
        maps.COMPARISONS.get,
        "projections.compare",
        "none",
        "A second map of the same texts: under the same architecture with untrained weights "
        "(what training added), another layer choice, or every pooling; points selected on one "
        "map are ringed on the other.",
    )
params = maps.projection_controls("projections", middle[2:], bottom[:2])
colour = choose(
    bottom[3],
    "Colour by",
    [c for c in COLOURS if words or c != "sentences"],
    COLOURS.get,
    "projections.colour",
    "labels",
    f"Labels (or, for a word, its sentences); how well the map keeps each point's "
    f"{DEFAULT_K} nearest texts of the full space near it (red: misplaced); or k-means clusters "
    "of the full-space vectors, named by their most distinctive words.",
)
if failed is not None:
    messages.error(failed)
if by_vectors:
    messages.caption(vectors.LIMITS_NOTE, middle[0])
if source is None:
    st.stop()
try:
    points, texts, labels, legend_title, note = source_points(
        name, source, layers, pooling, word, params
    )
except ValueError as error:
    messages.error(error)
    st.stop()
if note:
    messages.info(note)

# -- vectors and the map -----------------------------------------------------------------------
spinner = (
    "Compiling UMAP (first use only, ~20 s)…"
    if params.method == "umap" and not proj.umap_compiled()
    else f"Running {proj.LABELS[params.method]}…"
)
try:
    if words:
        occurrences, _, cap_note = compute.word_layer_vectors(name, texts, word)
        if cap_note:
            messages.info(cap_note)
        point_texts = [texts[o.text_index] for o in occurrences]
        spans = [(o.char_start, o.char_end) for o in occurrences]
        point_labels = [f"Sentence {o.text_index + 1}" for o in occurrences]
        if labels is not None and colour == "labels":
            point_labels = [labels[o.text_index] for o in occurrences]
        else:
            legend_title = "Sentence"
        title = projection_title(params.method, len(occurrences), layers=layers, word=word)
    else:
        if source.kind not in ("saved", "vectors"):
            compute.embed_corpus(name, texts)
        point_texts, spans, point_labels = list(texts), None, labels
        title = (
            vectors.title(params.method, uploaded)
            if uploaded
            else projection_title(params.method, len(texts), layers=layers, pooling=pooling)
        )
    params, flat_note = limits.cap_3d(params, len(point_texts))
    if flat_note:
        messages.info(flat_note)
    if colour == "clusters":
        point_labels, cluster_ids, cluster_names = views.clusters(points, point_texts)
        legend_title = "Cluster"
    view = "map"
    if not uploaded:
        view = st.radio(
            "View",
            tuple(views.VIEWS),
            format_func=views.VIEWS.get,
            horizontal=True,
            key="projections.view",
            bind=URL,
        )
    if view == "motion":
        views.motion(points, params, point_texts, point_labels, spans, legend_title, [])
    elif view == "axes":
        ends = ("money", "river") if words else ("sports", "food")
        model = current_model()
        views.custom_axes(points, model, point_texts, point_labels, spans, legend_title, ends)
    if view != "map":
        st.stop()
    with st.spinner(spinner):
        projector = fit(points, params)
    kept_share = preservation(points, params, DEFAULT_K) if colour == "kept" else None
except ValueError as error:
    messages.warning(error)
    st.stop()
for note in projector.notes_:
    messages.info(note)

messages.info(maps.map_notice(points, params, projector, point_labels, legend_title), notice)
rows = mapview.draw(
    points,
    params,
    projector,
    mapview.MapPoints(point_texts, point_labels, spans, legend_title, title),
    compare=compare,
    kept_share=kept_share,
    density=savedmap.saved_density(points, params),
)
if colour == "clusters":
    maps.cluster_download(projector.embedding_, point_texts, cluster_ids, cluster_names)

# -- a second map of the same texts ----------------------------------------------------------
maps.second_map(
    compare, points, params, rows, point_texts, point_labels, saved=source.kind == "saved"
)

# -- show code ------------------------------------------------------------------------------------
if uploaded:
    vectors.projection_code(uploaded, source.files, params, projector)
    st.stop()
views.show_projection_code(
    source.kind,
    name,
    texts,
    params,
    projector,
    pooling,
    layers,
    word,
    occurrences if words else None,
)
