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

from explorer.choice import VectorChoice
from explorer.codegen.similarity import similarity_snippet
from explorer.data import corpora
from explorer.embeddings import CorpusEmbeddings
from explorer.explain import LABELS, postprocess, rogue_sentence, rogue_share
from explorer.model.ref import ModelRef
from explorer.pooling import POOLING_LABELS
from explorer.similarity import cosine_similarity, similarity_matrices
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
    choices: Sequence[VectorChoice],
    labels: dict[str, str] = POOLING_LABELS,
) -> tuple[dict[str, np.ndarray], str | None]:
    """The cosine matrices of ``corpus`` under each of ``choices`` (one per pooling, sharing
    layers and post-processing) after their post-processing
    (:func:`explorer.similarity.similarity_matrices` when ``none``), and what the top rogue
    dimensions carried of the first choice's cosines before and after (``None`` for none),
    the pooling named by ``labels`` (:func:`explorer.pooling.pooling_labels` of the model)."""
    matrices = similarity_matrices(corpus, choices)  # refuses no choice at all
    first = choices[0]
    if first.post == "none":
        return matrices, None
    reference = compute.embed_corpus(model_ref, reference_texts())
    processed = {
        c.pooling: postprocess(corpus.sentence(c), c.post, reference.sentence(c)) for c in choices
    }
    matrices = {
        p: np.asarray(cosine_similarity(vectors), np.float64) for p, vectors in processed.items()
    }
    before = rogue_share(corpus.sentence(first))
    after = rogue_share(processed[first.pooling], dimensions=before.dimensions)
    what = LABELS[first.post].split(" (")[0]
    lead = (
        f"{what}, with the statistics of {len(reference_texts())} built-in remarks; of the "
        f"cosines between these sentences under {labels[first.pooling]}"
    )
    return matrices, rogue_sentence(before, after, first.post, lead)


def snippet(model_ref: ModelRef, sentences: Sequence[str], choices: Sequence[VectorChoice]) -> str:
    """The comparison's "Show code": :func:`explorer.codegen.similarity.similarity_snippet`,
    post-processing with the same reference texts when the choices' post-processing is not
    none."""
    reference = reference_texts() if choices and choices[0].post != "none" else ()
    return similarity_snippet(model_ref, sentences, choices, reference=reference)
