"""``explorer embed``: a corpus file into a store, resumable, with a progress bar."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from explorer.cli._common import duration, say, size_text


def embed(args: argparse.Namespace) -> int:
    if args.engine != "ray" and (args.ray_address or args.ray_actors is not None):
        raise ValueError("--ray-address and --ray-actors go with --engine ray.")
    if args.ray_actors is not None and args.ray_actors < 1:
        raise ValueError(f"--ray-actors must be at least 1, not {args.ray_actors}.")
    if args.batch_tokens is not None and args.batch_tokens < 1:
        raise ValueError(f"--batch-tokens must be at least 1, not {args.batch_tokens}.")
    from explorer.data.store.inputs import inspect_input

    # cheap checks first, so a typo or a binary file fails before torch and the model load
    inspect_input(args.input, args.text_column, args.label_column)
    from explorer.data.store.writer import Settings, parse_poolings
    from explorer.model.batching import MAX_BATCH_TOKENS

    if args.batch_tokens is None:
        args.batch_tokens = MAX_BATCH_TOKENS
    settings = Settings(
        poolings=parse_poolings(args.pooling),
        layers=args.layers,
        dtype=args.dtype,
        precision=args.precision,
        limit=args.limit,
        shard_rows=args.shard_rows,
    )
    engine = _engine(args)  # before the model: Ray missing fails at once
    try:
        return _run_embed(args, settings, engine)
    finally:
        engine.close()


def _engine(args: argparse.Namespace):
    """The engine object of ``--engine`` (closed by the caller)."""
    if args.engine == "local":
        from explorer.data.store.engine import LocalEngine

        return LocalEngine()
    from explorer.data.store.ray_engine import RayEngine

    # The Ray core's C++ logs (one warning per actor pool) would break the progress bar;
    # RAY_BACKEND_LOG_LEVEL=info brings them back.
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    return RayEngine(args.ray_address, actors=args.ray_actors)


def _run_embed(args: argparse.Namespace, settings, engine) -> int:
    from explorer.data.store.writer import embed_to_store
    from explorer.model import load_model

    model = load_model(args.model)
    bar = None if args.quiet else Bar()
    start = time.perf_counter()
    first = []

    def progress(state) -> None:
        if not first:
            first.append(state.rows)
            if state.kept is not None and not args.quiet:
                say(_resuming(args.out, state.kept), error=True)
        if bar is not None:
            bar.update(state)

    try:
        manifest = embed_to_store(
            model, args.input, args.out, settings, text_column=args.text_column,
            label_column=args.label_column, batch_tokens=args.batch_tokens, progress=progress,
            engine=engine,
        )  # fmt: skip
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        say(f"\nexplorer embed: interrupted; {_kept(args.out)}", error=True)
        return 130
    finally:
        if bar is not None:
            bar.close()
    if not args.quiet:
        say(_summary(args, manifest, first[0] if first else None, start))
    return 0


def _resuming(out: str, kept: int) -> str:
    if kept:
        return f"Resuming {out}: {kept:,} texts were kept from an earlier run; going on from there."
    return f"Starting {out} over: the earlier run kept no texts (none of its shards was complete)."


def _kept(out: str) -> str:
    """What an interrupted run leaves: how many texts are kept, and how to go on."""
    from explorer.data.store.format import read_manifest

    try:
        rows = read_manifest(out)["rows"]
    except ValueError:
        rows = 0
    if not rows:
        return (
            f"no texts were kept in {out} (no shard was complete). Run the same command to "
            "start again."
        )
    return (
        f"{rows:,} texts are kept in {out} (every complete shard). Run the same command again "
        f"to resume from text {rows + 1:,}."
    )


def _summary(args: argparse.Namespace, manifest: dict, first: int | None, start: float) -> str:
    """The line printed when ``explorer embed`` is done."""
    from explorer.model.tokenization import MAX_CHARS

    if first is None:
        return f"{args.out} is already complete: {manifest['rows']:,} texts, nothing to embed."
    seconds = time.perf_counter() - start
    new = manifest["rows"] - first
    size = sum(f.stat().st_size for f in Path(args.out).rglob("*") if f.is_file())
    resumed = f", resumed after {first:,}" if first else ""
    skipped = f", {manifest['skipped']:,} blank skipped" if manifest.get("skipped") else ""
    on = " on Ray" if args.engine == "ray" else ""
    truncated, long = "", manifest.get("long", 0)
    if manifest.get("truncated"):
        over = f", {long:,} of them over {MAX_CHARS:,} characters (cut first)" if long else ""
        truncated = (
            f"\nTruncated to {manifest['tokenizer']['max_length']} tokens (all the model "
            f"reads): {manifest['truncated']:,} texts{over}."
        )
    return (
        f"Embedded {manifest['rows']:,} texts{resumed}{skipped} in {duration(seconds)} "
        f"({new / max(seconds, 1e-9):,.0f} texts/s{on}) with {manifest['model']['name']}: "
        f"{len(manifest['poolings'])} poolings x {len(manifest['layers'])} layers, "
        f"{manifest['dtype']}, {size_text(size)} in {args.out}{truncated}"
    )


class Bar:
    """A tqdm bar over the texts embedded, with texts/s, time left (when the total is known)
    and how many are saved (committed: what an interruption would keep)."""

    def __init__(self) -> None:
        self._bar = None

    def update(self, state) -> None:
        from tqdm import tqdm

        if self._bar is None:
            self._bar = tqdm(
                desc="Embedding",
                total=state.total,
                initial=state.rows,
                unit=" texts",
                dynamic_ncols=True,
                file=sys.stderr,
            )
        if state.total is not None and state.rows > self._bar.total:
            self._bar.total = state.rows
        self._bar.set_postfix_str(f"{state.saved:,} saved", refresh=False)
        self._bar.update(state.rows - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
