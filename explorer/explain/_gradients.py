"""Integrated gradients for ``cls`` pooling: which input tokens make one text's ``[CLS]``
vector point towards another text's vector.

``cls`` pooling reads one token, which every token shaped through attention, so there is
no exact per-token split of the cosine. Integrated gradients (Sundararajan et al., 2017)
attributes ``F(x) = cos(f(x), v)``, the cosine between text a's pooled vector ``f(x)`` (as a
function of its input word embeddings ``x``) and text b's vector ``v`` (held fixed), to the
input tokens: ``attr_i = (x_i - x'_i) . integral_0^1 grad_i F(x' + t (x - x')) dt``. By
completeness the attributions sum to ``F(x) - F(x')``, the cosine minus the cosine of the
*baseline* text ``x'``; the integral is approximated with the trapezoid rule, and the gap
between the sum and ``F(x) - F(x')`` is reported and made small by doubling the steps.

The baseline keeps the special tokens ([CLS], [SEP]) and puts the padding token's word
embedding ([PAD]; zeros for a tokenizer without one) at every other position; positions and
segments are added inside the model as usual. Special tokens therefore get 0: the
attributions say what the words add over a text of the same length with no words in it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from explorer.explain._pairs import layer_weights
from explorer.layers import Layers
from explorer.model import Model

MIN_STEPS = 16
MAX_STEPS = 256
"""Trapezoid steps: start with :data:`MIN_STEPS`, double while the gap is above the
tolerance, stop at :data:`MAX_STEPS` (the gap is reported either way)."""

GAP_TOLERANCE = 1e-3
"""Target for ``|sum(attributions) - (F(x) - F(x'))|``, in cosine units; also at most 1 % of
``|F(x) - F(x')|`` (when the words change the cosine little, the gap must be smaller still),
and never below ``1e-6`` (float32 rounding) unless the caller's ``tolerance`` is."""

PASS_BYTES = 256 * 2**20
"""Interpolation points run together while the activations a backward pass keeps stay
under about this many bytes (:func:`points_per_pass`): attention grows with the square of
the text's length, so a 512-token text on BERT-base runs one point at a time."""


def points_per_pass(model: Model, tokens: int, budget: int = PASS_BYTES) -> int:
    """How many interpolation points of a ``tokens``-long text one forward and backward pass
    takes: a rough count of the float32 activations kept per point (per layer, the
    attention scores and weights, ``heads x tokens^2`` each, and about a dozen
    ``tokens x hidden`` tensors), at least 1."""
    config = model.encoder.config
    heads = int(getattr(config, "num_attention_heads", None) or getattr(config, "n_heads", 12))
    per_layer = 2 * heads * tokens**2 + 12 * tokens * model.hidden_size
    return max(1, budget // (4 * per_layer * max(model.num_layers, 1)))


@dataclass(frozen=True)
class Attribution:
    """Integrated gradients of one text: ``scores`` ``(T,)`` float64 per input token,
    ``end`` = F(x) (the cosine), ``start`` = F(x') (the baseline's cosine), ``gap`` =
    ``|scores.sum() - (end - start)|`` and the trapezoid ``steps`` used."""

    scores: np.ndarray
    start: float
    end: float
    gap: float
    steps: int


def integrated_gradients(
    model: Model,
    text: str,
    target: np.ndarray,
    layers: Layers = "last",
    *,
    tolerance: float = GAP_TOLERANCE,
    max_steps: int = MAX_STEPS,
    report: Callable[[int, int], None] | None = None,
) -> Attribution:
    """Attribute ``cos(cls_vector(text), target)`` to the input tokens of ``text``.

    ``target`` ``(D,)`` is the other text's pooled vector under the same ``layers``; the
    ``[CLS]`` vectors of the layers are combined with :func:`explorer.layers.combine_layers`'s
    map. Runs the encoder with gradients (not the library's inference pass), float32.
    ``report(done, total)``, when given, is called after each forward and backward pass with
    the interpolation points run so far and the most the step doubling can run
    (``max_steps + 1``); it may raise to stop the work.
    """
    encoded = model.encode_batch([text])
    batch = next(iter(model.batches(encoded)))
    inputs = {k: v for k, v in batch.inputs.items() if k != "input_ids"}
    ids = batch.inputs["input_ids"][0]
    embedding = model.encoder.get_input_embeddings()
    weights = torch.from_numpy(layer_weights(layers, model.num_layers)).float()
    unit = torch.from_numpy(np.asarray(target, dtype=np.float32))
    unit = unit / unit.norm().clamp(min=1e-12)
    with torch.inference_mode(False), torch.no_grad():
        x = embedding(ids).detach().clone()
        baseline = x.clone()
        pad = model.tokenizer.pad_token_id
        filler = embedding.weight[pad] if pad is not None else torch.zeros(x.shape[1])
        baseline[~batch.special_mask[0]] = filler
    delta = x - baseline

    done = 0
    most = max_steps + 1

    def values_and_grads(alphas: list[float]) -> tuple[list[float], list[torch.Tensor]]:
        nonlocal done
        values, grads = [], []
        chunk = points_per_pass(model, len(ids))
        for start in range(0, len(alphas), chunk):
            t = torch.tensor(alphas[start : start + chunk])[:, None, None]
            with torch.inference_mode(False), torch.enable_grad():
                points = (baseline + t * delta).requires_grad_(True)
                repeated = {k: v.expand(len(t), -1) for k, v in inputs.items()}
                output = model.encoder(
                    inputs_embeds=points, **repeated, output_hidden_states=True, return_dict=True
                )
                cls = torch.stack([state[:, 0] for state in output.hidden_states])  # (L+1, m, H)
                pooled = torch.einsum("lk,lmh->mkh", weights, cls).reshape(len(t), -1)
                cosines = pooled @ unit / pooled.norm(dim=1).clamp(min=1e-12)
                (grad,) = torch.autograd.grad(cosines.sum(), points)
            values += cosines.detach().double().tolist()
            grads += list(grad.detach().double())
            done += len(t)
            if report is not None:
                report(min(done, most), most)
        return values, grads

    steps = MIN_STEPS
    values, grads = values_and_grads([k / steps for k in range(steps + 1)])
    while True:
        total = sum(grads[1:-1], grads[0] * 0) + (grads[0] + grads[-1]) / 2
        scores = (delta.double() * total / steps).sum(dim=-1).numpy()
        gap = abs(float(scores.sum()) - (values[-1] - values[0]))
        target = max(min(tolerance, 1e-6), min(tolerance, 0.01 * abs(values[-1] - values[0])))
        if gap <= target or steps * 2 > max_steps:
            return Attribution(scores, values[0], values[-1], gap, steps)
        new_values, new_grads = values_and_grads([(2 * k + 1) / (2 * steps) for k in range(steps)])
        values, grads = _interleave(values, new_values), _interleave(grads, new_grads)
        steps *= 2


def _interleave(old: list, new: list) -> list:
    """``old[0], new[0], old[1], ..., new[-1], old[-1]``: the grid of ``2 n`` steps from the
    ``n + 1`` points of ``n`` steps (``old``) and the ``n`` midpoints (``new``)."""
    merged = [None] * (len(old) + len(new))
    merged[::2], merged[1::2] = old, new
    return merged
