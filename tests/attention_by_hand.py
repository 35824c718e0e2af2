"""Attention computed by hand, for the tests that check the library's passes against it
(tests/test_ablation.py: a layer with heads switched off; tests/test_attention.py: each head's
value vectors through its part of the output projection)."""

from __future__ import annotations

import math

import torch


def attention_linears(model, layer: int) -> tuple:
    """Layer ``layer``'s (from 0) query, key, value and output projections, for a BERT-style
    encoder (BERT, RoBERTa) or a DistilBERT."""
    if model.model_type == "distilbert":
        a = model.encoder.transformer.layer[layer].attention
        return a.q_lin, a.k_lin, a.v_lin, a.out_lin
    a = model.encoder.encoder.layer[layer].attention
    return a.self.query, a.self.key, a.self.value, a.output.dense


def head_contexts(model, layer: int, x: torch.Tensor, zeroed=()) -> torch.Tensor:
    """Every head's context vectors (softmax(q kᵀ / √width) v) of layer ``layer`` on hidden
    states ``x`` (tokens, hidden), the ``zeroed`` heads (from 0) set to 0, concatenated
    (tokens, hidden): what the output projection receives."""
    query, key, value, _ = attention_linears(model, layer)
    n, hidden = x.shape
    heads = model.encoder.config.num_attention_heads
    width = hidden // heads

    def split(t):
        return t.view(n, heads, width).transpose(0, 1)  # (heads, tokens, width)

    q, k, v = split(query(x)), split(key(x)), split(value(x))
    weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(width), dim=-1)
    context = weights @ v
    for head in zeroed:
        context[head] = 0
    return context.transpose(0, 1).reshape(n, hidden)
