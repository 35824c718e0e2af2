"""The Ray engine of ``explorer embed --engine ray``.

The writer (:mod:`explorer.store.writer`) reads the input and cuts the shards as for the
local engine; this engine turns the shards' texts into vectors on a pool of Ray actors
started once per run, each loading the model once (:class:`_Embedder`, checked against the
store's model fingerprint) and running :func:`explorer.store.engine.embed_texts`, the local
engine's function. The driver cuts the shards into blocks of at most :data:`BLOCK_ROWS`
texts (never spanning two shards), keeps two blocks queued on each actor (at most
:data:`WINDOW_ROWS` texts in flight), puts the rows that come back in place and hands each
shard to the writer as soon as all its rows are back. So the store, its shards and resuming
are the same whichever engine ran, and the vectors equal the local engine's within float
rounding; memory holds only the shards with rows in flight.

Why actors and not a Ray Data pipeline: the engine used one ``map_batches`` pipeline per
window of 65,536 texts, because Ray Data 2.60 has no public source fed by the driver that
streams (a read task's blocks are buffered until ``DataContext.target_max_block_size``,
128 MiB, or the task's end), and its actor pools live as long as one pipeline; so a large
corpus paid the actors' start-up (a new process importing torch and transformers and loading
the model: about 15 s each on a loaded 2-core machine) once per window.

Ray is optional (``pip install -r requirements-ray.txt``) and imported only here. Without an
address (``address=`` or ``RAY_ADDRESS``) a local Ray instance is started on this machine's
cores and stopped by :meth:`RayEngine.close`; with one, the job connects to that cluster and
ships the ``explorer`` package to its workers (which need the packages of
``requirements.txt`` and the model: a hub id they can download or a folder they can read).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from explorer.store.engine import Embedded, Job, Shards, ShardVectors

if TYPE_CHECKING:
    from explorer.model import Model

INSTALL = "pip install -r requirements-ray.txt"
BLOCK_ROWS = 256
"""Texts a Ray block (one ``map_batches`` call on an actor): small enough to share a shard
between the actors and to report progress often, large enough for batches of similar length
and a few milliseconds of Ray overhead per call."""
WINDOW_ROWS = 65_536
"""Texts in flight on the actors at most (besides the two blocks per actor)."""

_RAY_LOGGERS = ("ray", "ray.data")


def import_ray():
    """The ``ray`` module, or ``ValueError`` saying how to install it."""
    try:
        import ray
    except ImportError as error:
        raise ValueError(
            f"--engine ray needs Ray, which is not installed ({error}): {INSTALL}"
        ) from None
    return ray


def local_cpus() -> int:
    """CPUs this process may use (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


class RayEngine:
    """Embeds shards on a pool of Ray actors (see the module docstring).

    ``address``: a Ray cluster to connect to (default: ``RAY_ADDRESS``, else a local
    instance on :func:`local_cpus` CPUs; an instance already running in this process is
    used as it is). ``actors``: how many model copies embed at once (default: the cluster's
    CPUs // ``threads``); ``threads``: torch threads (and Ray CPUs)
    per actor: one by default, which on a 2-core machine mirrors the local engine's two
    single-threaded workers. ``quiet`` keeps Ray's logs off the terminal while the engine
    runs. Raises ``ValueError`` when Ray is not installed.
    Use it as a context manager or call :meth:`close`.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        actors: int | None = None,
        threads: int = 1,
        block_rows: int = BLOCK_ROWS,
        window_rows: int = WINDOW_ROWS,
        quiet: bool = True,
    ) -> None:
        self._ray = import_ray()
        for label, value in (("threads", threads), ("block_rows", block_rows),
                             ("window_rows", window_rows), ("actors", actors or 1)):  # fmt: skip
            if int(value) < 1:
                raise ValueError(f"{label} must be at least 1, not {value}.")
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.actors = actors
        self.threads = int(threads)
        self.block_rows = int(block_rows)
        self.window_rows = int(window_rows)
        self.quiet = quiet
        self._started = False
        self._saved: dict | None = None

    # -- Ray's lifetime -----------------------------------------------------------------

    def start(self) -> None:
        """Connect to (or start) Ray and quiet its loggers; done by the first embed."""
        ray = self._ray
        if self._saved is None:
            self._configure()
        if ray.is_initialized():
            return
        root = str(Path(__file__).resolve().parents[2])
        quiet = {"logging_level": logging.ERROR, "log_to_driver": False} if self.quiet else {}
        if self.address:
            package = str(Path(__file__).resolve().parents[1])
            env = {"py_modules": [package]}
            ray.init(address=self.address, runtime_env=env, **quiet)
        else:
            path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
            ray.init(
                num_cpus=local_cpus(),
                include_dashboard=False,
                ignore_reinit_error=True,
                runtime_env={"env_vars": {"PYTHONPATH": path}},
                **quiet,
            )
        self._started = True

    def close(self) -> None:
        """Stop the Ray instance this engine started (not one it found) and restore the log
        levels."""
        if self._started:
            self._ray.shutdown()
            self._started = False
        if self._saved is not None:
            for name, level in self._saved["levels"].items():
                logging.getLogger(name).setLevel(level)
            self._saved = None

    def __enter__(self) -> RayEngine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _configure(self) -> None:
        self._saved = {"levels": {name: logging.getLogger(name).level for name in _RAY_LOGGERS}}
        if self.quiet:
            for name in _RAY_LOGGERS:
                logging.getLogger(name).setLevel(logging.ERROR)

    def cluster_cpus(self) -> int:
        """CPUs of the Ray cluster (starting Ray if needed)."""
        self.start()
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    # -- embedding ----------------------------------------------------------------------

    def embed(self, model: Model, job: Job, shards: Shards) -> Embedded:
        """Yield ``(table, vectors)`` for each shard table, in order, as each completes.

        The actors start (and load the model) once per run: this process cuts the shards
        into blocks and keeps two blocks queued on each actor (at most :attr:`window_rows`
        texts in flight), so an actor never waits for the driver and the driver holds only
        the shards with rows in flight.
        """
        from explorer.store import format as fmt

        ray = self._ray
        self.start()
        count = self.actors or max(1, self.cluster_cpus() // self.threads)
        spec = {
            "name": model.name,
            "source": model.source,
            "fingerprint": fmt.model_fingerprint(model),
            "job": job,
            "threads": self.threads,
        }
        embedder = ray.remote(num_cpus=self.threads, max_restarts=0)(_Embedder)
        actors = [embedder.remote(**spec) for _ in range(count)]
        feed = _Feed(shards, self.block_rows, job, model.hidden_size)
        running: dict = {}  # result ref -> (actor, rows)
        queued = dict.fromkeys(range(count), 0)
        try:
            while True:
                for slot in sorted(queued, key=queued.get):  # the least busy actor first
                    while queued[slot] < 2 and feed.in_flight < self.window_rows:
                        block = feed.next_block()
                        if block is None:
                            break
                        ref = actors[slot].embed.remote(block)
                        running[ref] = slot
                        queued[slot] += 1
                if not running:
                    break
                [ref], _ = ray.wait(list(running), num_returns=1)
                queued[running.pop(ref)] -= 1
                batch = ray.get(ref)
                if batch["error"][0]:
                    raise ValueError(str(batch["error"][0]))
                feed.put(batch)
                yield from feed.complete()
                if shards.progress is not None:
                    shards.progress(feed.rows_back())
            feed.finish()
        finally:
            for actor in actors:
                ray.kill(actor)


class _Feed:
    """The driver's side of a run: reads the shard tables, cuts them into blocks of
    ``{"text", "row"}`` (store row numbers; a block never spans two shards) and puts each
    row that comes back in its shard's :class:`_Assembly` until the shard is complete.
    Holds only the shards with rows in flight."""

    def __init__(self, shards: Shards, block_rows: int, job: Job, hidden: int) -> None:
        self.tables = iter(shards.tables)
        self.text_column = shards.text_column
        self.block_rows = block_rows
        self.job = job
        self.hidden = hidden
        self.next_row = shards.first_row  # store row of the next shard's first text
        self.pending: list[tuple[int, pa.Table, _Assembly]] = []  # (first row, table, rows)
        self.current: tuple[pa.Array, int, int] | None = None  # texts, offset, first row
        self.in_flight = 0
        self.sent = 0
        self.done = 0  # rows back from the actors in this run
        self.handed = 0  # rows of the shards handed back (complete)
        self.ended = False
        self.error: Exception | None = None

    def next_block(self) -> pa.Table | None:
        """The next block to embed, or ``None`` at the end of the input. An error reading
        the input ends it too; it is raised after the shards before it (:meth:`finish`)."""
        if self.ended:
            return None
        while self.current is None:
            try:
                table = next(self.tables, None)
            except Exception as error:  # noqa: BLE001 - raised by finish(), in its turn
                self.error, self.ended = error, True
                return None
            if table is None:
                self.ended = True
                return None
            start, n = self.next_row, table.num_rows
            assembly = _Assembly(self.job.poolings, len(self.job.layers), n, self.hidden)
            self.pending.append((start, table, assembly))
            self.next_row += n
            if n:
                self.current = (table.column(self.text_column).combine_chunks(), 0, start)
        texts, offset, start = self.current
        piece = texts.slice(offset, self.block_rows)
        rows = np.arange(start + offset, start + offset + len(piece), dtype=np.int64)
        offset += len(piece)
        self.current = (texts, offset, start) if offset < len(texts) else None
        self.in_flight += len(piece)
        self.sent += len(piece)
        return pa.table({"text": piece, "row": rows})

    def put(self, batch: dict) -> None:
        """Place a batch of the actors' output rows in their shards."""
        rows = np.asarray(batch["row"], dtype=np.int64)
        starts = np.array([start for start, _, _ in self.pending], dtype=np.int64)
        owners = np.searchsorted(starts, rows, side="right") - 1
        if len(rows) and (owners.min() < 0 or rows.max() >= self.next_row):
            raise ValueError("The Ray actors returned rows that were not sent to them.")
        for owner in np.unique(owners):
            start, _, assembly = self.pending[owner]
            mine = owners == owner
            assembly.put(rows[mine] - start, batch, mine)
        self.in_flight -= len(rows)
        self.done += len(rows)

    def complete(self) -> Iterator[tuple[pa.Table, ShardVectors]]:
        """The leading shards whose rows are all back, in order (then forgotten)."""
        while self.pending and self.pending[0][2].complete:
            _, table, assembly = self.pending.pop(0)
            self.handed += table.num_rows
            yield table, assembly.vectors()

    def rows_back(self) -> int:
        """Rows of this run back from the actors with every row before them: what the
        progress reports, so it never goes back (the actors finish blocks in any order)."""
        if not self.pending:
            return self.handed
        filled = self.pending[0][2].filled
        return self.handed + int(filled.argmin() if not filled.all() else len(filled))

    def finish(self) -> None:
        """After the run: raise the input's error, or say that rows never came back."""
        if self.error is not None:
            raise self.error
        if self.pending or not self.ended:
            raise ValueError(
                f"The Ray actors returned {self.done:,} of {self.sent:,} rows; the store "
                "keeps the shards completed before it."
            )


class _Assembly:
    """One shard's arrays, filled as its rows come back from the actors."""

    def __init__(self, poolings: tuple[str, ...], layers: int, n: int, hidden: int) -> None:
        self.pooled = {p: np.empty((layers, n, hidden), dtype=np.float32) for p in poolings}
        self.num_tokens = np.zeros(n, dtype=np.int32)
        self.truncated = np.zeros(n, dtype=bool)
        self.filled = np.zeros(n, dtype=bool)

    def put(self, positions: np.ndarray, batch: dict, mine: np.ndarray) -> None:
        for name, array in self.pooled.items():
            array[:, positions] = np.asarray(batch[f"pooled_{name}"])[mine].transpose(1, 0, 2)
        self.num_tokens[positions] = batch["num_tokens"][mine]
        self.truncated[positions] = batch["truncated"][mine]
        self.filled[positions] = True

    @property
    def complete(self) -> bool:
        return bool(self.filled.all())

    def vectors(self) -> ShardVectors:
        return ShardVectors(self.pooled, self.num_tokens, self.truncated)


class _Embedder:
    """A Ray actor: loads the model once, then embeds blocks of texts with
    :func:`explorer.store.engine.embed_texts` on ``threads`` torch threads.

    A ``ValueError`` (a model this worker cannot load or that differs from the driver's, a
    text the model cannot read) is returned in the ``error`` column rather than raised, so
    the driver raises it with its message as it is, not wrapped in Ray's task errors.
    """

    def __init__(self, name: str, source: str, fingerprint: str, job: Job, threads: int) -> None:
        import torch

        from explorer.model import load_model
        from explorer.store.format import model_fingerprint

        torch.set_num_threads(threads)
        self.job = job
        self.error = ""
        try:
            # A folder the driver loaded is used if this worker sees it; else the name (a
            # hub id or the bundled model) is resolved here.
            self.model = load_model(source if Path(source).is_dir() else name)
        except ValueError as error:
            self.error = f"A Ray worker could not load the model: {error}"
            return
        if model_fingerprint(self.model) != fingerprint:
            self.error = (
                f"A Ray worker loaded a different copy of {name!r} than this machine "
                "(other weights or configuration); give every worker the same model."
            )

    def embed(self, block: pa.Table) -> dict[str, np.ndarray]:
        """``{"text", "row"}`` -> ``{"row", "error", "num_tokens", "truncated",
        "pooled_<name>"}``; pooled vectors ``(rows, layers, hidden)`` float32, ``error``
        ``""`` on every row or the message of the block's ``ValueError`` (then the vectors
        are zeros)."""
        from explorer.store.engine import embed_texts

        rows = block.column("row").to_numpy()
        texts = [str(text) for text in block.column("text").to_pylist()]
        error = self.error
        if not error:
            try:
                vectors = embed_texts(self.model, texts, self.job, workers=1)
            except ValueError as failed:
                error = f"In rows {rows[0] + 1}-{rows[-1] + 1}: {failed}"
        if error:
            return self._failed(rows, error)
        out = {
            "row": rows,
            "error": np.full(len(rows), "", dtype=object),
            "num_tokens": vectors.num_tokens,
            "truncated": vectors.truncated,
        }
        for name, values in vectors.pooled.items():
            out[f"pooled_{name}"] = np.ascontiguousarray(values.transpose(1, 0, 2))
        return out

    def _failed(self, rows: np.ndarray, error: str) -> dict[str, np.ndarray]:
        n = len(rows)
        hidden = self.model.hidden_size if hasattr(self, "model") else 1
        out = {
            "row": rows,
            "error": np.full(n, error, dtype=object),
            "num_tokens": np.zeros(n, dtype=np.int32),
            "truncated": np.zeros(n, dtype=bool),
        }
        for name in self.job.poolings:
            out[f"pooled_{name}"] = np.zeros((n, len(self.job.layers), hidden), np.float32)
        return out
