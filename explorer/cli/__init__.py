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
import sys
from collections.abc import Sequence

from explorer.cli import _embed, _stores
from explorer.cli._common import say
from explorer.layers import LAYER_CHOICES

ENGINES = ("local", "ray")
PRECISIONS = ("float32", "bfloat16")
"""As :data:`explorer.model.precision.PRECISIONS`, spelled out so that ``info`` and ``--help``
answer without importing torch (a test checks they agree)."""


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
        say(f"explorer {args.command}: error: {error}", error=True)
        return 2
    except OSError as error:
        say(f"explorer {args.command}: error: {error}", error=True)
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
    embed.set_defaults(run=_embed.embed)

    info = sub.add_parser("info", help="what a store holds")
    info.add_argument("store", metavar="DIR")
    info.set_defaults(run=_stores.info)

    project = sub.add_parser("project", help="save 2-D coordinates of a store's vectors in it")
    project.add_argument("store", metavar="DIR")
    project.add_argument("--method", default="pca", choices=("pca", "umap", "tsne"))
    project.add_argument("--pooling", default="mean")
    project.add_argument("--layer", default="last", help=_layer_help())
    project.add_argument("--sample", type=int, help="project N random rows (default: all)")
    project.add_argument("--seed", type=int, default=0)
    project.add_argument(
        "--fit-sample",
        type=int,
        metavar="N",
        help="PCA/UMAP of more rows: fit on N random rows, place the rest with the fitted "
        "model's transform (default 50,000; 0: fit on all rows)",
    )
    project.set_defaults(run=_stores.project)

    search = sub.add_parser("search", help="the texts of a store nearest to a query")
    search.add_argument("store", metavar="DIR")
    search.add_argument("query")
    search.add_argument("-k", type=int, default=10)
    search.add_argument("--pooling", default="mean")
    search.add_argument("--layer", default="last", help=_layer_help())
    search.add_argument("--model", help="a local copy of the store's model (default: its name)")
    search.set_defaults(run=_stores.search)
    return parser


def _layer_help() -> str:
    return f"{', '.join(LAYER_CHOICES)} or a layer number (default: last)"
