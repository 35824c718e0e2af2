"""Similarity & search: the sentences compared after a post-processing of their vectors
(cosines without rogue dimensions), with the built-in remarks as the reference whose
statistics it uses.

A reference of the sentences on screen would be 3 to 60 vectors: a standard deviation of
three values per dimension, and too few for all-but-the-top to remove its directions; 60
built-in remarks (every fourth of the 240, four topics in two moods) give steady statistics
and are embedded once per server."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from explorer import similarity as search
from explorer.codegen.similarity import similarity_snippet
from explorer.data import corpora
from explorer.embeddings import CorpusEmbeddings
from explorer.explain import LABELS, postprocess, rogue_sentence, rogue_share
from explorer.model.ref import ModelRef
from explorer.pooling import LABELS as POOLING_LABELS
from explorer.ui import compute
from explorer.ui.widgets import postprocess_select

REFERENCE_STEP = 4
"""Every fourth built-in remark is in the reference (60 of 240)."""


@st.cache_data(show_spinner=False)
def reference_texts() -> tuple[str, ...]:
    """The texts whose vectors give the post-processing its statistics."""
    return tuple(corpora.load_topics()["text"][::REFERENCE_STEP])


def post_select(container) -> str:
    """The "Post-processing" choice for the sentences compared (default none)."""
    return postprocess_select(
        container,
        "similarity.post",
        help="Applied to the sentence vectors before their cosines (the comparison above, not "
        f"the search), with the statistics of {len(reference_texts())} built-in remarks under "
        "the same pooling and layers: a few rogue dimensions with huge values dominate raw "
        "cosines (Timkey and van Schijndel 2021).",
    )


def cosines(
    model_ref: ModelRef,
    corpus: CorpusEmbeddings,
    poolings: Sequence[str],
    layers,
    post: str,
    labels: dict[str, str] = POOLING_LABELS,
) -> tuple[dict[str, np.ndarray], str | None]:
    """The cosine matrices of ``corpus`` under each of ``poolings`` after ``post``
    (:func:`explorer.similarity.similarity_matrices` when ``none``), and what the top rogue
    dimensions carried of the first pooling's cosines before and after (``None`` for none),
    the pooling named by ``labels`` (:func:`explorer.pooling.pooling_labels` of the model)."""
    matrices = search.similarity_matrices(corpus, poolings, layers)  # validates the choice
    if post == "none":
        return matrices, None
    reference = compute.embed_corpus(model_ref, reference_texts())
    processed = {
        p: postprocess(corpus.sentence(p, layers), post, reference.sentence(p, layers))
        for p in poolings
    }
    matrices = {
        p: np.asarray(search.cosine_similarity(vectors), np.float64)
        for p, vectors in processed.items()
    }
    first = next(iter(poolings))
    before = rogue_share(corpus.sentence(first, layers))
    after = rogue_share(processed[first], dimensions=before.dimensions)
    what = LABELS[post].split(" (")[0]
    lead = (
        f"{what}, with the statistics of {len(reference_texts())} built-in remarks; of the "
        f"cosines between these sentences under {labels[first]}"
    )
    return matrices, rogue_sentence(before, after, post, lead)


def snippet(model_ref: ModelRef, sentences: Sequence[str], poolings, layers, post: str) -> str:
    """The comparison's "Show code": :func:`explorer.codegen.similarity.similarity_snippet`,
    post-processing with the same reference texts when ``post`` is not none."""
    reference = reference_texts() if post != "none" else ()
    return similarity_snippet(model_ref.snippet, sentences, poolings, layers, post, reference)
