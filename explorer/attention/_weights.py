"""What each head does, and two corrections of raw attention weights.

The weights themselves come from :func:`explorer.model.attentions.attention_pass` (attentions
``(layers, heads, tokens, tokens)`` and hidden states of one text or text pair, on
transformers' eager attention path).

- :func:`head_statistics`: one row per layer x head (entropy, share on [CLS], [SEP], itself,
  the previous and next token, punctuation);
- :func:`rollout`: attention rollout (Abnar & Zuidema 2020);
- :func:`value_norms` and :func:`norm_weighted`: attention weights scaled by the norm of the
  vector each one mixes in (Kobayashi et al. 2020).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    import pandas as pd

    from explorer.model.encoder import Model

STATISTICS = ("entropy", "cls", "sep", "self", "previous", "next", "punctuation")
"""Columns of :func:`head_statistics` besides ``layer`` and ``head``."""


def is_punctuation(token: str) -> bool:
    """True for a token made only of punctuation (``","``, ``"##."``, ``"Ġ!"``)."""
    text = token.removeprefix("##").lstrip("Ġ▁")
    return bool(text) and all(unicodedata.category(c).startswith("P") for c in text)


def head_statistics(
    attentions: np.ndarray,
    tokens: Sequence[str],
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
) -> pd.DataFrame:
    """One row per layer x head: where each head's attention goes, averaged over query tokens.

    ``attentions`` is ``(layers, heads, tokens, tokens)`` with rows summing to 1, ``tokens``
    the token strings. Columns: ``layer`` and ``head`` (from 1), ``entropy`` (bits, mean over
    rows; 0 = every row on one token, log2(tokens) = spread evenly), and the mean share of a
    row on ``cls`` (``cls_token``), ``sep`` (``sep_token``), ``self`` (the diagonal),
    ``previous`` / ``next`` (the neighbour, over the rows that have one) and ``punctuation``
    (tokens of punctuation only, special tokens excluded).
    """
    import pandas as pd

    weights = np.asarray(attentions)
    if weights.ndim != 4 or weights.shape[2] != weights.shape[3]:
        raise ValueError(
            f"attentions must be (layers, heads, tokens, tokens), not {weights.shape}."
        )
    layers, heads, n, _ = weights.shape
    if len(tokens) != n:
        raise ValueError(f"Got {len(tokens)} tokens for attention over {n} tokens.")
    is_cls = np.array([t == cls_token for t in tokens])
    is_sep = np.array([t == sep_token for t in tokens])
    is_punct = np.array([is_punctuation(t) and t not in (cls_token, sep_token) for t in tokens])
    names = ("entropy", "cls", "sep", "self", "previous", "next", "punctuation")
    columns = {name: np.zeros((layers, heads)) for name in names}
    for index in range(layers):  # one layer in float64 at a time: 25 MB at 512 tokens, not 450
        layer_weights = weights[index].astype(np.float64)
        logs = np.log2(np.where(layer_weights > 0, layer_weights, 1.0))
        columns["entropy"][index] = -(layer_weights * logs).sum(-1).mean(-1)
        columns["cls"][index] = layer_weights[..., is_cls].sum(-1).mean(-1)
        columns["sep"][index] = layer_weights[..., is_sep].sum(-1).mean(-1)
        columns["self"][index] = np.diagonal(layer_weights, axis1=1, axis2=2).mean(-1)
        if n > 1:
            previous = np.diagonal(layer_weights, offset=-1, axis1=1, axis2=2)
            following = np.diagonal(layer_weights, offset=1, axis1=1, axis2=2)
            columns["previous"][index] = previous.mean(-1)
            columns["next"][index] = following.mean(-1)
        columns["punctuation"][index] = layer_weights[..., is_punct].sum(-1).mean(-1)
    layer, head = np.meshgrid(np.arange(1, layers + 1), np.arange(1, heads + 1), indexing="ij")
    table = {"layer": layer.ravel(), "head": head.ravel()}
    table.update({name: values.ravel().astype(np.float32) for name, values in columns.items()})
    return pd.DataFrame(table)


# -- rollout and norm-weighted attention ------------------------------------------------------


def rollout(attentions: np.ndarray) -> np.ndarray:
    """Attention rollout (Abnar & Zuidema 2020): ``(layers, tokens, tokens)`` float32.

    Per layer the heads are averaged, the identity is added for the residual connection and
    rows are renormalised (``(A + I) / 2``); entry ``l`` is the product of layers ``l .. 0``,
    how much each input token flows into each token's vector after layer ``l + 1``.
    """
    weights = np.asarray(attentions)
    if weights.ndim != 4:
        raise ValueError(
            f"attentions must be (layers, heads, tokens, tokens), not {weights.shape}."
        )
    n = weights.shape[-1]
    # heads averaged in float64 without a float64 copy of every head (150 MB at 512 tokens)
    mixed = weights.mean(axis=1, dtype=np.float64) + np.eye(n)
    mixed /= mixed.sum(-1, keepdims=True)
    out = np.empty(mixed.shape, dtype=np.float64)
    flow = np.eye(n)
    for layer, matrix in enumerate(mixed):
        flow = matrix @ flow
        out[layer] = flow
    return out.astype(np.float32)


@dataclass(frozen=True)
class ValuePath:
    """Where one layer's attention takes its values from and sends them: the value projection
    ``value`` (weight ``(heads * head_dim, hidden)``, ``bias`` or ``None``), the output
    projection's weight ``output`` ``(hidden, heads * head_dim)``, and ``norm``, a module
    applied to the layer's input first (the attention's own layer norm in pre-norm models
    such as ModernBERT; ``None`` when the attention reads the layer's input as it is)."""

    value: torch.Tensor
    bias: torch.Tensor | None
    output: torch.Tensor
    norm: torch.nn.Module | None = None


def _linear(value: torch.nn.Linear, output: torch.nn.Linear) -> ValuePath:
    return ValuePath(value.weight, value.bias, output.weight)


NORM_WEIGHTED_FAMILIES = (
    "BERT, RoBERTa-style, ELECTRA, DistilBERT, MPNet, DeBERTa-v2/v3, ALBERT and ModernBERT"
)
"""The model families :func:`value_paths` knows, as a sentence names them."""


def value_paths(encoder: torch.nn.Module, model_type: str) -> list[ValuePath]:
    """The :class:`ValuePath` of each layer, in the order the layers run, for the families of
    :data:`NORM_WEIGHTED_FAMILIES` (transformers 5.23's module layouts):

    - BERT, RoBERTa, ELECTRA (and others laid out alike): ``attention.self.value``, then
      ``attention.output.dense``; DistilBERT: ``v_lin``, ``out_lin``;
    - MPNet: ``attention.attn.v``, ``attention.attn.o``;
    - DeBERTa-v2/v3: ``attention.self.value_proj``, ``attention.output.dense`` (the
      disentangled position terms change the attention scores only, not the values);
    - ALBERT: a layer group's ``attention.value`` and ``attention.dense``, shared by every
      layer of the group; a group of several inner layers (``inner_group_num > 1``) runs them
      in turn at each of its layers, and each run has its own attention map, hidden state and
      path (``Model.num_layers`` counts the runs);
    - ModernBERT: the value third of the fused ``attn.Wqkv`` (rows ``2 * hidden`` to
      ``3 * hidden``, laid out ``(3, heads, head_dim)``), ``attn.Wo``, after ``attn_norm``.

    Raises ``ValueError`` for another layout.
    """
    if model_type == "distilbert":
        return [
            _linear(lay.attention.v_lin, lay.attention.out_lin) for lay in encoder.transformer.layer
        ]
    if model_type == "modernbert":
        paths = []
        for lay in encoder.layers:
            width = lay.attn.Wo.in_features
            bias = lay.attn.Wqkv.bias
            paths.append(
                ValuePath(
                    lay.attn.Wqkv.weight[2 * width : 3 * width],
                    None if bias is None else bias[2 * width : 3 * width],
                    lay.attn.Wo.weight,
                    lay.attn_norm,
                )
            )
        return paths
    body = getattr(encoder, "encoder", None)
    if model_type == "albert" and hasattr(body, "albert_layer_groups"):
        config = encoder.config
        groups = body.albert_layer_groups
        return [
            _linear(lay.attention.value, lay.attention.dense)
            for i in range(config.num_hidden_layers)
            for lay in groups[
                int(i / (config.num_hidden_layers / config.num_hidden_groups))
            ].albert_layers
        ]
    layers = getattr(body, "layer", None)
    if layers is not None and all(hasattr(lay, "attention") for lay in layers):
        attentions = [lay.attention for lay in layers]
        if all(hasattr(a, "attn") and hasattr(a.attn, "v") for a in attentions):  # MPNet
            return [_linear(a.attn.v, a.attn.o) for a in attentions]
        if all(hasattr(a, "self") and hasattr(a.self, "value_proj") for a in attentions):
            return [_linear(a.self.value_proj, a.output.dense) for a in attentions]  # DeBERTa-v2
        if all(hasattr(a, "self") and hasattr(a.self, "value") for a in attentions):
            return [_linear(a.self.value, a.output.dense) for a in attentions]
    raise ValueError(
        f"Norm-weighted attention does not know where a {model_type!r} model keeps its value "
        f"and output projections ({NORM_WEIGHTED_FAMILIES} work)."
    )


def _layer_vectors(model: Model, hidden_states: np.ndarray):
    """Yield each layer's ``f_h(x_j)`` ``(heads, tokens, hidden)`` (see :func:`value_vectors`),
    a layer at a time, under ``torch.inference_mode``."""
    paths = value_paths(model.encoder, model.model_type)
    heads = int(
        getattr(model.encoder.config, "num_attention_heads", 0) or model.encoder.config.n_heads
    )
    states = torch.from_numpy(np.asarray(hidden_states, dtype=np.float32))
    if len(paths) != len(states) - 1:
        raise ValueError(f"{len(paths)} attention layers for {len(states)} hidden states.")
    with torch.inference_mode():
        for layer, path in enumerate(paths):
            x = states[layer] if path.norm is None else path.norm(states[layer])
            values = torch.nn.functional.linear(x, path.value, path.bias)  # (tokens, H * d)
            tokens, width = values.shape
            values = values.view(tokens, heads, width // heads).transpose(0, 1)
            weight = path.output.T.reshape(heads, width // heads, -1)  # (heads, head_dim, hidden)
            yield values @ weight


def value_vectors(model: Model, hidden_states: np.ndarray) -> np.ndarray:
    """``f_h(x_j)`` per layer, head and token: ``(layers, heads, tokens, hidden)`` float32.

    ``f_h(x) = (x W_V + b_V)_h W_O^h``: token ``j``'s value vector in head ``h`` carried
    through that head's slice of the attention output projection (its bias, added once per
    token and not per head, is left out, as in Kobayashi et al. 2020); ``x`` is the layer's
    input (``hidden_states[l]``, :attr:`AttentionPass.hidden_states`) after the attention's
    own layer norm in a pre-norm model. The attention output of token ``i`` is
    ``sum_h sum_j alpha_hij f_h(x_j)`` plus the output bias. Raises ``ValueError`` for a
    model family :func:`value_paths` does not know.
    """
    return torch.stack(list(_layer_vectors(model, hidden_states))).float().numpy()


def value_norms(model: Model, hidden_states: np.ndarray) -> np.ndarray:
    """``||f_h(x_j)||`` per layer, head and token: ``(layers, heads, tokens)`` float32, for
    :func:`value_vectors`' ``f_h``, one layer in memory at a time."""
    norms = [torch.linalg.vector_norm(v, dim=-1) for v in _layer_vectors(model, hidden_states)]
    return torch.stack(norms).float().numpy()


def norm_weighted(attentions: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """``||alpha_ij f(x_j)|| = alpha_ij * ||f(x_j)||``: ``(layers, heads, tokens, tokens)``.

    ``attentions`` ``(layers, heads, tokens, tokens)``, ``norms`` ``(layers, heads, tokens)``
    from :func:`value_norms`. Rows no longer sum to 1: divide by the row sums to compare
    shares with raw attention (:func:`row_normalize`).
    """
    attentions = np.asarray(attentions, dtype=np.float32)
    norms = np.asarray(norms, dtype=np.float32)
    if norms.shape != attentions.shape[:3]:
        raise ValueError(f"norms {norms.shape} do not match attentions {attentions.shape}.")
    return attentions * norms[:, :, None, :]


def row_normalize(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` with every row (last axis) divided by its sum (rows of zeros stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    sums = matrix.sum(-1, keepdims=True)
    return np.divide(matrix, sums, out=np.zeros_like(matrix), where=sums > 0)


@dataclass(frozen=True)
class LayerInfluence:
    """One layer's attention with its heads averaged, three ways, each ``(tokens, tokens)``:
    ``raw`` weights, ``weighted`` (each weight scaled by the norm of the vector it mixes in,
    rows renormalised; ``None`` when the norms are unknown) and ``rollout`` (through the
    residual path of every layer up to this one)."""

    layer: int
    raw: np.ndarray
    weighted: np.ndarray | None
    rollout: np.ndarray


def layer_influence(
    attentions: np.ndarray, rollout_: np.ndarray, norms: np.ndarray | None, layer: int
) -> LayerInfluence:
    """:class:`LayerInfluence` of ``layer`` (1-based) from :func:`attention_pass`'s
    attentions ``(layers, heads, tokens, tokens)``, :func:`rollout` ``(layers, tokens,
    tokens)`` and :func:`value_norms` ``(layers, heads, tokens)`` (or ``None``)."""
    if not 1 <= layer <= attentions.shape[0]:
        raise ValueError(f"Layer {layer} does not exist: choose 1 to {attentions.shape[0]}.")
    index = slice(layer - 1, layer)
    weighted = None
    if norms is not None:
        weighted = row_normalize(norm_weighted(attentions[index], norms[index])[0].sum(0))
    return LayerInfluence(layer, attentions[layer - 1].mean(0), weighted, rollout_[layer - 1])


def column_share(matrix: np.ndarray, columns: np.ndarray) -> float:
    """Mean over rows of the share of each row that lands on the ``columns`` (a boolean mask
    over the last axis) of ``matrix`` ``(tokens, tokens)``."""
    return float(np.asarray(matrix)[:, np.asarray(columns, dtype=bool)].sum(1).mean())


def strongest_pattern(stats: pd.DataFrame, layer: int, head: int) -> tuple[str, float, float]:
    """Where head ``head`` of layer ``layer`` (both from 1) sends most of its attention, read
    from :func:`head_statistics`'s table ``stats``: ``(column, share, entropy)``, the share
    column (``cls``, ``sep``, ``self``, ``previous``, ``next``, ``punctuation``) with the largest
    mean share, that share, and the head's entropy in bits. Raises ``ValueError`` for a head
    the table does not hold."""
    found = stats[(stats["layer"] == layer) & (stats["head"] == head)]
    if found.empty:
        raise ValueError(f"No statistics for layer {layer}, head {head}.")
    row = found.iloc[0]
    shares = STATISTICS[1:]
    best = max(shares, key=lambda column: row[column])
    return best, float(row[best]), float(row["entropy"])
