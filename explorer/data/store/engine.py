"""Engines: what turns the texts of a store's shards into their vectors.

An engine runs :func:`explorer.data.store.jobs.embed_texts` (the one function that embeds texts
the store's way) over a stream of shards and hands each shard back with its vectors, in
order; the writer (:mod:`explorer.data.store.writer`) owns everything else (reading, shard
boundaries, files, manifest, resume), so every engine writes the same store. What the engines
share (the job, the shards, the vectors, the protocol) is :mod:`explorer.data.store.jobs`'s.

- :class:`LocalEngine`: this process, on :func:`~explorer.model.forward.forward_batches`'s threads.
- :class:`explorer.data.store.ray_engine.RayEngine`: Ray Data actors, each with its own model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.data.store.jobs import Embedded, Engine, Job, Shards, embed_texts

if TYPE_CHECKING:
    from explorer.model import Model

ENGINES = ("local", "ray")


class LocalEngine:
    """Embeds each shard in this process with :func:`embed_texts` on ``workers`` threads
    (``None``: :func:`explorer.model.forward.default_workers`)."""

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers

    def embed(self, model: Model, job: Job, shards: Shards) -> Embedded:
        """Yield ``(table, vectors)`` for each shard table, embedding one shard at a time."""
        progress = shards.progress
        done = 0
        for table in shards.tables:
            texts = table.column(shards.text_column).to_pylist()

            def step(rows: int, _total: int, base: int = done) -> None:
                if progress is not None:
                    progress(base + rows)

            try:
                vectors = embed_texts(model, texts, job, step, self.workers)
            except ValueError as error:
                first = shards.first_row + done
                raise ValueError(f"In rows {first + 1}-{first + len(texts)}: {error}") from None
            done += len(texts)
            yield table, vectors

    def close(self) -> None:
        """Nothing to release."""


def make_engine(name: str, **options) -> Engine:
    """The engine called ``name`` (one of :data:`ENGINES`); ``options`` go to its
    constructor. Raises ``ValueError`` for an unknown name, or for ``"ray"`` when Ray is not
    installed (saying how to install it)."""
    if name == "local":
        return LocalEngine(**options)
    if name == "ray":
        from explorer.data.store.ray_engine import RayEngine

        return RayEngine(**options)
    raise ValueError(f"Unknown engine {name!r}; choose one of {', '.join(ENGINES)}.")
