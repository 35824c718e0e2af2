"""Sentence embeddings for a corpus: one forward pass serves every pooling and layer strategy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from explorer.choice import VectorChoice, vector_choice
from explorer.layers import Layers
from explorer.model import Batch, Model
from explorer.model.batching import MAX_BATCH_SIZE, MAX_BATCH_TOKENS
from explorer.model.forward import Progress, forward_batches
from explorer.pooling import BASE_POOLINGS, normalize_rows, pool_hidden


@dataclass
class CorpusEmbeddings:
    """Pooled vectors of every text at every layer, kept so no strategy needs a new pass.

    ``pooled[name]`` is ``(num_layers + 1, n_texts, hidden)`` float32 for ``name`` in
    ``cls``, ``mean``, ``max``; ``num_tokens[i]`` counts text i's tokens (special tokens
    included, after truncation) and ``truncated[i]`` says whether it was cut.
    """

    model_name: str
    texts: tuple[str, ...]
    pooled: dict[str, np.ndarray]
    num_tokens: np.ndarray
    truncated: np.ndarray
    exclude_special: bool = False
    precision: str = "float32"
    _num_layers: int = field(init=False)

    def __post_init__(self) -> None:
        self._num_layers = self.pooled["cls"].shape[0] - 1
        # Read-only: the app shares one object between sessions (st.cache_resource), and
        # sentence()/per_layer() may return views of these arrays.
        for array in (*self.pooled.values(), self.num_tokens, self.truncated):
            array.flags.writeable = False

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def num_layers(self) -> int:
        return self._num_layers

    def sentence(
        self,
        choice: VectorChoice | str = "mean",
        layers: Layers | None = None,
        normalize: bool = False,
    ) -> np.ndarray:
        """``(n_texts, choice.dim(hidden))`` float32 vectors for one :class:`VectorChoice`
        (or a pooling name and ``layers``, :func:`explorer.choice.vector_choice`).
        ``ValueError`` for a layer choice this model's depth does not have."""
        vectors = vector_choice(choice, layers).combine(self.pooled)  # checks the depth too
        return normalize_rows(vectors) if normalize else vectors

    def per_layer(self, pooling: VectorChoice | str = "mean") -> np.ndarray:
        """``(num_layers + 1, n_texts, dim)``: one pooled vector per text at every layer, under
        the pooling of ``pooling`` (a :class:`VectorChoice` or a pooling name)."""
        parts = [self.pooled[name] for name in vector_choice(pooling).parts]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)


def embed_corpus(
    model: Model,
    texts: Sequence[str],
    progress: Progress | None = None,
    *,
    exclude_special: bool = False,
    precision: str = "float32",
    max_batch_size: int = MAX_BATCH_SIZE,
    max_batch_tokens: int = MAX_BATCH_TOKENS,
    workers: int | None = None,
    also: Callable[[Batch, list[torch.Tensor]], None] | None = None,
) -> CorpusEmbeddings:
    """Embed ``texts`` once, keeping ``cls``, ``mean`` and ``max`` pooled vectors of every layer.

    Texts are batched by length (at most ``max_batch_size`` texts and ``max_batch_tokens``
    padded tokens a batch) and the result is in input order. Memory grows with
    ``n_texts * (num_layers + 1) * hidden``, never with the number of tokens: each batch's
    hidden states are pooled layer by layer and dropped. ``progress`` is called with
    ``(texts_done, total)`` after each batch. ``exclude_special`` leaves ``[CLS]``/``[SEP]``
    out of mean and max pooling. ``precision="bfloat16"`` runs the encoder under CPU
    autocast (about 2-3x faster on CPUs with AMX or AVX512-BF16; cosine to the float32
    vectors above 0.9999 on MiniLM). ``workers`` is passed to :func:`forward_batches`.
    ``also(batch, states)``, when given, reads each batch's hidden states too, after pooling
    (another result of the same pass, e.g. :func:`explorer.compare.read_texts`' word vectors).
    Raises ``ValueError`` for an empty list, a text with no tokens or an unknown precision.
    """
    model.autocast(precision)  # validates precision before any work
    encoded = model.encode_batch(texts)
    n = len(encoded)
    shape = (model.num_layers + 1, n, model.hidden_size)
    pooled = {name: np.empty(shape, dtype=np.float32) for name in BASE_POOLINGS}
    num_tokens = np.array([len(row["input_ids"]) for row in encoded], dtype=np.int64)
    batches = list(model.batches(encoded, max_batch_size, max_batch_tokens))

    def pool(batch: Batch, states: list[torch.Tensor]) -> None:
        _pool_batch(states, batch, exclude_special, pooled)
        if also is not None:
            also(batch, states)

    forward_batches(model, batches, pool, precision, progress, workers)
    truncated = np.array([row["truncated"] for row in encoded], dtype=bool)
    return CorpusEmbeddings(
        model_name=model.name,
        texts=tuple(texts),
        pooled=pooled,
        num_tokens=num_tokens,
        truncated=truncated,
        exclude_special=exclude_special,
        precision=precision,
    )


def _pool_batch(
    states: list[torch.Tensor],
    batch: Batch,
    exclude_special: bool,
    pooled: dict[str, np.ndarray],
) -> None:
    """Write the pooled vectors of one batch into ``pooled[name][layer, batch.indices]``.

    ``states`` holds one ``(batch, tokens, hidden)`` tensor per layer; pooling them one at a
    time never builds the ``(layers + 1, batch, tokens, hidden)`` stack.
    """
    mask = batch.attention_mask & ~batch.special_mask if exclude_special else batch.attention_mask
    rows = np.asarray(batch.indices)
    with torch.inference_mode():
        for layer, hidden in enumerate(states):
            for name, values in pool_hidden(hidden[None], mask).items():
                pooled[name][layer, rows] = values[0].numpy()


def sentence_embeddings(
    model: Model,
    texts: Sequence[str],
    pooling: VectorChoice | str = "mean",
    layers: Layers | None = None,
    normalize: bool = False,
    exclude_special: bool = False,
    batch_size: int = 32,
) -> np.ndarray:
    """One vector per text: ``(len(texts), dim)`` float32.

    ``pooling`` is a :class:`VectorChoice`, or a pooling name (``cls``, ``mean``, ``max``,
    ``mean_max``) with ``layers`` a layer choice or number beside it; ``dim`` is
    :meth:`VectorChoice.dim` (``mean_max`` twice the hidden size, ``concat_last4`` four
    times). Mean and max use the attention mask, so a text gives the same vector alone or in a
    batch. ``normalize`` scales rows to unit length; ``exclude_special`` leaves special tokens
    out of mean and max. Raises ``ValueError`` for an empty list or an unknown choice.
    """
    choice = vector_choice(pooling, layers)
    choice.indices(model.num_layers)
    corpus = embed_corpus(model, texts, exclude_special=exclude_special, max_batch_size=batch_size)
    return corpus.sentence(choice, normalize=normalize)
