"""Sentence embeddings for a corpus: one forward pass serves every pooling and layer strategy."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from explorer.backend import MAX_BATCH_SIZE, MAX_BATCH_TOKENS, Batch, Model
from explorer.layers import LayerStrategy, validate_strategy
from explorer.pooling import (
    BASE_POOLINGS,
    combine_pooled,
    normalize_rows,
    pool_hidden,
    validate_pooling,
)

Progress = Callable[[int, int], None]


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
        self, pooling: str = "mean", layers: LayerStrategy = "last", normalize: bool = False
    ) -> np.ndarray:
        """``(n_texts, dim)`` float32 vectors for one pooling and layer strategy."""
        validate_strategy(layers, self._num_layers)
        vectors = combine_pooled(self.pooled, pooling, layers)
        return normalize_rows(vectors) if normalize else vectors

    def per_layer(self, pooling: str = "mean") -> np.ndarray:
        """``(num_layers + 1, n_texts, dim)``: one pooled vector per text at every layer."""
        if pooling == "mean_max":
            return np.concatenate([self.pooled["mean"], self.pooled["max"]], axis=-1)
        validate_pooling(pooling)
        return self.pooled[pooling]


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


_PARALLEL = threading.Lock()
"""Held while batches run on parallel workers, which change torch's process-wide thread
count: one such run at a time in a process."""

PARALLEL_MIN_BATCHES = 4
"""Fewer batches than this run one after another (threads would only add overhead)."""


def default_workers(num_batches: int) -> int:
    """Workers :func:`forward_batches` uses by default: 2 when torch has at least 2 threads
    and there are at least :data:`PARALLEL_MIN_BATCHES` batches, else 1."""
    return 2 if torch.get_num_threads() >= 2 and num_batches >= PARALLEL_MIN_BATCHES else 1


def forward_batches(
    model: Model,
    batches: Sequence[Batch],
    handle: Callable[[Batch, list[torch.Tensor]], None],
    precision: str = "float32",
    progress: Progress | None = None,
    workers: int | None = None,
) -> None:
    """Run every batch through the encoder and hand its ``layers + 1`` hidden states, each
    ``(batch, tokens, hidden)`` float32, to ``handle(batch, states)``.

    With ``workers > 1`` (default: :func:`default_workers`), that many threads take batches
    from a shared queue, each with ``threads // workers`` of torch's intra-op threads, so
    ``handle`` runs in those threads, in no fixed order (it must only write to its own
    batch's rows). On a 2-core machine two single-threaded workers were 1.05x faster than
    one two-threaded loop in float32 and 1.2x in bfloat16: small operations (attention on
    short texts, GELU, layer norm) parallelise badly inside one pass, and the workers skip
    that synchronisation. torch's thread count is process-wide, so it is lowered for the
    duration of the call only and restored afterwards, and one parallel run happens at a
    time (:data:`_PARALLEL`).

    ``progress(texts_done, total)`` is called after each batch from the calling thread
    (Streamlit elements can only be updated from there). An exception in a worker, in
    ``handle`` or in ``progress`` stops the workers after their current batch and is raised.
    """
    model.autocast(precision)  # validates precision
    total = sum(len(batch.indices) for batch in batches)
    workers = default_workers(len(batches)) if workers is None else int(workers)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}.")
    done = 0
    if workers == 1 or len(batches) < 2:
        with model.autocast(precision):  # one context: bf16 weights are cast once
            for batch in batches:
                handle(batch, model.layer_states(batch, precision))
                done += len(batch.indices)
                if progress is not None:
                    progress(done, total)
        return
    with _PARALLEL:
        threads = torch.get_num_threads()
        torch.set_num_threads(max(1, threads // workers))
        try:
            _run_workers(model, batches, handle, precision, progress, workers, total)
        finally:
            torch.set_num_threads(threads)


def _run_workers(
    model: Model,
    batches: Sequence[Batch],
    handle: Callable[[Batch, list[torch.Tensor]], None],
    precision: str,
    progress: Progress | None,
    workers: int,
    total: int,
) -> None:
    jobs: queue.SimpleQueue[Batch] = queue.SimpleQueue()
    for batch in batches:
        jobs.put(batch)
    finished: queue.SimpleQueue[int | BaseException] = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        try:
            with model.autocast(precision):  # per thread: bf16 weights cast once per worker
                while not stop.is_set():
                    try:
                        batch = jobs.get_nowait()
                    except queue.Empty:
                        return
                    handle(batch, model.layer_states(batch, precision, exclusive=False))
                    finished.put(len(batch.indices))
        except BaseException as error:  # noqa: BLE001 - handed to the calling thread
            finished.put(error)

    threads = [
        threading.Thread(target=work, name=f"embed-worker-{i}", daemon=True) for i in range(workers)
    ]
    for thread in threads:
        thread.start()
    try:
        done = 0
        for _ in batches:
            item = finished.get()
            if isinstance(item, BaseException):
                raise item
            done += item
            if progress is not None:
                progress(done, total)
    finally:
        stop.set()
        for thread in threads:
            thread.join()


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
    pooling: str = "mean",
    layers: LayerStrategy = "last",
    normalize: bool = False,
    exclude_special: bool = False,
    batch_size: int = 32,
) -> np.ndarray:
    """One vector per text: ``(len(texts), dim)`` float32.

    ``pooling`` is one of ``cls``, ``mean``, ``max``, ``mean_max`` (``2 * hidden`` wide);
    ``layers`` a layer strategy or layer number (``concat_last4`` makes it 4 times wider).
    Mean and max use the attention mask, so a text gives the same vector alone or in a
    batch. ``normalize`` scales rows to unit length; ``exclude_special`` leaves special tokens
    out of mean and max. Raises ``ValueError`` for an empty list or an unknown strategy.
    """
    validate_pooling(pooling)
    validate_strategy(layers, model.num_layers)
    corpus = embed_corpus(model, texts, exclude_special=exclude_special, max_batch_size=batch_size)
    return corpus.sentence(pooling, layers, normalize=normalize)
