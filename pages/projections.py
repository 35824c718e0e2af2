"""Projections: sentence vectors or word occurrences in 2-D/3-D with PCA, UMAP or t-SNE."""

from __future__ import annotations

import dataclasses

import streamlit as st

import explorer
from explorer import corpora
from explorer import projection as proj
from explorer.codegen.projections import projection_snippet, word_projection_snippet
from explorer.figures.highlights import highlight_neighbours, highlight_rows
from explorer.figures.projections import (
    axis_titles,
    projection_figure,
    projection_title,
    selected_rows,
)
from explorer.layers import layers_label
from explorer.mapquality import DEFAULT_K
from explorer.ui import compute, maps, messages, sources
from explorer.ui.model import RANDOM_PREFIX, current_model_name
from explorer.ui.projections import Points, fit, preservation, word_projection
from explorer.ui.widgets import URL, choose, header, layers_select, pooling_select, show_code

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
KEPT = "How well the map keeps each point's neighbours"


header("pages/projections.py")
name = current_model_name()

# -- what to project, and how ------------------------------------------------------------------
top = st.columns([2, 2, 3])
middle = st.columns(4)
bottom = st.columns(4, vertical_alignment="bottom")
level = top[0].radio(
    "Points", tuple(LEVELS), format_func=LEVELS.get, key="projections.level", bind=URL
)
words = level == "words"
word, pooling = None, None
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
else:
    pooling = pooling_select(middle[0], "projections.pooling")
layers = layers_select(
    middle[1],
    "projections.layers",
    explorer.LAYER_STRATEGIES,
    help="Which hidden layers are used, and how they are combined (after pooling each one).",
)
params = maps.projection_controls("projections", middle[2:], bottom[:2])
compare = choose(
    bottom[2],
    "Compare with",
    [c for c in maps.COMPARISONS if not (words and c == "poolings")],
    maps.COMPARISONS.get,
    "projections.compare",
    "none",
    "A second map of the same texts: under the same architecture with untrained weights (what "
    "training added), another layer choice, or every pooling; points selected on one map are "
    "ringed on the other.",
)
colour_kept = bottom[3].toggle(
    "Colour: neighbours kept",
    key="projections.colour_kept",
    help=f"Colour each point by the share of its {DEFAULT_K} nearest texts in the full space "
    f"that are also among its {DEFAULT_K} nearest points on the map: red points are the ones "
    "the map misplaces.",
)

# -- the texts --------------------------------------------------------------------------------
builtins = {n: sources.dataset(n) for n in corpora.DATASET_NAMES}
if words and word.lower() in corpora.SENSE_WORDS:
    builtins[SENSES] = sources.senses(word.lower())
try:
    source = sources.text_source(
        "projections",
        builtins,
        default=SENSES if words else "Topics",
        paste_default=DEFAULT_LINES,
        dataset_key="projections.word_dataset" if words else "projections.dataset",
        columns=top[1:],
        saved=not words,
    )
    if source is None:
        st.stop()
    if source.kind == "saved":
        points, texts, labels, legend_title, note = maps.saved_points(source.store, layers, pooling)
    else:
        kept = compute.cap_tokens(name, source.data)
        texts, labels, legend_title, note = (
            kept.data.texts,
            kept.data.labels,
            source.label_title,
            kept.note,
        )
        points = Points(name, texts, layers, pooling, word)
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
        with st.spinner(spinner):
            occurrences, projector, cap_note = word_projection(name, texts, word, layers, params)
        if cap_note:
            messages.info(cap_note)
        point_texts = [texts[o.text_index] for o in occurrences]
        spans = [(o.char_start, o.char_end) for o in occurrences]
        point_labels = [f"Sentence {o.text_index + 1}" for o in occurrences]
        if (
            labels is not None
            and st.radio(
                "Colour by",
                ("label", "sentence"),
                format_func=lambda v: legend_title.lower() if v == "label" else "sentence",
                horizontal=True,
                key="projections.colour_by",
            )
            == "label"
        ):
            point_labels = [labels[o.text_index] for o in occurrences]
        else:
            legend_title = "Sentence"
        title = projection_title(params.method, len(occurrences), layers=layers, word=word)
    else:
        if source.kind != "saved":
            compute.embed_corpus(name, texts)
        with st.spinner(spinner):
            projector = fit(points, params)
        point_texts, spans, point_labels = list(texts), None, labels
        title = projection_title(params.method, len(texts), layers=layers, pooling=pooling)
    kept_share = preservation(points, params, DEFAULT_K) if colour_kept else None
except ValueError as error:
    messages.warning(error)
    st.stop()
for note in projector.notes_:
    messages.info(note)

figure = projection_figure(
    projector.embedding_,
    point_texts,
    point_labels,
    spans=spans,
    title=title,
    axes=axis_titles(params.method, params.n_components, projector.explained_variance_ratio_),
    legend_title=legend_title,
    values=kept_share,
    values_title="Neighbours kept",
)
chart, panel = st.columns([3, 2]) if params.n_components == 2 else (st.container(), None)
rows = []
linked = st.session_state.get("projections.compare_map") or {}
linked = selected_rows(linked.get("selection"), len(point_texts)) if compare != "none" else []
if linked and panel is not None:
    highlight_rows(figure, projector.embedding_, linked, "Selected on the other map")
if panel is not None:
    state = st.session_state.get("projections.chart") or {}
    rows = selected_rows(state.get("selection"), len(point_texts))
    with panel:
        if rows:
            found = maps.inspector(
                points, params, rows, point_texts, point_labels, spans, DEFAULT_K
            )
            highlight_neighbours(figure, projector.embedding_, found.row, found.indices)
        else:
            st.info(
                "Click a point (or draw a box or lasso) to list its nearest texts in the full "
                "vector space."
            )
chart.plotly_chart(
    figure,
    key="projections.chart" if panel is not None else "projections.chart3d",
    on_select="rerun" if panel is not None else "ignore",
    selection_mode=("points", "box", "lasso"),
    width="stretch",
)
maps.scores(projector, len(point_texts), params.method, params.n_components)
if panel is None:
    st.caption("Clicking points and the neighbour panel work in 2-D only: switch to 2-D.")
if len(rows) > 1:
    maps.selected(rows, point_texts, point_labels, legend_title)
if colour_kept and kept_share is not None:
    st.caption(
        f"On average the map keeps {kept_share.mean():.0%} of each point's {DEFAULT_K} nearest "
        f"texts near it; {int((kept_share < 0.3).sum()):,} point(s) keep fewer than 30 %."
    )

# -- a second map of the same texts ----------------------------------------------------------
if compare == "poolings":
    maps.pooling_comparison(points, params, point_texts, point_labels)
elif compare != "none" and params.n_components == 2:
    if compare == "untrained" and source.kind == "saved":
        other = None
        messages.info(
            "A saved corpus keeps the trained model's vectors only: compare another layer "
            "choice or every pooling instead."
        )
    elif compare == "untrained":
        other = dataclasses.replace(points, model_name=RANDOM_PREFIX + name)
        titles = ("the trained model", "the same model with random weights")
    else:
        other_layers = layers_select(
            st, "projections.compare_layers", explorer.LAYER_STRATEGIES, label="Compare with layers"
        )
        other = dataclasses.replace(points, layers=other_layers)
        titles = (layers_label(layers).lower(), layers_label(other_layers).lower())
    try:
        if other is not None:
            maps.comparison(points, other, params, rows, point_texts, point_labels, titles)
    except ValueError as error:
        messages.warning(error)
elif compare != "none":
    st.caption("The second map is drawn in 2-D: switch to 2-D to compare.")

# -- show code ------------------------------------------------------------------------------------
if source.kind == "saved":
    st.caption(
        "Show code: `explorer.open_corpus(folder).sentence(pooling, layers)` gives these "
        "vectors in Python; `explorer project` saves a projection of every row."
    )
    st.stop()
used = (
    params.method,
    params.n_components,
    params.random_state,
    projector.n_neighbors_ or params.n_neighbors,
    projector.perplexity_ or params.perplexity,
)
if words:
    where = [(o.text_index, o.char_start, o.char_end) for o in occurrences]
    snippet = word_projection_snippet(name, texts, where, word, layers, *used)
else:
    snippet = projection_snippet(name, texts, pooling, layers, *used)
show_code(snippet, height=520 if len(texts) > 20 else "content")
