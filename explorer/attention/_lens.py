"""A masked-language-model lens: what the model predicts for each [MASK], layer by layer.

:func:`masked_lm_of` gives the lens of a loaded :class:`~explorer.model.Model` whose checkpoint
has a masked-LM head (``BertForMaskedLM`` and the like): :func:`explorer.load_model` loads such
a checkpoint once, and its encoder and head share every tensor, so the lens costs no second
copy of the weights. :func:`load_masked_lm` loads one by name. :func:`predict_masks` gives the
top-k tokens for every mask from the model's own output, and :func:`layer_predictions` applies
the same head to the hidden state of every layer (0 = embeddings), so one sees at which layer
the right word appears.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from explorer.model.loading import has_masked_lm_head

if TYPE_CHECKING:
    from explorer.model import Model

MASK = "[MASK]"
"""What a user types for a mask; models whose mask token differs (``<mask>``) accept it too."""


@dataclass(frozen=True)
class MaskedLM:
    """A loaded masked-LM model: ``source``, ``tokenizer``, ``model`` (eval mode),
    ``max_length`` (tokens per input, special tokens included) and the ``lock`` that guards
    the tokenizer (a fast tokenizer cannot be called from two threads at once)."""

    source: str
    tokenizer: object
    model: torch.nn.Module
    max_length: int
    lock: threading.RLock = field(default_factory=threading.RLock, compare=False, repr=False)

    def head(self, hidden: torch.Tensor) -> torch.Tensor:
        """The masked-LM head on hidden states ``(..., hidden)`` -> logits ``(..., vocab)``."""
        lm = self.model
        if hasattr(lm, "cls"):
            return lm.cls(hidden)
        if hasattr(lm, "lm_head"):
            return lm.lm_head(hidden)
        if hasattr(lm, "generator_predictions"):
            return lm.generator_lm_head(lm.generator_predictions(hidden))
        if hasattr(lm, "vocab_projector"):
            hidden = lm.vocab_layer_norm(lm.activation(lm.vocab_transform(hidden)))
            return lm.vocab_projector(hidden)
        raise ValueError(f"The lens does not know the masked-LM head of {type(lm).__name__}.")


@dataclass(frozen=True)
class Lens:
    """Top-k predictions for every mask at every layer.

    ``tokens``: the input tokens; ``positions``: the mask positions among them;
    ``top_tokens[layer][mask]``: ``k`` token strings, most probable first;
    ``probabilities`` ``(layers + 1, masks, k)`` float32 (of the full softmax over the
    vocabulary); ``truncated``: the input was cut to ``max_length`` tokens; ``masks_found``:
    every mask of the input (``positions`` holds at most ``max_masks`` of them).
    """

    tokens: list[str]
    positions: list[int]
    top_tokens: list[list[list[str]]]
    probabilities: np.ndarray
    truncated: bool
    masks_found: int = 0

    def first_on_top(self, mask: int) -> int:
        """The first layer whose top guess for mask number ``mask`` (from 0) is the last
        layer's, the model's own guess."""
        final = self.top_tokens[-1][mask][0]
        return next(i for i, top in enumerate(self.top_tokens) if top[mask][0] == final)


def _no_head(name: str, config) -> ValueError:
    saved = ", ".join(getattr(config, "architectures", None) or ["an unknown architecture"])
    return ValueError(
        f"{name!r} has no masked-language-model head (it was saved as {saved}), so it "
        "cannot predict a [MASK]. Load a model saved with one, such as bert-base-uncased "
        "or distilbert-base-uncased."
    )


def masked_lm_of(model: Model, label: str | None = None) -> MaskedLM:
    """The lens of a loaded ``model``: its own masked-LM module and tokenizer, no second copy
    of any weight. Raises ``ValueError`` (naming the model ``label``, default its name) when
    the checkpoint was saved without a masked-LM head, when the head's weights are missing
    (its predictions would be random), or when the vocabulary has no mask token."""
    name = label or model.name
    config = model.encoder.config
    if not has_masked_lm_head(config):
        raise _no_head(name, config)
    if model.masked_lm is None:
        raise ValueError(
            f"{name!r} has no masked-language-model head weights in its checkpoint: its "
            "predictions would be random."
        )
    if model.tokenizer.mask_token is None:
        raise ValueError(f"{name!r} has no mask token in its vocabulary.")
    return MaskedLM(model.source, model.tokenizer, model.masked_lm, model.max_length, model._lock)


def load_masked_lm(source: str, label: str | None = None) -> MaskedLM:
    """Load the model at ``source`` (a folder, or a hub id) and give its lens
    (:func:`masked_lm_of`).

    Raises ``ValueError`` quickly (from the configuration alone, before any weight is read)
    when the checkpoint was not saved with a masked-LM head, and after loading when the head's
    weights are missing (they would be random). Messages name the model ``label`` (default:
    the hub id, or the folder's name).
    """
    from transformers import AutoConfig

    from explorer.model import load_model

    local = Path(source).is_dir()
    try:
        config = AutoConfig.from_pretrained(source, local_files_only=local)
    except (OSError, ValueError) as error:
        raise ValueError(f"Could not read the configuration of {source!r}: {error}") from None
    name = label or (Path(source).name if local else source)
    if not has_masked_lm_head(config):
        raise _no_head(name, config)
    return masked_lm_of(load_model(source), name)


def _as_lm(lm: MaskedLM | str) -> MaskedLM:
    return lm if isinstance(lm, MaskedLM) else load_masked_lm(lm)


def _encode(lm: MaskedLM, text: str):
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"Write a sentence with {MASK} where a word should be predicted.")
    mask = lm.tokenizer.mask_token
    if mask != MASK:
        text = text.replace(MASK, mask)
    with lm.lock:
        encoding = lm.tokenizer(
            text, truncation=True, max_length=lm.max_length, return_tensors="pt"
        )
        truncated = len(lm.tokenizer(text)["input_ids"]) > encoding["input_ids"].shape[1]
    ids = encoding["input_ids"][0]
    positions = (ids == lm.tokenizer.mask_token_id).nonzero().flatten().tolist()
    if not positions:
        raise ValueError(
            f"The sentence has no {MASK}: write {MASK} where the model should guess a word, "
            f"e.g. 'The capital of France is {MASK}.'"
        )
    return encoding, positions, truncated


def _run(lm: MaskedLM, encoding, positions: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.inference_mode():
        output = lm.model(**encoding, output_hidden_states=True)
        states = torch.stack([state[0, positions] for state in output.hidden_states])
        return lm.head(states).float(), output.logits[0, positions].float()


def _top(logits: torch.Tensor, k: int):
    """The ``k`` most probable of ``logits`` ``(masks, vocab)``: ``(values, indices)``."""
    return logits.float().softmax(-1).topk(min(k, logits.shape[-1]), dim=-1)


def layer_predictions(
    lm: MaskedLM | str, text: str, k: int = 10, max_masks: int | None = None
) -> Lens:
    """Top-``k`` tokens for every mask in ``text`` at every layer 0..L (the masked-LM head
    applied to each layer's hidden state; at layer L this is the model's own prediction).

    ``lm`` is a :class:`MaskedLM` or a source to load. With ``max_masks``, only the first that
    many masks are predicted (``masks_found`` counts them all). The head runs one layer at a
    time, so a request holds one layer's ``masks x vocabulary`` logits at once. Raises
    ``ValueError`` when ``text`` has no ``[MASK]`` (or the model's own mask token), or ``k`` or
    ``max_masks`` is not a positive integer.
    """
    for name, value in (("k", k), ("max_masks", 1 if max_masks is None else max_masks)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, not {value!r}.")
    lm = _as_lm(lm)
    encoding, found, truncated = _encode(lm, text)
    positions = found if max_masks is None else found[:max_masks]
    with torch.inference_mode():  # the encoder alone: the head reads only the masks' states
        output = lm.model.base_model(**encoding, output_hidden_states=True)
        best = [_top(lm.head(state[0, positions]), k) for state in output.hidden_states]
    probabilities = torch.stack([b.values for b in best])
    ids = torch.stack([b.indices for b in best])
    convert = lm.tokenizer.convert_ids_to_tokens
    with lm.lock:
        top = [[convert(row.tolist()) for row in layer] for layer in ids]
        tokens = convert(encoding["input_ids"][0].tolist())
    return Lens(
        tokens, positions, top, probabilities.numpy().astype(np.float32), truncated, len(found)
    )


def predict_masks(lm: MaskedLM | str, text: str, k: int = 10) -> list[list[tuple[str, float]]]:
    """The model's top-``k`` ``(token, probability)`` for each ``[MASK]`` in ``text``, in
    order of the masks (one list per mask, most probable first). See
    :func:`layer_predictions` for the errors."""
    lens = layer_predictions(lm, text, k)
    return [
        list(zip(tokens, map(float, probs), strict=True))
        for tokens, probs in zip(lens.top_tokens[-1], lens.probabilities[-1], strict=True)
    ]
