"""The Layers page's "Layers compared" section: layer x layer linear CKA over the tokens of the
text on screen, and beside it the same model with random weights (what training changed).

The trained model's matrix comes from the hidden states the page already holds (no forward
pass); the random-weights baseline is built only when asked for
(:func:`explorer.ui.model_in_use.load` of :meth:`ModelRef.random_twin`), and a server that cannot
keep a second copy of the weights says so instead."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from explorer.codegen.explain import cka_snippet
from explorer.explain import cka_matrix
from explorer.figures.explain import cka_heatmaps
from explorer.figures.explain_notices import cka_notice
from explorer.model.ref import ModelRef
from explorer.ui import compute, messages

TRAINED, RANDOM = "trained", "random weights"
"""Titles of the two heatmaps."""


def content_states(hidden: np.ndarray, special: Sequence[bool]) -> np.ndarray:
    """``hidden`` ``(L + 1, T, H)`` without its special tokens: ``(L + 1, words' tokens, H)``,
    the tokens :func:`explorer.explain.layer_cka` compares ([CLS] and [SEP] stand for the
    sequence and sit far from the words in several layers)."""
    return hidden[:, ~np.asarray(special, dtype=bool)]


def cka_section(
    model_ref: ModelRef, text: str, hidden: np.ndarray, special: Sequence[bool], names: str = ""
) -> str:
    """The section for ``text`` (``hidden`` its states, ``special`` its special-token mask,
    ``names`` those tokens as the model writes them: ``"[CLS], [SEP]"``, ``"<s>, </s>"``);
    returns its Show-code snippet for the page's "Show code"."""
    names = names or "the special tokens"
    st.subheader("Layers compared: where does the representation change most?", anchor=False)
    states = content_states(hidden, special)
    if states.shape[1] < 2:
        messages.info(f"Comparing layers needs at least 2 tokens besides {names}.")
        return cka_snippet(model_ref, [text])
    baseline = st.toggle(
        "Beside the same model with random weights",
        key="layers.cka_random",
        bind="query-params",
        help="The same architecture and tokenizer with untrained weights: its layers show what "
        "the architecture alone does to the tokens, so the difference is what training did. "
        "It is built when you ask (a second copy of the model's weights).",
    )
    matrices = {TRAINED: cka_matrix(states)}
    if baseline:
        try:
            random = compute.hidden_states(model_ref.random_twin(), text)
            matrices[RANDOM] = cka_matrix(content_states(random, special))
        except ValueError as error:
            messages.warning(error)
    messages.info(cka_notice(matrices[TRAINED], matrices.get(RANDOM)))
    st.plotly_chart(cka_heatmaps(matrices), width="stretch", key="layers.cka")
    st.caption(
        f"Linear CKA (Kornblith et al. 2019) of every layer with every other, over the "
        f"{states.shape[1]} tokens of the text ({names} left out); layer 0 is the "
        "embedding output. 1: the two layers hold the same picture of the tokens up to a "
        "rotation and scale; lower: the layer in between re-arranged them. With few tokens "
        "CKA runs high: add sentences to the text for a sharper picture."
    )
    return cka_snippet(model_ref, [text])
