"""Projections: sentence vectors or word occurrences in 2-D/3-D with PCA, UMAP or t-SNE."""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

import explorer
from explorer import corpora, uploads
from explorer import projection as proj
from explorer.codegen.projections import projection_snippet, word_projection_snippet
from explorer.figures.projections import (
    axis_titles,
    pooling_grid,
    projection_figure,
    projection_title,
    selected_rows,
)
from explorer.layers import layers_label
from explorer.pooling import LABELS as POOLING_LABELS
from explorer.projection import ProjectionParams
from explorer.ui import compute, messages
from explorer.ui.model import current_model_name
from explorer.ui.navigation import leave_legacy_pages_mode
from explorer.ui.projections import sentence_projection, word_projection
from explorer.ui.widgets import URL, Builtin, show_code, text_source

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
TRUST_HELP = (
    "scikit-learn's trustworthiness: 1.0 means every point's nearest neighbours in the "
    "picture are also near it in the original vector space; lower values mean the picture "
    "puts some far-apart texts side by side."
)


def _dataset(name: str) -> Builtin:
    def load() -> uploads.LabelledTexts:
        frame = corpora.load_dataset(name)
        return uploads.from_lists(frame["text"].tolist(), frame["label"].tolist())

    return Builtin(corpora.DATASETS[name], load)


def _senses(word: str) -> Builtin:
    def load() -> uploads.LabelledTexts:
        senses = corpora.load_senses(word)
        return uploads.from_lists(senses["text"].tolist(), senses["sense"].tolist())

    return Builtin(f"Sentences using '{word}', labelled by its sense.", load)


def _snippet_args(params: ProjectionParams) -> tuple:
    return (
        params.method,
        params.n_components,
        params.random_state,
        params.n_neighbors,
        params.perplexity,
    )


leave_legacy_pages_mode()

st.title("Projections")
st.markdown(
    "A sentence vector has hundreds of numbers. **PCA**, **UMAP** and **t-SNE** squeeze them "
    "into two or three so you can see which texts the model places close together. Colours "
    "are the texts' labels: when they form separate clusters, the vectors encode the label. "
    "PCA keeps the directions of largest spread (distances are faithful but crowded); UMAP "
    "and t-SNE keep each point's neighbours (clusters are clear, distances between them "
    "mean little)."
)

name = current_model_name()

# -- what to project ----------------------------------------------------------------------
top = st.columns([2, 2, 3])
middle = st.columns(4)
level = top[0].radio(
    "Points", tuple(LEVELS), format_func=LEVELS.get, key="projections.level", bind=URL
)
words = level == "words"
# -- how texts become vectors ---------------------------------------------------------------
if words:
    word = (
        middle[0]
        .text_input(
            "Word",
            DEFAULT_WORD,
            key="projections.word",
            bind=URL,
            help="Every occurrence becomes a point.",
        )
        .strip()
    )
    pooling = None
else:
    pooling = middle[0].selectbox(
        "Pooling",
        explorer.POOLINGS,
        index=explorer.POOLINGS.index("mean"),
        format_func=POOLING_LABELS.get,
        key="projections.pooling",
        bind=URL,
        help="How the token vectors of a text become one vector: the [CLS] token, the mean "
        "or the maximum over the tokens (padding excluded), or mean and max side by side.",
    )
layers = middle[1].selectbox(
    "Layer strategy",
    explorer.LAYER_STRATEGIES,
    index=explorer.LAYER_STRATEGIES.index("last"),
    format_func=layers_label,
    key="projections.layers",
    bind=URL,
    help="Which hidden layers are used, and how they are combined (after pooling each one).",
)
method = middle[2].radio(
    "Method",
    proj.PROJECTIONS,
    format_func=proj.LABELS.get,
    horizontal=True,
    key="projections.method",
    bind=URL,
)
dims = middle[3].radio(
    "Dimensions",
    proj.DIMENSIONS,
    format_func=lambda k: f"{k}-D",
    horizontal=True,
    key="projections.dims",
    bind=URL,
)

bottom = st.columns(4, vertical_alignment="bottom")
n_neighbors, perplexity, seed = 15, 30.0, 0
if method == "umap":
    n_neighbors = bottom[0].slider(
        "Neighbours (UMAP)",
        2,
        100,
        15,
        key="projections.n_neighbors",
        help="How many neighbours shape each point's surroundings: small values show fine "
        "local structure, large values the global shape.",
    )
elif method == "tsne":
    perplexity = float(
        bottom[0].slider(
            "Perplexity (t-SNE)",
            2,
            100,
            30,
            key="projections.perplexity",
            help="Roughly the number of neighbours each point pays attention to.",
        )
    )
if method == "umap":
    seed = int(
        bottom[1].number_input(
            "Random seed",
            0,
            9999,
            0,
            key="projections.seed",
            help="UMAP is random: another seed gives another (equally valid) picture, and a "
            "fixed seed makes it reproducible. (t-SNE starts from the PCA layout here, so it "
            "needs no seed.)",
        )
    )
compare = bottom[2].toggle(
    "Compare pooling strategies",
    key="projections.compare",
    disabled=words,
    help="One small 2-D projection per pooling (same texts, layers and method), with the "
    "trustworthiness of each.",
)

# -- the texts ------------------------------------------------------------------------------
builtins = {n: _dataset(n) for n in corpora.DATASET_NAMES}
if words and word.lower() in corpora.SENSE_WORDS:
    builtins[SENSES] = _senses(word.lower())
try:
    source = text_source(
        "projections",
        builtins,
        default=SENSES if words else "Topics",
        paste_default=DEFAULT_LINES,
        dataset_key="projections.word_dataset" if words else "projections.dataset",
        columns=top[1:],
    )
except ValueError as error:
    messages.error(error)
    st.stop()
if source is None:
    st.stop()
data, legend_title = source.data, source.label_title
kept = compute.cap_tokens(name, data)
if kept.note:
    messages.info(kept.note)
texts, labels = kept.data.texts, kept.data.labels

# -- vectors and projection ------------------------------------------------------------------
params = ProjectionParams(method, dims, seed, n_neighbors, perplexity)
spinner = (
    "Compiling UMAP (first use only, ~20 s)…"
    if method == "umap" and not proj.umap_compiled()
    else f"Running {proj.LABELS[method]}…"
)
try:
    if words:
        with st.spinner(spinner):
            occurrences, projector, cap_note = word_projection(name, texts, word, layers, params)
        if cap_note:
            messages.info(cap_note)
        point_texts = [texts[o.text_index] for o in occurrences]
        spans = [(o.char_start, o.char_end) for o in occurrences]
        colour_by = "label"
        if labels is not None:
            colour_by = st.radio(
                "Colour by",
                ("label", "sentence"),
                format_func=lambda v: legend_title.lower() if v == "label" else "sentence",
                horizontal=True,
                key="projections.colour_by",
            )
        if labels is not None and colour_by == "label":
            point_labels = [labels[o.text_index] for o in occurrences]
        else:
            point_labels = [f"Sentence {o.text_index + 1}" for o in occurrences]
            legend_title = "Sentence"
        title = projection_title(method, len(occurrences), layers=layers, word=word)
    else:
        compute.embed_corpus(name, texts)
        with st.spinner(spinner):
            projector = sentence_projection(name, texts, pooling, layers, params)
        point_texts, spans, point_labels = list(texts), None, labels
        title = projection_title(method, len(texts), layers=layers, pooling=pooling)
except ValueError as error:
    messages.warning(error)
    st.stop()

for note in projector.notes_:
    messages.info(note)

# -- the picture ----------------------------------------------------------------------------
figure = projection_figure(
    projector.embedding_,
    point_texts,
    point_labels,
    spans=spans,
    title=title,
    axes=axis_titles(method, dims, projector.explained_variance_ratio_),
    legend_title=legend_title,
)
if dims == 2:
    event = st.plotly_chart(
        figure,
        key="projections.chart",
        on_select="rerun",
        selection_mode=("box", "lasso", "points"),
        width="stretch",
    )
else:
    event = None
    st.plotly_chart(figure, key="projections.chart3d", width="stretch")

scores = st.columns(4)
scores[0].metric("Points", f"{len(point_texts):,}")
if projector.trustworthiness_ is not None:
    sample = projector.trustworthiness_sample_
    estimated = sample < len(point_texts)
    scores[1].metric(
        f"Trustworthiness ({projector.trustworthiness_neighbors_} "
        f"neighbour{'s' if projector.trustworthiness_neighbors_ > 1 else ''}"
        f"{', estimated' if estimated else ''})",
        f"{projector.trustworthiness_:.3f}",
        help=TRUST_HELP
        + (
            f" Estimated from {sample:,} random points of {len(point_texts):,}, each "
            "ranked against all of them (within about 0.005 of the exact value)."
            if estimated
            else ""
        ),
    )
total = proj.total_explained_variance(projector.explained_variance_ratio_)
if total is not None:
    scores[2].metric("Variance explained", f"{100 * total:.1f} %")
caption = (
    "**Trustworthiness** asks whether neighbours in the picture are neighbours in the "
    "original space (1.0 = always). "
)
if total is not None:
    caption += (
        f"The {dims} principal components together explain **{100 * total:.1f} %** of the "
        "variance of the vectors; the rest is invisible in this picture."
    )
else:
    caption += (
        f"In a {proj.LABELS[method]} picture, which points are neighbours matters; the sizes "
        "of clusters and the distances between them do not."
    )
st.caption(caption)

# -- selection ------------------------------------------------------------------------------
if event is None:
    st.caption("Box and lasso selection work in 2-D only: switch to 2-D to list texts.")
else:
    rows = selected_rows(event.selection, len(point_texts))
    if rows:
        chosen = {"text": [point_texts[i] for i in rows]}
        if point_labels is not None:
            chosen[legend_title.lower()] = [point_labels[i] for i in rows]
        st.markdown(f"**{len(rows)} selected point(s)**")
        st.dataframe(pd.DataFrame(chosen, index=rows), width="stretch")
    else:
        st.caption("Select points with the box or lasso tool to list their texts.")

# -- compare poolings -------------------------------------------------------------------------
if compare and not words:
    try:
        with st.spinner(f"Running {proj.LABELS[method]} for each pooling…"):
            fitted = {
                p: sentence_projection(
                    name, texts, p, layers, dataclasses.replace(params, n_components=2)
                )
                for p in explorer.POOLINGS
            }
    except ValueError as error:
        messages.warning(error)
    else:
        st.plotly_chart(
            pooling_grid(
                {p: f.embedding_ for p, f in fitted.items()},
                {p: f.trustworthiness_ for p, f in fitted.items()},
                point_texts,
                point_labels,
                method=method,
                title=f"{proj.LABELS[method]} of the same texts under each pooling · "
                f"{layers_label(layers)}",
                axes={
                    p: axis_titles(method, 2, f.explained_variance_ratio_)
                    for p, f in fitted.items()
                },
            ),
            key="projections.compare_chart",
            width="stretch",
        )
        if dims == 3:
            st.caption("The comparison is always 2-D.")

# -- show code ------------------------------------------------------------------------------
fitted_params = dataclasses.replace(
    params,
    n_neighbors=projector.n_neighbors_ or n_neighbors,
    perplexity=projector.perplexity_ or perplexity,
)
if words:
    spans = [(o.text_index, o.char_start, o.char_end) for o in occurrences]
    snippet = word_projection_snippet(
        name, texts, spans, word, layers, *_snippet_args(fitted_params)
    )
else:
    snippet = projection_snippet(name, texts, pooling, layers, *_snippet_args(fitted_params))
show_code(snippet, height=520 if len(texts) > 20 else "content")
