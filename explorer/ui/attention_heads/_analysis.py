"""Cached computations of the Attention page: one input's attentions with everything derived
from them, and the masked-LM lens (its model loaded once per server)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from explorer import attention
from explorer.model import Tokenization
from explorer.model.ref import ModelRef
from explorer.server import limits
from explorer.server.memo import Memo
from explorer.ui.compute import POOL, asker, fit_pool
from explorer.ui.model_in_use import load, settings

MB = 1024 * 1024

MEMO = Memo(max_bytes=256 * MB, max_entries=16, pool=POOL)
"""Analyses of recent inputs (512 tokens on a 12 x 12 model: about 160 MB; every model's
analysis fits, :data:`explorer.server.limits.MAX_ATTENTION_VALUES`)."""


@dataclass(frozen=True)
class Analysis:
    """One input on the Attention page: ``tokenization``, ``attentions`` ``(layers, heads,
    tokens, tokens)``, ``stats`` (:func:`explorer.attention._weights.head_statistics`), ``rollout``
    ``(layers, tokens, tokens)``, ``norms`` ``(layers, heads, tokens)`` (``None`` with a
    ``norms_note`` when the model's layout is unknown). Arrays are read-only."""

    tokenization: Tokenization
    attentions: np.ndarray
    stats: pd.DataFrame
    rollout: np.ndarray
    norms: np.ndarray | None
    norms_note: str | None


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def analysis(model_ref: ModelRef, text: str, pair: str | None = None) -> Analysis:
    """Attentions of ``text`` (and ``pair``) and what the page derives from them, cached;
    the input is cut at :func:`explorer.server.limits.attention_tokens` tokens."""

    def compute() -> Analysis:
        model = load(model_ref)
        result = attention.attention_pass(model, text, pair, limits.attention_tokens(model))
        tokens = result.tokenization.tokens
        cls = model.tokenizer.cls_token or "[CLS]"
        sep = model.tokenizer.sep_token or "[SEP]"
        stats = attention.head_statistics(result.attentions, tokens, cls, sep)
        try:
            norms, note = _read_only(attention.value_norms(model, result.hidden_states)), None
        except ValueError as error:
            norms, note = None, str(error)
        return Analysis(
            result.tokenization,
            _read_only(result.attentions),
            stats,
            _read_only(attention.rollout(result.attentions)),
            norms,
            note,
        )

    key = (model_ref, text, pair)
    if key in MEMO:
        return MEMO.get(key, compute)
    fit_pool()
    with st.spinner("Running the model with attention weights…"):
        return MEMO.get(key, compute, False, *asker())  # one input: light


def masked_lm(model_ref: ModelRef) -> attention.MaskedLM:
    """The current model with its masked-LM head (the loaded model's own: no second copy of
    the weights); ``ValueError`` (with what to do) when it has none or carries random
    weights."""
    if model_ref.random:
        raise ValueError(
            "This model has random weights: its guesses for [MASK] would mean nothing. "
            "Choose a trained model with a masked-language-model head."
        )
    return attention.masked_lm_of(load(model_ref), model_ref.label(settings().label_of))


def layer_predictions(model_ref: ModelRef, text: str, k: int = 10) -> attention.Lens:
    """Cached :func:`explorer.attention._lens.layer_predictions` for the current model (the
    first :data:`explorer.server.limits.MAX_LENS_MASKS` masks), computed in a turn of the
    server's pool like every forward pass: eight sessions asking the lens of a BERT-base-sized
    model at once, each a 512-token pass with every hidden state, took the server past 2 GB
    when they all ran together
    (``python -m bench.soak --sessions 8 --pages attention --model FOLDER``)."""

    def compute() -> attention.Lens:
        return attention.layer_predictions(masked_lm(model_ref), text, k, limits.MAX_LENS_MASKS)

    key = ("lens", model_ref, text, k)
    if key in MEMO:
        return MEMO.get(key, compute)
    fit_pool()
    with st.spinner("Asking every layer for the masked word…"):
        return MEMO.get(key, compute, False, *asker())  # one input: light
