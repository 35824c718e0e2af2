"""``explorer info``, ``project`` and ``search``: what a store holds, its 2-D map, its nearest
texts to a query."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from explorer.cli._common import duration, layer_arg, say, size_text, terminal_text


def info(args: argparse.Namespace) -> int:
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
        f"Created    {manifest['created']}; {size_text(size)} on disk",
    ]
    for entry in manifest.get("projections", []):
        lines.append(
            f"Projection {entry['method']} of {entry['pooling']}/{entry['layers']}: "
            f"{entry['points']:,} of {entry['of_rows']:,} rows"
            + (f", fitted on {entry['fit_sample']:,}" if entry.get("fit_sample") else "")
            + f" ({entry['file']})"
        )
    say("\n".join(lines))
    return 0


def project(args: argparse.Namespace) -> int:
    from explorer.data.store.project import save_projection

    start = time.perf_counter()
    bar = _PlaceBar()
    try:
        entry = save_projection(
            args.store,
            args.method,
            args.pooling,
            layer_arg(args.layer),
            sample=args.sample,
            random_state=args.seed,
            fit_sample=args.fit_sample,
            progress=bar.update,
        )
    finally:
        bar.close()
    trust = entry["trustworthiness"]
    quality = f", trustworthiness {trust:.3f}" if trust is not None else ""
    say(
        f"Projected {entry['points']:,} of {entry['of_rows']:,} rows with {args.method} "
        f"in {duration(time.perf_counter() - start)}{quality}: {entry['file']}"
    )
    if entry.get("placed_by"):
        say(
            f"  fitted on a random sample of {entry['fit_sample']:,} rows "
            f"({entry['fit_rows_file']}); the other {entry['points'] - entry['fit_sample']:,} "
            f"placed by the fitted model's {entry['placed_by']}"
        )
    for note in entry["notes"]:
        say(f"  note: {note}")
    _neighbour_index(args)
    store = Path(args.store).resolve()
    say(
        f"To view it: EXPLORER_CORPORA={shlex.quote(str(store.parent))} streamlit run app.py, "
        f"then Projections > Saved corpus > {store.name} ({args.method}, {args.pooling} "
        f"pooling, layer {args.layer})."
    )
    return 0


def _neighbour_index(args: argparse.Namespace) -> None:
    """Build the store's neighbour index (:mod:`explorer.data.store.ann`) for the map's clicks
    when the store has enough rows and has none yet."""
    from explorer.choice import VectorChoice
    from explorer.data.store import open_corpus
    from explorer.data.store.ann import MIN_ROWS, build_index, load_index

    corpus = open_corpus(args.store)
    choice = VectorChoice(args.pooling, layer_arg(args.layer))
    if len(corpus) < MIN_ROWS or load_index(corpus, choice) is not None:
        return
    start = time.perf_counter()
    try:
        path = build_index(corpus, choice)
    except ImportError:
        say("  note: faiss-cpu is not installed, so the map's clicks scan every vector exactly")
        return
    say(
        f"  neighbour index for the map's clicks (candidates re-ranked exactly) built in "
        f"{duration(time.perf_counter() - start)}: {path.relative_to(corpus.path)}"
    )


class _PlaceBar:
    """A tqdm bar over the rows placed by the fitted model's transform (on stderr)."""

    def __init__(self) -> None:
        self._bar = None

    def update(self, done: int, total: int) -> None:
        from tqdm import tqdm

        if self._bar is None:
            self._bar = tqdm(
                desc="Placing", total=total, unit=" rows", dynamic_ncols=True, file=sys.stderr
            )
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def search(args: argparse.Namespace) -> int:
    from explorer.choice import VectorChoice
    from explorer.data.store.corpus import open_corpus
    from explorer.model import load_model

    corpus = open_corpus(args.store)
    choice = VectorChoice(args.pooling, layer_arg(args.layer))
    corpus.vectors(choice)  # checks that the store keeps them before loading a model
    model = load_model(args.model or corpus.model_name)
    found = corpus.search(model, args.query, args.k, pooling=choice)
    rows = corpus.take(found.indices)
    used = choice.indices(corpus.num_layers)
    which = f"layer{'s' * (len(used) > 1)} {', '.join(map(str, used))}"
    say(
        f"{len(found.indices)} nearest of {len(corpus):,} texts by cosine similarity, "
        f"{choice.label} ({which}):"
    )
    label = corpus.label_column
    # escaped before measuring, so that the columns line up as printed
    labels = [terminal_text(str(tag)) for tag in rows[label]] if label else [""] * len(rows)
    label_width = max(map(len, labels), default=0)
    width = len(str(len(corpus)))
    for rank, (row, score, tag, text) in enumerate(
        zip(found.indices, found.scores, labels, rows[corpus.text_column], strict=True), start=1
    ):
        text = terminal_text(" ".join(str(text).split()))
        text = text if len(text) <= 100 else text[:99] + "…"
        tag = f"  {tag:<{label_width}}" if label else ""
        say(f"{rank:>3}  {score:.4f}  #{row:<{width}}{tag}  {text}")
    return 0
