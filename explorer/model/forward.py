"""Batched forward passes: the one loop that runs batches through the encoder.

:func:`forward_batches` owns every multi-batch pass (corpus embeddings, hidden states of many
texts, probes, heads): sequentially, or on parallel workers that share the batches.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import torch

from explorer.model.batching import Batch


class Encoder(Protocol):
    """What :func:`forward_batches` needs of :class:`explorer.model.encoder.Model` (which
    calls it: a protocol keeps this module below the encoder, not beside it)."""

    def autocast(self, precision: str) -> contextlib.AbstractContextManager: ...

    def layer_states(
        self, batch: Batch, precision: str = "float32", exclusive: bool = True
    ) -> list[torch.Tensor]: ...


Progress = Callable[[int, int], None]
"""``progress(texts_done, total)``, called after each batch."""

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
    model: Encoder,
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
    model: Encoder,
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
