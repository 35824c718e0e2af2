"""The saved-corpus side of the "Which layer?" page: which rows and labels of a store a probe
reads (sampled to the server's cap), which poolings it stores, and Show code for them."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.probing.stored import column_values, label_columns, probe_rows
from explorer.server import limits
from explorer.ui.compute import cached, open_store, store_rows
from explorer.ui.widgets import URL, option_labels


@dataclass(frozen=True)
class SavedRows:
    """What a probe reads of a saved corpus: ``texts`` and ``labels`` of store rows ``rows``
    (column ``column``, the store's label column when ``is_label``), the stored ``layers`` (of
    ``0 … num_layers``) and ``poolings`` (every pooling whose parts are stored), the row
    ``limit`` the sample was drawn with, ``note`` saying what was left out or sampled
    (``None`` when nothing was), and ``first``, the first token of the store's model
    (``"<s>"`` for MPNet; ``None`` when its tokenizer cannot be read here)."""

    texts: tuple[str, ...]
    labels: tuple[str, ...]
    rows: tuple[int, ...]
    column: str
    is_label: bool
    layers: tuple[int, ...]
    num_layers: int
    poolings: tuple[str, ...]
    limit: int
    note: str | None
    first: str | None = None

    @property
    def layers_note(self) -> str:
        """A sentence naming the stored layers when the store keeps only some (else "")."""
        from explorer.probing.scores import layer_ranges

        if len(self.layers) > self.num_layers:
            return ""
        return (
            f" This corpus keeps layers {layer_ranges(self.layers)} of 0–{self.num_layers}: "
            "only those are probed."
        )


def _usable_columns(path: str) -> list:
    """:func:`explorer.probing.stored.label_columns` of the store (cached: it reads columns)."""
    return cached(
        "corpora",
        ("label columns", path),
        lambda: label_columns(open_store(path)),
        "Reading the corpus's columns…",
    )


def saved_rows(path: str, container, limit: int | None = None) -> SavedRows:
    """Choose the label column of the saved corpus at ``path`` (a selectbox in ``container``
    listing the columns that can be probed) and the rows to probe (at most about ``limit``,
    default :data:`explorer.server.limits.MAX_PROBE_ROWS`, a stratified random sample beyond:
    :func:`explorer.probing.stored.probe_rows`).

    Raises ``ValueError`` saying what is missing when no column can be probed."""
    from explorer.model.first_token import first_token
    from explorer.pooling import POOLINGS, pooling_parts
    from explorer.probing.stored import MAX_CLASSES, MIN_PER_CLASS

    limit = limits.MAX_PROBE_ROWS if limit is None else limit
    corpus = open_store(path)
    checked = _usable_columns(path)
    usable = [c for c in checked if c.usable]
    others = "; ".join(f"{c.name!r}: {c.problem}" for c in checked if not c.usable)
    if not usable:
        what = (
            f"its label column {corpus.label_column!r} cannot be probed"
            if corpus.label_column
            else "it was embedded without a label column (`explorer embed --label-column`)"
        )
        raise ValueError(
            f"This saved corpus has no column to probe: {what}, and a probe needs a column with "
            f"2 to {MAX_CLASSES} classes and at least {MIN_PER_CLASS} texts in each"
            + (f" ({others})." if others else "; it has no other columns.")
            + " Choose another corpus, or embed this one again with --label-column COLUMN."
        )
    names = [c.name for c in usable]
    column = container.selectbox(
        "Label",
        names,
        format_func=option_labels((c.name, f"{c.name} ({c.classes} classes)") for c in usable),
        key="probe.column",
        bind=URL,
        help="The store's label column or any other column of its input with 2 to "
        f"{MAX_CLASSES} classes and at least {MIN_PER_CLASS} texts in each."
        + (f" Not offered: {others}." if others else ""),
    )

    def choose():
        return probe_rows(column_values(corpus, column), limit, seed=0)

    chosen = cached("corpora", ("probe rows", path, column, limit), choose)
    rows = tuple(int(i) for i in chosen.rows)
    frame = store_rows(path, rows)
    poolings = tuple(
        p for p in POOLINGS if all(part in corpus.poolings for part in pooling_parts(p))
    )
    return SavedRows(
        texts=tuple(frame[corpus.text_column].astype(str)),
        labels=chosen.labels,
        rows=rows,
        column=column,
        is_label=column == corpus.label_column,
        layers=tuple(int(layer) for layer in corpus.layers),
        num_layers=corpus.num_layers,
        poolings=poolings,
        limit=limit,
        note=chosen.note,
        first=first_token(corpus.model_name),  # its tokenizer only: no model is loaded
    )


def stored_poolings(container, saved: SavedRows) -> list[str]:
    """Choose poolings among those ``saved`` keeps (default mean, else the first), bound to
    the link, named with the store's model's first token."""
    from explorer.pooling import pooling_labels
    from explorer.ui.widgets import choose

    return choose(
        container,
        "Poolings",
        saved.poolings,
        pooling_labels(saved.first).get,
        "probe.stored_poolings",
        ["mean" if "mean" in saved.poolings else saved.poolings[0]],
        help="The poolings this corpus keeps (explorer embed --pooling): each adds a probe per "
        "stored layer.",
    )


def show_saved_code(store: str, saved: SavedRows, layer: int, strategy: str, plan) -> None:
    """ "Show code" for a probe on a saved corpus: :func:`explorer.codegen.probe.
    stored_probe_snippet` (the store named by its folder's name only)."""
    from explorer.codegen.probe import stored_probe_snippet
    from explorer.ui.widgets import show_code

    snippet = stored_probe_snippet(
        store,
        saved.column,
        saved.is_label,
        layer,
        strategy,
        plan.folds,
        plan.random_state,
        saved.limit,
    )
    show_code(
        snippet,
        caption="Opens the saved corpus with explorer, takes the same rows and every stored "
        "layer's vectors, then runs the same cross-validated probe on each with scikit-learn; "
        f"prints the headline's numbers and layer {layer}'s folds.",
    )
