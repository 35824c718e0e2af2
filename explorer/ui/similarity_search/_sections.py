"""The Similarity & search page's sections: the sentences compared under each pooling (the
heatmaps, how far the poolings agree, the vectors to download) and the search's results. Each
renders numbers the page computed with :mod:`explorer.similarity`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from explorer.codegen.similarity import search_snippet
from explorer.data import export
from explorer.figures.similarity import agreement_figure, similarity_heatmaps
from explorer.layers import layers_label
from explorer.model.ref import ModelRef
from explorer.pooling import POOLING_LABELS
from explorer.similarity import top_k
from explorer.ui import compute, cosine_split, messages, presentation
from explorer.ui.similarity_search._store import show_results
from explorer.ui.widgets import csv_download, option_labels, vector_downloads


def comparison(
    corpus,
    matrices,
    agreement,
    sentences: Sequence[str],
    poolings,
    layers,
    labels: Mapping[str, str] = POOLING_LABELS,
) -> None:
    """The cosine ``matrices`` of ``sentences`` under each of ``poolings`` as heatmaps, the
    Spearman ``agreement`` of the poolings (two or more), and the vectors of one pooling to
    download (from ``corpus``, :class:`explorer.CorpusEmbeddings`, under ``layers``). The
    figures name the poolings by ``labels`` (:func:`explorer.pooling.pooling_labels` of the
    model: "<s> token" for a model whose first token is ``<s>``, as the notice says)."""
    st.plotly_chart(
        similarity_heatmaps(
            matrices,
            sentences,
            labels,
            title=f"Cosine similarity of every pair of sentences · {layers_label(layers)}",
            scale=presentation.scale(),
        ),
        width="stretch",
        key="similarity.heatmaps",
    )
    numbered = "\n".join(f"{i}. {messages.escape(s)}" for i, s in enumerate(sentences, start=1))
    st.caption("Sentences on the axes:\n\n" + numbered)
    if len(poolings) > 1:
        plot, note = st.columns([3, 2])
        plot.plotly_chart(
            agreement_figure(agreement, labels), width="stretch", key="similarity.rho"
        )
        note.markdown(
            "**Reading it.** ρ near 1: the two poolings put the pairs in nearly the same "
            "order, even if their similarity values differ (max pooling tends to make every "
            "pair look similar). ρ well below 1: they disagree about which sentences are "
            "close, so a search or a clustering would give different answers."
        )
    downloads = st.columns([2, 1, 1], vertical_alignment="bottom")
    download_pooling = downloads[0].selectbox(
        "Vectors to download",
        tuple(poolings),
        format_func=labels.get,
        key="similarity.download_pooling",
    )
    vectors = corpus.sentence(download_pooling, layers)
    vector_downloads(
        downloads[1:],
        vectors,
        export.vectors_frame(vectors, sentences),
        stem=f"sentences_{download_pooling}_{layers}",
        key="similarity",
    )


def results_table(
    results: pd.DataFrame, labels: Sequence[str] | None, searched: int, *, uploaded: bool
) -> None:
    """The search's ``results`` (:func:`explorer.similarity.top_k`'s columns; rows numbered from 1
    here, with each text's label from ``labels`` when the corpus has them), what was searched
    (``searched`` texts, or ``uploaded`` vectors) and the results as a CSV."""
    if labels is not None:
        results["label"] = [labels[i] for i in results["index"]]
    results["index"] = results["index"] + 1
    show_results(results)
    st.caption(
        f"{searched:,} uploaded vectors, searched as they are."
        if uploaded
        else f"{searched:,} texts embedded once and cached: a new query, pooling or k "
        "runs the model on the query only."
    )
    csv_download(st, "Results (.csv)", results, "search_results.csv", "similarity.download_results")


def search_texts(
    model_ref: ModelRef, texts: Sequence[str], query: str, choice, k: int
) -> tuple[pd.DataFrame, str]:
    """The ``k`` texts of ``texts`` closest to ``query`` under ``choice`` (an
    :class:`explorer.VectorChoice`; :func:`explorer.similarity.top_k`, the corpus embedded once
    and cached, the query alone run through the model) and the search's "Show code" snippet."""
    embedded = compute.embed_corpus(model_ref, tuple(texts))
    query_vector = compute.embed_corpus(model_ref, (query,)).sentence(choice)
    results = top_k(query_vector[0], embedded.sentence(choice), list(texts), k)
    return results, search_snippet(model_ref, list(texts), query, choice, k=k)


def why_close(
    model_ref: ModelRef,
    sentences: Sequence[str],
    poolings: Sequence[str],
    layers,
    searched: tuple | None = None,
    post: str = "none",
) -> None:
    """ "Why are these two close?" for two texts on screen: two of the ``sentences`` compared
    above, or the query and one of its results (``searched``: ``(query, pooling, result
    texts)`` when the page embedded the corpus with the model; a saved corpus adds ``(model,
    layers)``, the :class:`explorer.ui.similarity_search._store.QueryModel` it was embedded
    with and the layers searched, which a pair with the query or a result is explained with),
    under one of the page's poolings and its ``layers``. Defaults: the query and its best result,
    else the first two sentences."""
    texts = {f"s{i}": (f"Sentence {i + 1}: {s}", s) for i, s in enumerate(sentences)}
    page_poolings = list(poolings)
    search_model = search_layers = None
    if searched is not None:
        query, search_pooling, results, *stored = searched
        if stored:
            search_model, search_layers = stored
        texts["q"] = (f"Query: {query}", query)
        texts.update({f"r{i}": (f"Result {i + 1}: {t}", t) for i, t in enumerate(results)})
        page_poolings = [search_pooling, *(p for p in page_poolings if p != search_pooling)]
    if len(texts) < 2 or not page_poolings:
        return
    st.subheader("Why are these two close?")
    st.markdown(
        "Pick two texts on this page: the cosine of their vectors splits into the parts each "
        "pair of tokens gives (under the page's pooling and layers), so you can see which "
        "words make them close."
        + (
            " It explains the model's own cosines: the post-processing chosen above is not "
            "applied here."
            if post != "none"
            else ""
        )
    )
    keys = list(texts)
    defaults = ("q", "r0") if "r0" in texts else (keys[0], keys[1])
    label = option_labels((k, _short(texts[k][0], 32)) for k in keys)  # whole ones below
    row = st.columns([3, 3, 2])
    first = row[0].selectbox(
        "First text", keys, keys.index(defaults[0]), format_func=label, key="similarity.why_a"
    )
    second = row[1].selectbox(
        "Second text", keys, keys.index(defaults[1]), format_func=label, key="similarity.why_b"
    )
    from explorer.pooling import pooling_labels
    from explorer.ui.model_in_use import load

    named = pooling_labels(load(model_ref).tokenizer.cls_token)  # "<s> token" for MPNet
    pooling = row[2].selectbox(
        "Pooling",
        page_poolings,
        format_func=named.get,
        key="similarity.why_pooling",
        help="The poolings this page uses: the search's first, then those compared above.",
    )
    if search_model is not None and not (first.startswith("s") and second.startswith("s")):
        # the query or a result of a saved corpus: its vectors came from the corpus's model
        model_ref, layers = search_model.ref, search_layers
        if not search_model.current:
            messages.info(
                f"The query and the results are explained with {search_model.label}, the model "
                "this corpus was embedded with, not the model in use."
            )
    cosine_split.why_close(
        model_ref,
        texts[first][1],
        texts[second][1],
        pooling,
        layers,
        "similarity.why",
        names=(texts[first][0].split(":")[0], texts[second][0].split(":")[0]),
    )


def _short(text: str, limit: int = 90) -> str:
    """An option's label: the text, cut with an ellipsis past ``limit`` characters (the whole
    texts are shown under the choice)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
