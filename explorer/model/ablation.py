"""Head ablation: the same model with chosen attention heads switched off (Michel, Levy and
Neubig 2019, "Are Sixteen Heads Really Better than One?").

:func:`ablate_heads` gives an :class:`AblatedModel`: the same :class:`~explorer.model.Model`
(tokenizer, encoder, every weight shared, nothing copied) whose forward passes run with the
named heads' context vectors zeroed. Each layer's attention output projection (the linear layer
that mixes the heads' concatenated context vectors back into the hidden size) gets one forward
pre-hook, installed once per encoder, that zeroes the named heads' slices of its input. The
hook reads which heads to zero from the running thread (set only while an ablated model's pass
runs in that thread), so the plain model and other sessions' passes are untouched, and
:func:`explorer.model.forward.forward_batches`'s worker threads, which call the ablated
model's :meth:`AblatedModel.layer_states` themselves, see the same heads.

Families: the projection is found by its module name. BERT, RoBERTa, XLM-RoBERTa, CamemBERT,
ELECTRA, ERNIE, DeBERTa (v1, v2) and MobileBERT (``layer.N.attention.output.dense``),
DistilBERT (``layer.N.attention.out_lin``), MPNet (``layer.N.attention.attn.o``) and ModernBERT
(``layers.N.attn.Wo``). ALBERT is refused: its layers share one set of weights, so one module
serves every layer and a hook on it cannot tell which layer is running.
"""

from __future__ import annotations

import contextlib
import re
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence

import torch

from explorer.model.encoder import Model

Heads = Mapping[int, Sequence[int]]
"""``{layer: [head, ...]}``: layers 1..L (as the pages number them), heads 1..H."""

_PROJECTIONS = (
    re.compile(r"(?:^|\.)layer\.(\d+)\.attention\.output\.dense$"),
    re.compile(r"(?:^|\.)layer\.(\d+)\.attention\.out_lin$"),
    re.compile(r"(?:^|\.)layer\.(\d+)\.attention\.attn\.o$"),
    re.compile(r"(?:^|\.)layers\.(\d+)\.attn\.Wo$"),
)
"""Names of each family's attention output projection; the group is the layer (from 0)."""

_ACTIVE = threading.local()
"""``heads``: ``{layer from 0: head indices from 0}`` of the ablated pass running in this
thread, absent otherwise."""

_HOOKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_HOOK_LOCK = threading.Lock()


def num_heads(model: Model) -> int:
    """Attention heads per layer of ``model``."""
    config = model.encoder.config
    return int(getattr(config, "num_attention_heads", getattr(config, "n_heads", 0)))


def projections(model: Model) -> dict[int, torch.nn.Linear]:
    """Each layer's (from 0) attention output projection of ``model``. Raises ``ValueError``
    for a family whose projection is not known or whose layers share weights (ALBERT)."""
    if model.model_type == "albert":
        raise ValueError(
            "Head ablation does not support ALBERT: its layers share one set of weights, so "
            "switching off a head of one layer would switch it off in every layer."
        )
    found: dict[int, torch.nn.Linear] = {}
    for name, module in model.encoder.named_modules():
        for pattern in _PROJECTIONS:
            match = pattern.search(name)
            if match and isinstance(module, torch.nn.Linear):
                found[int(match.group(1))] = module
    if sorted(found) != list(range(model.num_layers)):
        raise ValueError(
            f"Head ablation does not know where a {model.model_type!r} model's attention "
            "heads are mixed back together, so it cannot switch heads off in it."
        )
    return found


def _install(model: Model) -> None:
    """The zeroing hooks on ``model``'s projections, once per encoder."""
    with _HOOK_LOCK:
        if model.encoder in _HOOKED:
            return
        heads = num_heads(model)
        for layer, linear in projections(model).items():
            width = linear.in_features // heads
            linear.register_forward_pre_hook(_zeroing_hook(layer, width))
        _HOOKED[model.encoder] = True


def _zeroing_hook(layer: int, width: int):
    def hook(_module, args):
        chosen = getattr(_ACTIVE, "heads", None)
        if not chosen or layer not in chosen:
            return None
        context = args[0].clone()
        for head in chosen[layer]:
            context[..., head * width : (head + 1) * width] = 0
        return (context, *args[1:])

    return hook


def check_heads(model: Model, heads: Heads) -> dict[int, tuple[int, ...]]:
    """``heads`` (layers and heads numbered from 1) as ``{layer: heads}`` numbered from 0,
    sorted, without empty layers. ``ValueError`` naming the valid range for a layer or head
    out of it (or not an integer)."""
    if not isinstance(heads, Mapping):
        raise ValueError(f"Name the heads as {{layer: [head, ...]}}, not {type(heads).__name__}.")
    count = num_heads(model)
    out: dict[int, tuple[int, ...]] = {}
    for layer, chosen in heads.items():
        if isinstance(layer, bool) or not isinstance(layer, int):
            raise ValueError(
                f"Layer {layer!r} is not a whole number: layers are 1 to {model.num_layers}."
            )
        if not 1 <= layer <= model.num_layers:
            raise ValueError(
                f"There is no layer {layer}: this model's layers are 1 to {model.num_layers}."
            )
        if isinstance(chosen, int):
            chosen = [chosen]
        picked = set()
        for head in chosen:
            if isinstance(head, bool) or not isinstance(head, int) or not 1 <= head <= count:
                raise ValueError(
                    f"There is no head {head!r} in layer {layer}: its heads are 1 to {count}."
                )
            picked.add(head - 1)
        if picked:
            out[layer - 1] = tuple(sorted(picked))
    return out


class AblatedModel(Model):
    """A :class:`~explorer.model.Model` with some heads switched off: made by
    :func:`ablate_heads`, it shares every attribute (weights, tokenizer, lock) of the model it
    was made from. ``heads``: ``{layer: heads}`` numbered from 1, as given."""

    heads: dict[int, tuple[int, ...]]
    _zeroed: dict[int, tuple[int, ...]]

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Within the block, passes of this thread through the shared encoder (the masked-LM
        lens too, whose encoder it is) run with this model's heads switched off."""
        before = getattr(_ACTIVE, "heads", None)
        _ACTIVE.heads = self._zeroed
        try:
            yield
        finally:
            _ACTIVE.heads = before

    def layer_states(
        self, batch, precision: str = "float32", exclusive: bool = True
    ) -> list[torch.Tensor]:
        with self.active():
            return super().layer_states(batch, precision, exclusive)

    def __repr__(self) -> str:
        return f"AblatedModel({self.name!r}, heads={self.heads})"


def ablate_heads(model: Model, heads: Heads) -> AblatedModel:
    """``model`` with the attention heads ``heads`` (``{layer: [head, ...]}``, layers 1..L and
    heads 1..H as on the Attention page) switched off: their context vectors are zeroed before
    the layer's output projection, in every forward pass of the returned model (hidden states,
    word and sentence vectors, anything built on :meth:`~explorer.model.Model.layer_states`).

    The same weights, nothing copied; with no head named it computes exactly what ``model``
    does. Raises ``ValueError`` for a layer or head out of range (naming the valid range) and
    for a family whose heads cannot be switched off (ALBERT: see the module)."""
    zeroed = check_heads(model, heads)
    base = model
    if isinstance(model, AblatedModel):  # ablating an ablated model: both sets are off
        base = model._base
        for layer, chosen in model._zeroed.items():
            zeroed[layer] = tuple(sorted(set(chosen) | set(zeroed.get(layer, ()))))
        zeroed = dict(sorted(zeroed.items()))
    _install(base)
    ablated = AblatedModel.__new__(AblatedModel)
    ablated.__dict__.update(base.__dict__)
    ablated._base = base
    ablated._zeroed = zeroed
    ablated.heads = {layer + 1: tuple(h + 1 for h in chosen) for layer, chosen in zeroed.items()}
    return ablated
