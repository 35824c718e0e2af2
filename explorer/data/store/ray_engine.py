"""The Ray Data engine of ``explorer embed --engine ray``.

The writer (:mod:`explorer.data.store.writer`) reads the input and cuts the shards as for the
local engine; this engine turns each shard's texts into vectors with a Ray Data pipeline:
the shards of a window (about :data:`WINDOW_ROWS` texts) become blocks of at most
:data:`BLOCK_ROWS` texts (never spanning two shards), ``map_batches`` sends them to a fixed
pool of actors that each load the model once (:class:`_Embedder`, checked against the
store's model fingerprint) and run :func:`explorer.data.store.jobs.embed_texts`, the local
engine's function, and the driver puts the rows back in place and hands each shard to the
writer as soon as all its rows are back. So the store, its shards and resuming are the
same whichever engine ran, and the vectors equal the local engine's within float rounding.

Ray is optional (``pip install -r requirements-ray.txt``) and imported only here. Without an
address (``address=`` or ``RAY_ADDRESS``) a local Ray instance is started on this machine's
cores and stopped by :meth:`RayEngine.close`; with one, the job connects to that cluster and
ships the ``explorer`` package to its workers (which need the packages of
``requirements.txt`` and the model: a hub id they can download or a folder they can read).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from explorer.data.store.jobs import Embedded, Job, RowsDone, Shards, ShardVectors

if TYPE_CHECKING:
    from explorer.model import Model

INSTALL = "pip install -r requirements-ray.txt"
BLOCK_ROWS = 2048
"""Texts a Ray block (one ``map_batches`` call on an actor): half a default shard of the
bundled model, so two actors share a shard and progress is reported every few seconds, and
large enough that batching by length wastes little padding and Ray's cost per call (scheduling,
moving 64 MB of vectors through the object store) is small. 20,000 texts on a 2-core machine
(``python -m bench.ray_engine --texts 20000 --block-rows N``, one run each): 256 rows 0.64x the
local engine end to end (0.72x once the actors ran), 1,024 rows 0.79x (1.04x), 2,048 rows
0.80x (1.14x)."""
WINDOW_ROWS = 262_144
"""Texts (whole shards) given to one Ray Data pipeline: its actors load the model once, so
larger windows start actors less often (a million texts start them four times, about 30 s
each on a 2-core machine against hours of embedding); the driver holds only these rows' texts
(tens of MB), and the vectors come back in order (``preserve_order``), so at most a shard or
two of them wait for the writer."""

_PIPELINE_LOGGERS = ("ray", "ray.data")


def import_ray():
    """The ``ray`` module with Ray Data, or ``ValueError`` saying how to install it."""
    try:
        import ray
        import ray.data  # noqa: F401 - the [data] extra
    except ImportError as error:
        raise ValueError(
            f"--engine ray needs Ray Data, which is not installed ({error}): {INSTALL}"
        ) from None
    return ray


def local_cpus() -> int:
    """CPUs this process may use (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


class RayEngine:
    """Embeds shards on a pool of Ray Data actors (see the module docstring).

    ``address``: a Ray cluster to connect to (default: ``RAY_ADDRESS``, else a local
    instance on :func:`local_cpus` CPUs; an instance already running in this process is
    used as it is). ``actors``: how many model copies embed at once (default: the cluster's
    CPUs // ``threads``, at most one per block); ``threads``: torch threads (and Ray CPUs)
    per actor: one by default, which on a 2-core machine mirrors the local engine's two
    single-threaded workers. ``quiet`` keeps Ray's and Ray Data's logs and progress bars off
    the terminal while the engine runs. Raises ``ValueError`` when Ray is not installed.
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
        """Connect to (or start) Ray and set Ray Data's options; done by the first embed."""
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
        """Stop the Ray instance this engine started (not one it found) and restore Ray
        Data's options and log levels."""
        if self._started:
            self._ray.shutdown()
            self._started = False
        if self._saved is not None:
            context = self._ray.data.DataContext.get_current()
            context.execution_options.preserve_order = self._saved["preserve_order"]
            context.enable_progress_bars = self._saved["progress_bars"]
            context.print_on_execution_start = self._saved["print_on_start"]
            for name, level in self._saved["levels"].items():
                logging.getLogger(name).setLevel(level)
            self._saved = None

    def __enter__(self) -> RayEngine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _configure(self) -> None:
        context = self._ray.data.DataContext.get_current()
        self._saved = {
            "preserve_order": context.execution_options.preserve_order,
            "progress_bars": context.enable_progress_bars,
            "print_on_start": context.print_on_execution_start,
            "levels": {name: logging.getLogger(name).level for name in _PIPELINE_LOGGERS},
        }
        # Blocks come back in the order they went in, so shards complete one after another
        # (rows are also placed by their row number, so order is never trusted blindly).
        context.execution_options.preserve_order = True
        if self.quiet:
            context.enable_progress_bars = False
            context.print_on_execution_start = False
            for name in _PIPELINE_LOGGERS:
                logging.getLogger(name).setLevel(logging.ERROR)

    def cluster_cpus(self) -> int:
        """CPUs of the Ray cluster (starting Ray if needed)."""
        self.start()
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    # -- embedding ----------------------------------------------------------------------

    def embed(self, model: Model, job: Job, shards: Shards) -> Embedded:
        """Yield ``(table, vectors)`` for each shard table, in order, as each completes."""
        from explorer.data.store.format import model_fingerprint

        self.start()
        actors = self.actors or max(1, self.cluster_cpus() // self.threads)
        spec = {
            "name": model.name,
            "source": model.source,
            "fingerprint": model_fingerprint(model),
            "job": job,
            "threads": self.threads,
        }
        done = 0
        for window in _windows(shards.tables, self.window_rows):
            for table, vectors in self._window(
                model,
                spec,
                window,
                shards.text_column,
                shards.first_row + done,
                actors,
                shards.progress,
                done,
            ):
                done += table.num_rows
                yield table, vectors

    def _window(
        self,
        model: Model,
        spec: dict,
        window: list[pa.Table],
        text_column: str,
        first_row: int,
        actors: int,
        progress: RowsDone | None,
        before: int,
    ) -> Iterator[tuple[pa.Table, ShardVectors]]:
        """One Ray Data pipeline over the shards of ``window`` (global rows from
        ``first_row``)."""
        ray = self._ray
        blocks = []
        starts = []  # global first row of each shard
        row = first_row
        for table in window:
            starts.append(row)
            texts = table.column(text_column).combine_chunks()
            for offset in range(0, table.num_rows, self.block_rows):
                piece = texts.slice(offset, self.block_rows)
                rows = np.arange(row + offset, row + offset + len(piece), dtype=np.int64)
                blocks.append(pa.table({"text": piece, "row": rows}))
            row += table.num_rows
        dataset = ray.data.from_arrow(blocks).map_batches(
            _Embedder,
            fn_constructor_kwargs=spec,
            compute=ray.data.ActorPoolStrategy(size=min(actors, len(blocks))),
            batch_size=None,  # one block a call: blocks are cut to BLOCK_ROWS above
            batch_format="numpy",
            num_cpus=self.threads,
            udf_modifying_row_count=False,
        )
        layers, hidden = len(spec["job"].layers), model.hidden_size
        pending: dict[int, _Assembly] = {}
        next_shard = 0
        done = 0
        batches = dataset.iter_batches(batch_size=None, batch_format="numpy")
        try:
            for batch in batches:
                if batch["error"][0]:
                    raise ValueError(str(batch["error"][0]))
                rows = np.asarray(batch["row"], dtype=np.int64)
                shards = np.searchsorted(starts, rows, side="right") - 1
                for shard in np.unique(shards):
                    if shard not in pending:
                        n = window[shard].num_rows
                        pending[shard] = _Assembly(spec["job"].poolings, layers, n, hidden)
                    mine = shards == shard
                    pending[shard].put(rows[mine] - starts[shard], batch, mine)
                done += len(rows)
                if progress is not None:
                    progress(before + done)
                while next_shard in pending and pending[next_shard].complete:
                    yield window[next_shard], pending.pop(next_shard).vectors()
                    next_shard += 1
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()
        if next_shard != len(window):
            raise ValueError(
                f"The Ray pipeline returned {done:,} of {sum(t.num_rows for t in window):,} "
                "rows; the store keeps the shards completed before it."
            )


def _windows(tables: Iterable[pa.Table], window_rows: int) -> Iterator[list[pa.Table]]:
    """Whole shards, grouped until a group holds at least ``window_rows`` rows."""
    window: list[pa.Table] = []
    rows = 0
    for table in tables:
        window.append(table)
        rows += table.num_rows
        if rows >= window_rows:
            yield window
            window, rows = [], 0
    if window:
        yield window


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
    """A Ray Data actor: loads the model once, then embeds blocks of texts with
    :func:`explorer.data.store.jobs.embed_texts` on ``threads`` torch threads.

    A ``ValueError`` (a model this worker cannot load or that differs from the driver's, a
    text the model cannot read) is returned in the ``error`` column rather than raised, so
    the driver raises it with its message as it is, not wrapped in Ray's task errors.
    """

    def __init__(self, name: str, source: str, fingerprint: str, job: Job, threads: int) -> None:
        import torch

        from explorer.data.store.format import model_fingerprint
        from explorer.model import load_model

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

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``{"text", "row"}`` -> ``{"row", "error", "num_tokens", "truncated",
        "pooled_<name>"}``; pooled vectors ``(rows, layers, hidden)`` float32, ``error``
        ``""`` on every row or the message of the block's ``ValueError`` (then the vectors
        are zeros)."""
        from explorer.data.store.jobs import embed_texts

        rows = np.asarray(batch["row"], dtype=np.int64)
        texts = [str(text) for text in batch["text"]]
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
