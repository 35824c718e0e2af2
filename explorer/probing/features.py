"""Features for the heads, each from one batched forward pass of the frozen encoder.

* :func:`word_features`: the vector of one occurrence of a word per text at every layer,
  under every subword mode (built by :mod:`explorer.words`, the owner of word vectors);
* :func:`token_sequences`: one layer's token vectors of every text, padded, for the CNN head.

Sentence features (a pooled vector per text and layer) come from
:func:`explorer.embed_corpus`. Progress callbacks get ``(texts_done, total)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from explorer.layers import validate_layers
from explorer.model import Batch, Model
from explorer.model.forward import forward_batches
from explorer.subwords import SUBWORD_MODES
from explorer.words import Occurrence, first_occurrences, occurrence_layer_vectors

Progress = Callable[[int, int], None]

MAX_TOKENS = 128
"""Token sequences are cut to this length for the CNN head (the sentences it is for are short)."""

MAX_VALUES = 50_000_000
"""Largest ``texts x tokens x hidden`` feature array :func:`token_sequences` builds (200 MB)."""

__all__ = [
    "MAX_TOKENS",
    "MAX_VALUES",
    "Progress",
    "WordFeatures",
    "first_occurrences",
    "token_sequences",
    "word_features",
]


@dataclass(frozen=True)
class WordFeatures:
    """Vectors of one word occurrence per text, at every layer, under every subword mode.

    ``vectors[subwords]`` is ``(num_layers + 1, n_texts, hidden)`` float32; ``occurrences[i]``
    is the occurrence used for text ``i`` (the first one); ``num_split`` counts the
    occurrences made of more than one token (when it is 0 every mode gives the same vectors).
    """

    vectors: dict[str, np.ndarray]
    occurrences: tuple[Occurrence, ...]
    num_split: int


def word_features(
    model: Model,
    texts: Sequence[str],
    word: str | Sequence[str],
    subwords: Sequence[str] = SUBWORD_MODES,
    progress: Progress | None = None,
) -> WordFeatures:
    """One forward pass over ``texts``; the vector of each text's word at every layer.

    ``word`` is one word for all texts or one per text; the first whole-word occurrence in
    each text is used (:func:`explorer.words.first_occurrences`, which raises ``ValueError``
    naming the rows without their word). Returns :class:`WordFeatures` with
    ``vectors[mode]`` ``(num_layers + 1, n_texts, hidden)`` for every mode in ``subwords``
    Texts are batched, so memory grows with the
    number of texts, not their tokens.
    """
    texts = list(texts)
    occurrences = first_occurrences(model, texts, word)
    vectors = occurrence_layer_vectors(model, texts, occurrences, subwords, progress)
    num_split = sum(o.num_tokens > 1 for o in occurrences)
    return WordFeatures(vectors, tuple(occurrences), num_split)


def token_sequences(
    model: Model,
    texts: Sequence[str],
    layer: int,
    progress: Progress | None = None,
    max_tokens: int = MAX_TOKENS,
    max_values: int = MAX_VALUES,
) -> tuple[np.ndarray, np.ndarray]:
    """One layer's token vectors of every text, padded: ``(n, tokens, hidden)`` float32 and
    a ``(n, tokens)`` bool mask (True on real tokens, special tokens included).

    ``layer`` is 0 (embeddings) … ``num_layers``, or negative from the end. ``tokens`` is the
    longest text's length, at most ``max_tokens``: a longer text is cut to its first
    ``max_tokens - 1`` tokens and its closing special token *before* the model runs (as the
    tokenizer's own truncation would), so the model reads no token the head does not (for 512
    token texts and ``max_tokens=128`` the forward pass is over 4 times cheaper).
    One batched forward pass (:func:`explorer.model.forward.forward_batches`). Raises
    ``ValueError`` when the array would exceed ``max_values`` values (default
    :data:`MAX_VALUES`), before the model runs.
    """
    layer = validate_layers(int(layer), model.num_layers) % (model.num_layers + 1)
    if max_tokens < 2:
        raise ValueError(f"max_tokens must be at least 2, not {max_tokens}.")
    encoded = [_cut(row, max_tokens) for row in model.encode_batch(list(texts))]
    width = min(max(len(row["input_ids"]) for row in encoded), max_tokens)
    if len(encoded) * width * model.hidden_size > max_values:
        raise ValueError(
            f"{len(encoded):,} texts of up to {width} tokens are too many for the CNN head "
            f"here (it reads at most {max_values // model.hidden_size:,} token vectors, "
            f"{max_values:,} values); use fewer or shorter texts."
        )
    sequences = np.zeros((len(encoded), width, model.hidden_size), dtype=np.float32)
    mask = np.zeros((len(encoded), width), dtype=bool)

    def take(batch: Batch, states: list[torch.Tensor]) -> None:
        hidden = states[layer].numpy()
        for b, (i, n) in enumerate(zip(batch.indices, batch.lengths, strict=True)):
            n = min(n, width)
            sequences[i, :n] = hidden[b, :n]
            mask[i, :n] = True

    forward_batches(model, list(model.batches(encoded)), take, progress=progress)
    return sequences, mask


def _cut(row: dict, max_tokens: int) -> dict:
    """An encoded text (:meth:`explorer.model.Model.encode_batch`) cut to ``max_tokens`` ids:
    the first ``max_tokens - 1`` and the closing special token (when it has one)."""
    if len(row["input_ids"]) <= max_tokens:
        return row
    closing = bool(row["special_tokens_mask"][-1])
    head = max_tokens - 1 if closing else max_tokens
    cut = {
        key: (list(value[:head]) + ([value[-1]] if closing else []))
        for key, value in row.items()
        if isinstance(value, list)
    }
    return {**row, **cut, "truncated": True}
