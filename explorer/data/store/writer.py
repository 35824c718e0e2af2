"""Embedding a corpus file into a store, shard by shard, resumable.

:func:`embed_to_store` reads the input in chunks (:mod:`explorer.data.store.inputs`), cuts it into
shards (:mod:`explorer.data.store.slicing`: sized to commit every few seconds, at most
``shard_rows`` texts), has an engine (:mod:`explorer.data.store.engine`: this process, or
Ray Data actors) embed them with :func:`explorer.data.store.jobs.embed_texts`
(:func:`explorer.model.forward.forward_batches` and the masked poolings of
:func:`explorer.pooling.pool_hidden`, as :func:`explorer.embed_corpus` does), and writes each
shard's rows to a temporary folder that is renamed when complete and appends its vectors to
one file per pooling and layer (:class:`explorer.data.store.shards.ShardWriter`); then the manifest
lists it. Memory holds one shard's vectors, whatever the corpus size, and each vector is
written once. Run again with the same settings (with either engine), it checks the complete
shards against the input and their recorded digests, skips their rows and goes on; with other
settings, or rows that are not where they were committed, it refuses. One run at a time
writes a store (:mod:`explorer.data.store.lock`). When the input is exhausted the vector files get
their final headers and the store is complete.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from explorer.data.store import schema
from explorer.data.store.engine import make_engine
from explorer.data.store.format import (
    FORMAT_VERSION,
    MANIFEST,
    SETTINGS,
    model_fingerprint,
    now,
    read_manifest,
    write_manifest,
)
from explorer.data.store.inputs import InputInfo, inspect_input
from explorer.data.store.jobs import Engine, Job, Shards
from explorer.data.store.lock import LOCK_FILE, lock_store
from explorer.data.store.shards import ShardWriter
from explorer.data.store.slicing import ShardSizer, check_kept, shard_tables
from explorer.model import Model
from explorer.model.batching import MAX_BATCH_TOKENS
from explorer.pooling import BASE_POOLINGS

SHARD_BYTES = 128 << 20
"""Default shard size in bytes of float32 vectors (all stored poolings and layers): a shard's
vectors are held in memory while it is embedded."""


@dataclass(frozen=True)
class Settings:
    """What an ``explorer embed`` run stores: the poolings (of ``cls``, ``mean``, ``max``), the
    layers (``"all"``, ``"last"`` or layer numbers), the stored dtype, the forward-pass
    precision, the most rows to embed (``None``: all) and the rows per shard (``None``: sized
    by time, :class:`explorer.data.store.slicing.ShardSizer`, up to about :data:`SHARD_BYTES` of
    vectors)."""

    poolings: tuple[str, ...] = BASE_POOLINGS
    layers: str | Sequence[int] = "all"
    dtype: str = "float32"
    precision: str = "float32"
    limit: int | None = None
    shard_rows: int | None = None


@dataclass(frozen=True)
class Progress:
    """Where a run is: rows done (of about ``total``), shards complete, rows skipped as blank,
    and the rows an earlier run of this store committed (``kept``: this run resumes after
    them; ``None``: a new store)."""

    rows: int
    total: int | None
    shards: int
    skipped: int
    kept: int | None = None
    saved: int = 0
    """Rows committed to disk so far (what an interruption now would keep)."""


def parse_poolings(value: str | Sequence[str]) -> tuple[str, ...]:
    """``"mean,cls"`` or a list -> the base poolings in :data:`BASE_POOLINGS` order."""
    names = [v.strip() for v in value.split(",")] if isinstance(value, str) else list(value)
    names = [n for n in names if n]
    for name in names:
        if name not in BASE_POOLINGS:
            hint = " (it is computed from mean and max)" if name == "mean_max" else ""
            raise ValueError(
                f"Unknown pooling {name!r} to store{hint}; choose from {', '.join(BASE_POOLINGS)}."
            )
    if not names:
        raise ValueError(f"Give at least one pooling to store: {', '.join(BASE_POOLINGS)}.")
    return tuple(p for p in BASE_POOLINGS if p in names)


def parse_layers(value: str | Sequence[int], num_layers: int) -> list[int]:
    """``"all"``, ``"last"``, ``"0,3,6"`` (negative numbers count from the end) or a list of
    ints -> sorted distinct layer indices in ``0..num_layers``."""
    if isinstance(value, str):
        value = value.strip()
        if value == "all":
            return list(range(num_layers + 1))
        if value == "last":
            return [num_layers]
        try:
            value = [int(v) for v in value.split(",") if v.strip()]
        except ValueError:
            raise ValueError(
                f"--layers must be 'all', 'last' or layer numbers like '0,3,6'; got {value!r}."
            ) from None
    layers = set()
    for layer in value:
        if isinstance(layer, bool) or not -(num_layers + 1) <= int(layer) <= num_layers:
            raise ValueError(
                f"Layer {layer} is out of range: this model has layers 0 (embeddings) to "
                f"{num_layers}."
            )
        layers.add(int(layer) % (num_layers + 1))
    if not layers:
        raise ValueError("Give at least one layer to store.")
    return sorted(layers)


def default_shard_rows(model: Model, poolings: Sequence[str], layers: Sequence[int]) -> int:
    """Rows per shard so that its float32 vectors take about :data:`SHARD_BYTES` (256 to
    16,384 rows, a multiple of 256)."""
    per_row = 4 * model.hidden_size * len(poolings) * len(layers)
    return int(min(16384, max(256, SHARD_BYTES // per_row // 256 * 256)))


def embed_to_store(
    model: Model,
    source: str | os.PathLike,
    out: str | os.PathLike,
    settings: Settings = Settings(),
    *,
    text_column: str | None = None,
    label_column: str | None = None,
    batch_tokens: int = MAX_BATCH_TOKENS,
    workers: int | None = None,
    progress: Callable[[Progress], None] | None = None,
    on_shard: Callable[[int], None] | None = None,
    engine: str | Engine = "local",
) -> dict:
    """Embed the texts of ``source`` (CSV, TSV, JSONL, Parquet, plain text) into the store
    folder ``out``; return its manifest.

    ``out`` is created, or resumed when it holds an unfinished store made with the same model,
    input and settings whose kept shards check out (a complete one is returned as it is).
    The run holds ``out``'s lock (:func:`explorer.data.store.lock.lock_store`): a second run on
    the same folder is refused, naming the process that holds it. ``progress(Progress)`` is called
    after every batch, ``on_shard(index)`` after every shard is complete. Blank texts are
    skipped (and counted in the manifest's ``skipped``). Raises ``ValueError`` for a bad
    input or setting, an ``out`` folder that is not a store or a store made differently
    (saying what differs).

    ``engine`` embeds the shards: ``"local"`` (this process, on ``workers`` threads),
    ``"ray"`` (:class:`explorer.data.store.ray_engine.RayEngine` with its defaults; started here
    and stopped at the end) or an engine object, which the caller closes. Every engine gives
    the same shards and vectors (within float rounding), so a store started by one can be
    resumed by another; each shard's manifest entry says which engine made it.
    """
    out = Path(out)
    info = inspect_input(source, text_column, label_column)
    poolings = parse_poolings(settings.poolings)
    layers = parse_layers(settings.layers, model.num_layers)
    if settings.dtype not in schema.STORED_DTYPES:
        raise ValueError(f"Unknown dtype {settings.dtype!r}; choose one of {schema.STORED_DTYPES}.")
    model.autocast(settings.precision)  # validates the precision
    if settings.limit is not None and settings.limit < 1:
        raise ValueError(f"--limit must be at least 1, not {settings.limit}.")
    shard_rows = settings.shard_rows or default_shard_rows(model, poolings, layers)
    if shard_rows < 1:
        raise ValueError(f"shard_rows must be at least 1, not {shard_rows}.")
    wanted = {
        "format": schema.FORMAT,
        "format_version": FORMAT_VERSION,
        "model": {
            "name": model.name,
            "fingerprint": model_fingerprint(model),
            "model_type": model.model_type,
            "num_layers": model.num_layers,
            "hidden_size": model.hidden_size,
        },
        "tokenizer": {"max_length": model.max_length, "lowercase": model.lowercase},
        "input": info.identity(),
        "poolings": list(poolings),
        "layers": layers,
        "dtype": settings.dtype,
        "precision": settings.precision,
        "exclude_special": False,
        "limit": settings.limit,
        "shard_rows": shard_rows,
    }
    if batch_tokens < 1:
        raise ValueError(f"batch_tokens must be at least 1, not {batch_tokens}.")
    _prepare(out)
    if isinstance(engine, str):
        owned = make_engine(engine, **({"workers": workers} if engine == "local" else {}))
    else:
        owned = None
    try:
        with lock_store(out):
            return _embed(
                model, out, wanted, info, settings, owned or engine, batch_tokens, progress,
                on_shard,
            )  # fmt: skip
    finally:
        if owned is not None:
            owned.close()


def _embed(
    model: Model,
    out: Path,
    wanted: dict,
    info: InputInfo,
    settings: Settings,
    engine: Engine,
    batch_tokens: int,
    progress: Callable[[Progress], None] | None,
    on_shard: Callable[[int], None] | None,
) -> dict:
    manifest, kept = _start(out, wanted)
    if manifest["complete"]:
        return manifest
    writer = ShardWriter(model, out, manifest, engine.name)
    check_kept(info, settings.limit, manifest["shards"], str(out))
    start = done = manifest["rows"]
    total = _total(info, settings.limit)
    state = {"skipped": 0, "index": len(manifest["shards"])}
    report = progress or (lambda _: None)
    report(Progress(done, total, state["index"], 0, kept, done))
    # --shard-rows given: shards of that size; else sized by time, under the memory cap
    sizer = ShardSizer(manifest["shard_rows"], by_time=settings.shard_rows is None)

    def tables() -> Iterator[pa.Table]:
        for table, blank in shard_tables(info, start, settings.limit, sizer):
            state["skipped"] += blank
            if table is not None:
                yield table

    def step(rows: int) -> None:
        sizer.embedded(rows)
        report(Progress(start + rows, total, state["index"], state["skipped"], kept, done))

    job = Job(tuple(manifest["poolings"]), tuple(manifest["layers"]), manifest["precision"],
              batch_tokens)  # fmt: skip
    shards = engine.embed(model, job, Shards(tables(), info.text_column, start, step))
    try:
        for table, vectors in shards:
            index = state["index"]
            writer.write(index, table, vectors)
            done += table.num_rows
            state["index"] = index + 1
            report(Progress(done, total, index + 1, state["skipped"], kept, done))
            if on_shard is not None:
                on_shard(index)
    finally:
        shards.close()  # an engine may hold workers until its stream is closed
    if done == 0:
        raise ValueError(f"{info.path} has no texts (every row is empty or blank).")
    return writer.finish(state["skipped"])


def _total(info: InputInfo, limit: int | None) -> int | None:
    from explorer.data.store.inputs import estimate_rows

    try:
        total = estimate_rows(info)
    except OSError:
        total = None
    if limit is not None:
        total = limit if total is None else min(total, limit)
    return total


def _prepare(out: Path) -> None:
    """Check that ``out`` is a store, an empty folder or nothing yet; create the folder."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a folder.")
    if out.exists() and not (out / MANIFEST).exists():
        if any(f.name != LOCK_FILE for f in out.iterdir()):
            raise ValueError(
                f"{out} is a folder with files but no {MANIFEST}: not a corpus store. "
                "Give a new or empty folder for --out."
            )
    out.mkdir(parents=True, exist_ok=True)


def _start(out: Path, wanted: dict) -> tuple[dict, int | None]:
    """The manifest to go on from and the rows an earlier run committed (``None``: a new
    store): a new manifest, or the existing one after checking it matches."""
    if (out / MANIFEST).exists():
        manifest = read_manifest(out)
        for key in SETTINGS:
            if manifest[key] != wanted[key]:
                raise ValueError(_mismatch(out, key, manifest[key], wanted[key]))
        return manifest, manifest["rows"]
    manifest = {
        **wanted,
        "rows": 0,
        "skipped": 0,
        "shards": [],
        "complete": False,
        "created": now(),
        "vectors": {},
        "projections": [],
    }
    write_manifest(out, manifest)
    return manifest, None


def _mismatch(out: Path, key: str, stored, wanted) -> str:
    if key == "model":
        if stored["name"] != wanted["name"]:
            what = f"model {stored['name']!r}, not {wanted['name']!r}"
        else:
            what = f"a different copy of {stored['name']!r} (other weights or configuration)"
    elif key == "input":
        changed = [
            k
            for k in ("name", "size", "mtime_ns", "text_column", "label_column")
            if stored.get(k) != wanted.get(k)
        ]
        what = f"input {stored['name']!r} (differs in {', '.join(changed)})"
    else:
        what = f"{key} {stored!r}, not {wanted!r}"
    return (
        f"{out} holds a store made with {what}: it cannot be resumed with these settings. "
        "Rerun with the same settings, or give another --out folder."
    )
