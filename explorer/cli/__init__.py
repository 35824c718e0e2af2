"""The ``explorer`` command line: embed a corpus file into a store, describe, project, search.

    explorer embed INPUT --out DIR [--model NAME --pooling mean,cls,max --layers all ...]
    explorer embed INPUT --out DIR --engine ray [--ray-address ADDR --ray-actors N]
    explorer info DIR
    explorer project DIR --method pca|umap|tsne [--pooling mean --layer last --sample N]
    explorer search DIR "query" [-k 10 --pooling mean --layer last]

Also ``python -m explorer ...``. Errors print one line on stderr and exit with status 2
(never a traceback); an interrupted ``embed`` says how to resume and exits with 130.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from explorer.layers import LAYER_CHOICES

ENGINES = ("local", "ray")
PRECISIONS = ("float32", "bfloat16")
"""As :data:`explorer.model.PRECISIONS`, spelled out so that ``info`` and ``--help`` answer
without importing torch (a test checks they agree)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.run(args)
    except ValueError as error:
        print(f"explorer {args.command}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"explorer {args.command}: error: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="explorer", description="Embed a corpus into a store the explorer opens."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    embed = sub.add_parser(
        "embed",
        help="embed a CSV/TSV/JSONL/Parquet/text file into a store (resumable)",
        description="Embed every text of INPUT with every chosen pooling and layer into the "
        "store folder DIR. Rerun the same command to resume an interrupted run.",
    )
    embed.add_argument("input", help="a .csv, .tsv, .jsonl, .parquet or .txt (one text a line)")
    embed.add_argument("--out", required=True, metavar="DIR", help="the store folder")
    embed.add_argument("--text-column", help="column with the texts (default: 'text')")
    embed.add_argument("--label-column", help="column with labels (default: 'label' if any)")
    embed.add_argument("--model", help="Hugging Face id or model folder (default: bundled)")
    embed.add_argument("--pooling", default="cls,mean,max", help="of cls,mean,max (default: all)")
    embed.add_argument("--layers", default="all", help="all, last or numbers like 0,3,6")
    embed.add_argument("--dtype", default="float32", choices=("float32", "float16"))
    embed.add_argument("--precision", default="float32", choices=PRECISIONS)
    embed.add_argument("--batch-tokens", type=int, help="padded tokens a batch (default: 1024)")
    embed.add_argument(
        "--engine",
        default="local",
        choices=ENGINES,
        help="local: this process; ray: Ray Data actors (pip install -r requirements-ray.txt)",
    )
    embed.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="Ray cluster to run on (default: $RAY_ADDRESS, else a local Ray on this machine)",
    )
    embed.add_argument(
        "--ray-actors", type=int, metavar="N", help="model copies (default: one per Ray CPU)"
    )
    embed.add_argument("--limit", type=int, help="embed at most N texts")
    embed.add_argument("--shard-rows", type=int, help="texts a shard (default: by time)")
    embed.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    embed.set_defaults(run=_embed)

    info = sub.add_parser("info", help="what a store holds")
    info.add_argument("store", metavar="DIR")
    info.set_defaults(run=_info)

    project = sub.add_parser("project", help="save 2-D coordinates of a store's vectors in it")
    project.add_argument("store", metavar="DIR")
    project.add_argument("--method", default="pca", choices=("pca", "umap", "tsne"))
    project.add_argument("--pooling", default="mean")
    project.add_argument("--layer", default="last", help=_layer_help())
    project.add_argument("--sample", type=int, help="project N random rows (default: all)")
    project.add_argument("--seed", type=int, default=0)
    project.set_defaults(run=_project)

    search = sub.add_parser("search", help="the texts of a store nearest to a query")
    search.add_argument("store", metavar="DIR")
    search.add_argument("query")
    search.add_argument("-k", type=int, default=10)
    search.add_argument("--pooling", default="mean")
    search.add_argument("--layer", default="last", help=_layer_help())
    search.add_argument("--model", help="a local copy of the store's model (default: its name)")
    search.set_defaults(run=_search)
    return parser


def _layer_help() -> str:
    return f"{', '.join(LAYER_CHOICES)} or a layer number (default: last)"


def _layers(value: str):
    try:
        return int(value)
    except ValueError:
        return value


def _embed(args: argparse.Namespace) -> int:
    if args.engine != "ray" and (args.ray_address or args.ray_actors is not None):
        raise ValueError("--ray-address and --ray-actors go with --engine ray.")
    if args.ray_actors is not None and args.ray_actors < 1:
        raise ValueError(f"--ray-actors must be at least 1, not {args.ray_actors}.")
    from explorer.model.batching import MAX_BATCH_TOKENS

    if args.batch_tokens is None:
        args.batch_tokens = MAX_BATCH_TOKENS
    if args.batch_tokens < 1:
        raise ValueError(f"--batch-tokens must be at least 1, not {args.batch_tokens}.")
    from explorer.data.store.inputs import inspect_input
    from explorer.data.store.writer import Settings, parse_poolings

    # cheap checks first, so a typo fails before the model loads
    inspect_input(args.input, args.text_column, args.label_column)
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
    bar = None if args.quiet else _Bar()
    start = time.perf_counter()
    first = []

    def progress(state) -> None:
        if not first:
            first.append(state.rows)
            if state.kept is not None and not args.quiet:
                print(_resuming(args.out, state.kept), file=sys.stderr)
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
        print(f"\nexplorer embed: interrupted; {_kept(args.out)}", file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.close()
    if not args.quiet:
        print(_summary(args, manifest, first[0] if first else None, start))
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
        f"Embedded {manifest['rows']:,} texts{resumed}{skipped} in {_duration(seconds)} "
        f"({new / max(seconds, 1e-9):,.0f} texts/s{on}) with {manifest['model']['name']}: "
        f"{len(manifest['poolings'])} poolings x {len(manifest['layers'])} layers, "
        f"{manifest['dtype']}, {_bytes(size)} in {args.out}{truncated}"
    )


class _Bar:
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


def _info(args: argparse.Namespace) -> int:
    from explorer.data.store.format import check_folders, read_manifest

    manifest = read_manifest(args.store)
    folder = Path(args.store)
    check_folders(folder, manifest)
    # links are not followed: they may lead outside the store
    size = sum(f.stat().st_size for f in folder.rglob("*") if not f.is_symlink() and f.is_file())
    model = manifest["model"]
    source = manifest["input"]
    state = "complete" if manifest["complete"] else "UNFINISHED (rerun `explorer embed` to resume)"
    lines = [
        f"Store      {folder} ({state}, format {manifest['format_version']})",
        f"Rows       {manifest['rows']:,} in {len(manifest['shards'])} shards"
        + (f"; {manifest['skipped']:,} blank texts skipped" if manifest.get("skipped") else ""),
        f"Model      {model['name']} ({model['model_type']}, {model['num_layers']} layers x "
        f"{model['hidden_size']}; {model['fingerprint'][:19]}...)",
        f"Tokenizer  max_length {manifest['tokenizer']['max_length']}, "
        f"{'lower-cased' if manifest['tokenizer']['lowercase'] else 'cased'}",
        f"Vectors    poolings {', '.join(manifest['poolings'])}; layers "
        f"{', '.join(map(str, manifest['layers']))}; {manifest['dtype']} "
        f"(forward in {manifest['precision']})",
        f"Input      {source['name']} ({source['format']}), text column "
        f"{source['text_column']!r}, label column {source['label_column']!r}, columns "
        f"{', '.join(source['columns'])}",
        f"Created    {manifest['created']}; {_bytes(size)} on disk",
    ]
    for entry in manifest.get("projections", []):
        lines.append(
            f"Projection {entry['method']} of {entry['pooling']}/{entry['layers']}: "
            f"{entry['points']:,} of {entry['of_rows']:,} rows ({entry['file']})"
        )
    print("\n".join(lines))
    return 0


def _project(args: argparse.Namespace) -> int:
    from explorer.data.store.project import save_projection

    start = time.perf_counter()
    entry = save_projection(
        args.store,
        args.method,
        args.pooling,
        _layers(args.layer),
        sample=args.sample,
        random_state=args.seed,
    )
    trust = entry["trustworthiness"]
    quality = f", trustworthiness {trust:.3f}" if trust is not None else ""
    print(
        f"Projected {entry['points']:,} of {entry['of_rows']:,} rows with {args.method} "
        f"in {_duration(time.perf_counter() - start)}{quality}: {entry['file']}"
    )
    for note in entry["notes"]:
        print(f"  note: {note}")
    store = Path(args.store).resolve()
    print(
        f"To view it: EXPLORER_CORPORA={shlex.quote(str(store.parent))} streamlit run app.py, "
        f"then Projections > Saved corpus > {store.name} ({args.method}, {args.pooling} "
        f"pooling, layer {args.layer})."
    )
    return 0


def _search(args: argparse.Namespace) -> int:
    from explorer.data.store.corpus import open_corpus
    from explorer.layers import layer_indices, layers_label
    from explorer.model import load_model

    corpus = open_corpus(args.store)
    layers = _layers(args.layer)
    corpus.vectors(args.pooling, layers)  # checks pooling and layers before loading a model
    model = load_model(args.model or corpus.model_name)
    found = corpus.search(model, args.query, args.k, pooling=args.pooling, layers=layers)
    rows = corpus.take(found.indices)
    used = layer_indices(layers, corpus.num_layers)
    which = f"layer{'s' * (len(used) > 1)} {', '.join(map(str, used))}"
    print(
        f"{len(found.indices)} nearest of {len(corpus):,} texts by cosine similarity, "
        f"{args.pooling} pooling, {layers_label(layers).lower()} ({which}):"
    )
    label = corpus.label_column
    labels = rows[label].astype(str).tolist() if label else [""] * len(rows)
    label_width = max(map(len, labels), default=0)
    width = len(str(len(corpus)))
    for rank, (row, score, tag, text) in enumerate(
        zip(found.indices, found.scores, labels, rows[corpus.text_column], strict=True), start=1
    ):
        text = " ".join(str(text).split())
        text = text if len(text) <= 100 else text[:99] + "…"
        tag = f"  {tag:<{label_width}}" if label else ""
        print(f"{rank:>3}  {score:.4f}  #{row:<{width}}{tag}  {text}")
    return 0


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {seconds:02d}s"


def _bytes(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TB"


if __name__ == "__main__":  # pragma: no cover
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    raise SystemExit(main())
