"""Attention weights of one input, from transformers' eager attention path.

The fast attention kernels (SDPA) the model loads with return no weights. The weights come from
a second copy of the encoder that shares every parameter tensor (no extra weight memory) and
runs eager attention, made on first use, so embedding passes keep the fast kernels. What the
weights say (head statistics, rollout, norm-weighted attention) is :mod:`explorer.attention`'s.
"""

from __future__ import annotations

import copy
import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from explorer.model.tokenization import Tokenization

if TYPE_CHECKING:
    from explorer.model.encoder import Model

_EAGER: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_EAGER_LOCK = threading.Lock()


@dataclass(frozen=True)
class AttentionPass:
    """One input's attention: ``attentions`` ``(layers, heads, tokens, tokens)`` float32 (row
    ``i`` of a head: how query token ``i`` spreads its attention over the tokens; rows sum to
    1), ``hidden_states`` ``(layers + 1, tokens, hidden)`` float32 (index 0 = embedding output)
    and the ``tokenization`` (truncated to the model's ``max_length``: see its ``truncated``)."""

    tokenization: Tokenization
    attentions: np.ndarray
    hidden_states: np.ndarray


def eager_encoder(model: Model) -> torch.nn.Module:
    """The model's encoder on the eager attention path, sharing its parameter tensors.

    Made once per model (a deep copy of the modules with the parameters and buffers kept as
    they are, then ``set_attn_implementation("eager")`` on the copy's own configuration); the
    model's own encoder keeps its fast attention.
    """
    with _EAGER_LOCK:
        eager = _EAGER.get(model)
        if eager is None:
            encoder = model.encoder
            if encoder.config._attn_implementation == "eager":
                eager = encoder
            else:
                shared = list(encoder.parameters()) + list(encoder.buffers())
                eager = copy.deepcopy(encoder, {id(tensor): tensor for tensor in shared})
                eager.set_attn_implementation("eager")
            _EAGER[model] = eager.eval()
        return eager


def attention_pass(
    model: Model, text: str, pair: str | None = None, max_tokens: int | None = None
) -> AttentionPass:
    """Run ``text`` (and the optional second segment ``pair``) on the eager path.

    The tokens are those of ``model.tokenize(text, pair, max_tokens)``: longer input than
    ``max_tokens`` (default ``model.max_length``) is truncated and ``tokenization.truncated``
    says so. Raises ``ValueError`` for empty text (from :meth:`Model.tokenize`).
    """
    tokenization = model.tokenize(text, pair, max_tokens)
    inputs = {
        "input_ids": torch.tensor([tokenization.ids]),
        "attention_mask": torch.tensor([tokenization.attention_mask]),
    }
    if "token_type_ids" in model.tokenizer.model_input_names:
        inputs["token_type_ids"] = torch.tensor([tokenization.segment_ids])
    encoder = eager_encoder(model)
    with torch.inference_mode():
        output = encoder(**inputs, output_attentions=True, output_hidden_states=True)
    if not output.attentions or output.attentions[0] is None:
        raise ValueError(f"{model.name!r} returned no attention weights on the eager path.")
    attentions = torch.cat([a.float() for a in output.attentions]).numpy()
    states = torch.cat([s.float() for s in output.hidden_states]).numpy()
    return AttentionPass(tokenization, attentions, states)


def attentions(model: Model, text: str, pair: str | None = None) -> np.ndarray:
    """Attention weights of one input: ``(layers, heads, tokens, tokens)`` float32, equal to
    transformers' ``output_attentions`` on the eager path. See :func:`attention_pass`."""
    return attention_pass(model, text, pair).attentions
