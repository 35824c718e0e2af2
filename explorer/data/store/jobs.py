"""What every engine shares: a :class:`Job` (the store's settings), the stream of
:class:`Shards` it embeds, the :class:`ShardVectors` it hands back, the :class:`Engine`
protocol, and :func:`embed_texts`, the one function that embeds texts the store's way
(tokenize, batch by length, :func:`explorer.model.forward.forward_batches`, the masked
poolings of :func:`explorer.pooling.pool_hidden` for every stored layer)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:
    from explorer.model import Model


@dataclass(frozen=True)
class Job:
    """What every engine computes for a text: the base ``poolings``, the hidden-state
    ``layers`` (0 = embeddings), the forward-pass ``precision`` and the padded tokens a batch
    (``batch_tokens``). Made by the writer from the store's manifest."""

    poolings: tuple[str, ...]
    layers: tuple[int, ...]
    precision: str = "float32"
    batch_tokens: int = 1024


@dataclass(frozen=True)
class ShardVectors:
    """The vectors of ``n`` texts: ``pooled[name]`` is ``(len(job.layers), n, hidden)``
    float32 for each pooling; ``num_tokens`` ``(n,)`` int32 (special tokens included) and
    ``truncated`` ``(n,)`` bool."""

    pooled: dict[str, np.ndarray]
    num_tokens: np.ndarray
    truncated: np.ndarray


RowsDone = Callable[[int], None]
"""``progress(rows)``: rows embedded so far in this run (across shards), after each batch."""


@dataclass(frozen=True)
class Shards:
    """What an engine embeds: the shard ``tables`` in order, their ``text_column``, the store
    row of the first table's first row (``first_row``, 0-based, for error messages) and the
    ``progress`` callback. Made by the writer."""

    tables: Iterable[pa.Table]
    text_column: str
    first_row: int = 0
    progress: RowsDone | None = None


Embedded = Iterator[tuple[pa.Table, ShardVectors]]
"""An engine's output: ``(table, vectors)`` for each shard table, in order."""


class Engine(Protocol):
    """Embeds a stream of shard tables; yields ``(table, vectors)`` for each, in order."""

    name: str

    def embed(self, model: Model, job: Job, shards: Shards) -> Embedded: ...

    def close(self) -> None: ...


def embed_texts(
    model: Model,
    texts: list[str],
    job: Job,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
) -> ShardVectors:
    """Embed ``texts`` (non-blank strings) for ``job``: see :class:`ShardVectors`.

    Texts are tokenized (truncated to the model's ``max_length``; a text longer than
    :data:`explorer.model.tokenization.MAX_CHARS` characters, far more than ``max_length`` tokens
    can span, is first cut to that many and counted as truncated), grouped into batches of similar
    length (at most ``job.batch_tokens`` padded tokens) and run through
    :func:`explorer.model.forward.forward_batches` on ``workers`` threads (``None``: its default);
    ``progress(done, total)`` is called after each batch. Raises ``ValueError`` naming the
    first text the model cannot read.
    """
    import torch

    from explorer.model import Batch
    from explorer.model.batching import MAX_BATCH_SIZE
    from explorer.model.forward import forward_batches
    from explorer.model.tokenization import MAX_CHARS
    from explorer.pooling import pool_hidden

    long = np.array([len(text) > MAX_CHARS for text in texts], dtype=bool)
    if long.any():
        texts = [text[:MAX_CHARS] for text in texts]
    encoded = model.encode_batch(texts)
    shape = (len(job.layers), len(texts), model.hidden_size)
    pooled = {name: np.empty(shape, dtype=np.float32) for name in job.poolings}
    layers = job.layers

    def handle(batch: Batch, states: list[torch.Tensor]) -> None:
        rows = np.asarray(batch.indices)
        with torch.inference_mode():
            for slot, layer in enumerate(layers):
                values = pool_hidden(states[layer][None], batch.attention_mask)
                for name in pooled:
                    pooled[name][slot, rows] = values[name][0].numpy()

    batches = list(model.batches(encoded, MAX_BATCH_SIZE, job.batch_tokens))
    forward_batches(model, batches, handle, job.precision, progress, workers)
    return ShardVectors(
        pooled=pooled,
        num_tokens=np.array([len(row["input_ids"]) for row in encoded], dtype=np.int32),
        truncated=np.array([row["truncated"] for row in encoded], dtype=bool) | long,
    )
