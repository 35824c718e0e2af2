"""The Compare models page's curves: both models' sense gap, self-similarity, anisotropy
baseline and probe accuracy over relative depth (:func:`explorer.compare.depth_curves`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.codegen.compare import depth_curves_snippet
from explorer.compare import MEASURES, curve_inputs, depth_curves, depth_notice
from explorer.data import corpora
from explorer.figures.compare_curves import depth_curves_figure
from explorer.server import limits
from explorer.ui import compute, messages
from explorer.ui.compare_models._pair import Pair
from explorer.ui.progress import progress_bar
from explorer.ui.widgets import show_code


def _inputs(pair: Pair) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """The sense sentences and topic texts the curves read, within their share of the pair's
    budget (:func:`explorer.compare.curve_inputs`), and the texts there were in all."""
    senses, topics = corpora.load_senses(), corpora.load_topics()
    kept = curve_inputs(*pair.models(), senses, topics, limits.pair_tokens(*pair.models()))
    return *kept, len(senses) + len(topics)


def curves_section(pair: Pair) -> None:
    """Both models' measures over relative depth, what to notice, and the code."""
    st.subheader("Curves on one axis", anchor=False)

    def inputs() -> tuple[pd.DataFrame, pd.DataFrame, int]:
        return _inputs(pair)

    senses, topics, total = compute.cached(
        "states", ("curves inputs", pair.a.ref, pair.b.ref), inputs
    )
    if len(senses) + len(topics) < total:
        messages.info(
            f"Measured on {len(senses):,} sense sentences and {len(topics):,} topic texts of "
            f"the {total:,} built-in ones (taken in turn from every word's sense and every "
            "topic): one comparison reads a capped number of tokens through each model."
        )

    def compute_curves() -> pd.DataFrame:
        model_a, model_b = pair.models()
        with progress_bar("Measuring both models layer by layer…") as report:
            return depth_curves(
                model_a,
                model_b,
                senses.reset_index(drop=True),
                topics["text"].tolist(),
                topics["topic"].tolist(),
                progress=report,
            )

    key = ("depth curves", pair.a.ref, pair.b.ref, len(senses), len(topics))
    try:
        curves = compute.cached("states", key, compute_curves, heavy=True)
    except ValueError as error:
        messages.error(error)
        return
    messages.info(depth_notice(curves, pair.a.label, pair.b.label))
    chance = float(topics["topic"].value_counts(normalize=True).max())
    st.plotly_chart(
        depth_curves_figure(curves, MEASURES, pair.a.label, pair.b.label, chance),
        width="stretch",
        key="compare.curves",
    )
    messages.caption(
        "Each model's layers placed on one axis of relative depth (layer / number of layers: 0 "
        "is the embedding output, 100% the last layer); A solid, B dashed. Sense gap: the mean "
        "cosine of a word's same-sense pairs minus its different-sense pairs (Word in context), "
        "all words' pairs pooled. Self-similarity and the anisotropy baseline (How contextual?): "
        "a word's vectors across sentences, and random tokens of different sentences. Probe "
        "accuracy: a cross-validated linear probe of the topic (Which layer?), mean pooling; "
        f"dotted grey, {chance:.2f}: always guessing the most common of the "
        f"{len(topics):,} texts' topics. A probe at or below that line found no topic in the "
        "vectors."
    )
    show_code(
        depth_curves_snippet(
            pair.a.ref,
            pair.b.ref,
            len(senses),
            len(topics),
        ),
        caption="The library: both models' curves, then where each measure peaks.",
    )
