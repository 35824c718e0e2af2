"""Attention weights of one input, what each head does, and two corrections of raw weights.

- :func:`attention_pass`: attentions ``(layers, heads, tokens, tokens)`` and hidden states of
  one text (or text pair), from transformers' eager attention path;
- :func:`head_statistics`: one row per layer x head (entropy, share on [CLS], [SEP], itself,
  the previous and next token, punctuation);
- :func:`rollout`: attention rollout (Abnar & Zuidema 2020);
- :func:`value_norms` and :func:`norm_weighted`: attention weights scaled by the norm of the
  vector each one mixes in (Kobayashi et al. 2020).

The fast attention kernels (SDPA) the model loads with return no weights. The weights come from
a second copy of the encoder that shares every parameter tensor (no extra weight memory) and
runs eager attention, made on first use, so embedding passes keep the fast kernels.
"""

from __future__ import annotations

import copy
import threading
import unicodedata
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from explorer.model.tokenization import Tokenization

if TYPE_CHECKING:
    import pandas as pd

    from explorer.model import Model

STATISTICS = ("entropy", "cls", "sep", "self", "previous", "next", "punctuation")
"""Columns of :func:`head_statistics` besides ``layer`` and ``head``."""

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


# -- what each head does --------------------------------------------------------------------


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


def _attention_modules(encoder: torch.nn.Module, model_type: str) -> list[tuple]:
    """``(value linear, output linear)`` of each layer, for the families whose layout is known."""
    if model_type == "distilbert":
        return [(lay.attention.v_lin, lay.attention.out_lin) for lay in encoder.transformer.layer]
    body = getattr(encoder, "encoder", None)
    layers = getattr(body, "layer", None)
    if layers is not None and all(
        hasattr(lay, "attention") and hasattr(lay.attention, "self") for lay in layers
    ):
        return [(lay.attention.self.value, lay.attention.output.dense) for lay in layers]
    raise ValueError(
        f"Norm-weighted attention does not know where a {model_type!r} model keeps its value "
        "and output projections (BERT, RoBERTa-style, ELECTRA and DistilBERT work)."
    )


def value_norms(model: Model, hidden_states: np.ndarray) -> np.ndarray:
    """``||f_h(x_j)||`` per layer, head and token: ``(layers, heads, tokens)`` float32.

    ``f_h(x) = (x W_V + b_V)_h W_O^h``: token ``j``'s value vector in head ``h`` carried
    through that head's slice of the attention output projection (its bias, added once per
    token and not per head, is left out, as in Kobayashi et al. 2020). ``hidden_states`` is
    :attr:`AttentionPass.hidden_states`; layer ``l`` reads ``hidden_states[l]``.
    """
    modules = _attention_modules(model.encoder, model.model_type)
    heads = int(
        getattr(model.encoder.config, "num_attention_heads", 0) or model.encoder.config.n_heads
    )
    states = torch.from_numpy(np.asarray(hidden_states, dtype=np.float32))
    norms = []
    with torch.inference_mode():
        for layer, (value, output) in enumerate(modules):
            values = value(states[layer])  # (tokens, heads * head_dim)
            tokens, width = values.shape
            values = values.view(tokens, heads, width // heads).transpose(0, 1)
            weight = output.weight.T.view(heads, width // heads, -1)  # (heads, head_dim, hidden)
            norms.append(torch.linalg.vector_norm(values @ weight, dim=-1))
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
