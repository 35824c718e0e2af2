"""The Word in context page's sections: the occurrences found, same sense against different
senses, the pair charts and the table of every pair under every layer strategy. Each renders
numbers the page computed with :mod:`explorer.context`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from explorer import context
from explorer.figures.context import layer_similarity_chart, sense_gap_chart, similarity_heatmap
from explorer.layers import layers_label
from explorer.ui import messages, presentation


def occurrence_list(word: str, occurrences, sentences: Sequence[str], senses) -> None:
    """A heading with how many times ``word`` occurs, then each occurrence in its sentence
    (the word marked, its sense when the sentence has one)."""
    st.subheader(
        f"{len(occurrences)} occurrence{'' if len(occurrences) == 1 else 's'} of "
        f"“{messages.escape(word.strip())}”",
        anchor=False,
    )
    st.markdown(
        "\n".join(
            f"- **#{i + 1}** {'' if s is None else f'_{messages.escape(s)}_ · '}"
            f"{context.highlight_html(sentences[o.text_index], o.char_start, o.char_end)} "
            f"<small>(sentence {o.text_index + 1})</small>"
            for i, o in enumerate(occurrences)
            for s in [senses[o.text_index]]
        ),
        unsafe_allow_html=True,
    )


def sense_gap(by_layer: np.ndarray, kinds: Sequence[str], baseline, word: str, note: str) -> None:
    """Same sense against different senses at every layer (:func:`explorer.context.sense_gap`
    of the pairs' cosines ``by_layer``), or why it cannot be drawn; ``note`` ends the title."""
    try:
        gap = context.sense_gap(by_layer, kinds)
    except ValueError as error:
        messages.info(error)
        return
    st.plotly_chart(
        sense_gap_chart(gap, baseline, word, title=f"Same sense vs different senses{note}"),
        width="stretch",
        key="context.gap",
    )
    left_out = kinds.count("same sentence") + kinds.count("unlabelled")
    st.caption(context.gap_caption(gap, left_out))


def pair_charts(
    matrix: np.ndarray,
    by_layer: np.ndarray,
    baseline,
    occurrences,
    sentences: Sequence[str],
    senses,
    strategy,
    kinds: Sequence[str],
    tokens: int,
    note: str,
) -> None:
    """The cosine heatmap of the occurrences under ``strategy`` beside every pair's cosine
    layer by layer (``by_layer``, against the ``baseline`` of unrelated pairs of the ``tokens``
    tokens); ``note`` ends the titles."""
    labels = context.occurrence_labels(occurrences, sentences, senses=senses)
    heatmap_column, chart_column = st.columns(2)
    with heatmap_column:
        st.plotly_chart(
            similarity_heatmap(
                matrix,
                context.short_labels(occurrences, sentences, senses),
                labels,
                title=f"Cosine similarity: {layers_label(strategy).lower()}{note}",
                scale=presentation.scale(),
            ),
            width="stretch",
            key="context.heatmap",
        )
    with chart_column:
        st.plotly_chart(
            layer_similarity_chart(
                by_layer,
                context.pair_labels(len(occurrences)),
                baseline,
                context.pair_members(labels),
                title=f"Similarity of each pair, layer by layer{note}",
                kinds=kinds,
                scale=presentation.scale(),
            ),
            width="stretch",
            key="context.by_layer",
        )
    st.caption(
        f"Heatmap colours span the values shown: read the numbers. The dashed line is the mean "
        f"cosine of {context.describe_baseline_pairs(tokens)} of tokens of these "
        "sentences (special tokens left out): what two unrelated tokens score at that layer. A "
        "pair is only telling by how far it sits above that line."
        + (
            " Dotted lines are pairs from one sentence: they score high whatever the senses, "
            "because both occurrences see the same words around them and attention mixes those "
            "same words into both vectors."
            if "same sentence" in kinds
            else ""
        )
    )


def pairs_table(per_layer: np.ndarray, strategies: Sequence, means, kinds: Sequence[str]) -> None:
    """Every pair's cosine under every layer strategy (:func:`explorer.context.layers_table`),
    with the kind of each pair."""
    st.subheader("Every pair under every layer strategy", anchor=False)
    table = context.layers_table(per_layer, strategies, means)
    table.insert(0, "Kind", kinds)
    presentation.table(
        table,
        width="stretch",
        height="content" if len(table) <= 60 else "auto",  # every pair, no inner scroll
        column_config={
            layers_label(s): st.column_config.NumberColumn(
                layers_label(s, short=True), help=layers_label(s), format="%.3f"
            )
            for s in strategies
        },
    )
