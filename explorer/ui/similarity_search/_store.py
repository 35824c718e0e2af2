"""Semantic search over a saved corpus (Similarity & search, corpus source "Saved corpus").

The query is the only text that runs a model: it is embedded with the model the store was
embedded with (the model in use when its weights are the store's, else the store's model when
the operator offers it; refused otherwise) and searched over every row of the store with
:meth:`explorer.data.store.Corpus.search` (the one k-NN, :func:`explorer.neighbors`, over the
memory-mapped vectors). Poolings and layer choices are those the store keeps. Nothing shown
names the folder where the server keeps the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from explorer.choice import VectorChoice
from explorer.figures.tables import text_table_html
from explorer.layers import Layers, layer_choices, layer_indices, layers_label
from explorer.model.ref import ModelRef
from explorer.pooling import POOLINGS, pooling_labels, pooling_parts
from explorer.ui import messages
from explorer.ui.compute import cached, open_store, store_rows
from explorer.ui.model_in_use import current_model, current_model_label, load, settings
from explorer.ui.widgets import URL, choose, csv_download

MAX_METADATA_COLUMNS = 4
"""Most of the store's other input columns shown beside each result."""

METADATA_CHARS = 80
"""Longest metadata value shown in the results table (longer ones end with "…")."""


@dataclass(frozen=True)
class QueryModel:
    """The model that embeds the query: ``ref`` (what :func:`explorer.ui.model_in_use.load`
    takes), ``label`` (what visitors see) and whether it is the model in use."""

    ref: ModelRef
    label: str
    current: bool


@dataclass(frozen=True)
class Searched:
    """A search over a saved corpus, for "Why are these two close?": the ``query``, the
    ``pooling`` and ``layers`` it searched with, the result ``texts`` (best first, from the
    store) and the ``model`` that embedded the corpus (an explanation needs a forward pass with
    it). ``code`` is the search's "Show code" snippet."""

    query: str
    pooling: str
    layers: Layers
    texts: tuple[str, ...]
    model: QueryModel
    code: str


def store_name(path: str) -> str:
    """The store folder's name: all a visitor or a snippet ever sees of its location."""
    return Path(path).name or "corpus"


def open_saved(path: str):
    """The saved corpus at ``path`` (opened once per server). Raises ``ValueError`` saying
    what is wrong with it (shown through :mod:`explorer.ui.messages`, which leaves out the
    operator's server folders)."""
    try:
        return open_store(path)
    except (ValueError, OSError) as error:
        raise ValueError(
            f"This saved corpus cannot be opened: {error} Choose another corpus; "
            "the operator can rebuild this one with `explorer embed`."
        ) from None


def model_label(corpus) -> str:
    """What visitors see for the model ``corpus`` was embedded with: its label in the
    operator's list, else its name (a folder by its last part, never its path)."""
    name = corpus.model_name
    for choice in settings().models:
        if choice.source == name:
            return choice.label
    return Path(name).name if name.startswith(("/", ".", "~")) else name


def _fingerprint(model_ref: ModelRef) -> str:
    """:func:`explorer.data.store.model_fingerprint` of the model ``model_ref`` (cached)."""
    from explorer.data.store import model_fingerprint

    return cached("corpora", ("fingerprint", model_ref), lambda: model_fingerprint(load(model_ref)))


def _first_token(corpus) -> str | None:
    """The first token of the model that embeds the query for ``corpus`` (the corpus's
    model: ``"<s>"`` for MPNet), ``None`` when it cannot be had (the search says why)."""
    try:
        return load(query_model(corpus).ref).tokenizer.cls_token
    except ValueError:
        return None


def query_model(corpus) -> QueryModel:
    """The model to embed the query with: the one in use when its weights are those the store
    was embedded with (the manifest's fingerprint), else the store's model when the operator
    offers it and its weights match. Raises ``ValueError`` naming the store's model and what
    to do otherwise."""
    wanted = corpus.manifest.get("model", {}).get("fingerprint")
    current, current_label = current_model().ref, current_model_label()
    if _fingerprint(current) == wanted:
        return QueryModel(current, current_label, True)
    label = model_label(corpus)
    config = settings()
    if not (config.free_entry or any(c.source == corpus.model_name for c in config.models)):
        raise ValueError(
            f"This corpus was embedded with {label} and the model in use is {current_label}; "
            f"this server does not offer {label}, so the query cannot be embedded as the "
            f"corpus's texts were. Choose a corpus embedded with {current_label}, or ask the "
            f"operator to add {label} to the models it offers (EXPLORER_MODELS)."
        )
    try:
        stored = ModelRef.parse(corpus.model_name)
        found = _fingerprint(stored)
    except ValueError as error:
        reason = str(error).replace(corpus.model_name, label)
        raise ValueError(
            f"This corpus was embedded with {label}, which cannot be loaded here: {reason}"
        ) from None
    if found != wanted:
        raise ValueError(
            f"This corpus was embedded with {label}, but the weights this server loads under "
            "that name are not the ones it was embedded with (their fingerprint differs): the "
            "query's vector would not be comparable with the corpus's. Embed the corpus again "
            "with `explorer embed`, or choose another corpus."
        )
    return QueryModel(stored, label, False)


def store_poolings(corpus) -> list[str]:
    """The poolings of :data:`explorer.pooling.POOLINGS` whose parts ``corpus`` keeps."""
    return [p for p in POOLINGS if all(part in corpus.poolings for part in pooling_parts(p))]


def store_layer_choices(corpus) -> list[Layers]:
    """The layer choices ``corpus`` keeps every layer of: the named ones, then each stored
    layer's number (but 0 and the last, named already)."""
    stored = set(corpus.layers)
    named = [
        c
        for c in layer_choices(corpus.num_layers)
        if set(layer_indices(c, corpus.num_layers)) <= stored
    ]
    numbers = [i for i in corpus.layers if i not in (0, corpus.num_layers)]
    return [*named, *numbers]


def _search(path: str, model: QueryModel, query: str, pooling: str, layers: Layers, k: int):
    """:meth:`Corpus.search` (cached): ``(rows (k,), scores (k,))``, best first."""

    def compute():
        found = open_store(path).search(load(model.ref), query, k, pooling=pooling, layers=layers)
        rows, scores = np.asarray(found.indices), np.asarray(found.scores, dtype=np.float32)
        rows.flags.writeable = scores.flags.writeable = False
        return rows, scores

    key = ("store search", path, model.ref, query, VectorChoice(pooling, layers), k)
    return cached("corpora", key, compute, f"Searching {len(open_store(path)):,} rows…")


def _short(value: object) -> object:
    if isinstance(value, str) and len(value) > METADATA_CHARS:
        return value[: METADATA_CHARS - 1] + "…"
    return value


def results_frame(corpus, rows: np.ndarray, scores: np.ndarray, taken: pd.DataFrame):
    """The results table: ``rank``, ``score`` (cosine), ``text``, ``row`` (the store's row,
    from 0), ``label`` (the store's label column, when it has one) and up to
    :data:`MAX_METADATA_COLUMNS` of its other columns (long values cut); ``taken`` is
    :meth:`Corpus.take` of ``rows``."""
    frame = pd.DataFrame(
        {
            "rank": np.arange(1, len(rows) + 1),
            "score": scores.astype(float),
            "text": taken[corpus.text_column].astype(str).to_numpy(),
            "row": rows.astype(int),
        }
    )
    if corpus.label_column:
        frame["label"] = taken[corpus.label_column].to_numpy()
    skip = {"row", corpus.text_column, corpus.label_column}
    for column in [c for c in taken.columns if c not in skip][:MAX_METADATA_COLUMNS]:
        name = column
        while name in frame.columns:
            name = f"{name} (input)"
        frame[name] = [_short(v) for v in taken[column]]
    return frame


def store_section(
    path: str, page_layers: Layers, k: int, columns, default_query: str
) -> Searched | None:
    """The search over the saved corpus at ``path``: the query in ``columns[0]``, the store's
    poolings and layer choices in ``columns[1]`` (``page_layers``, the page's choice, when the
    store keeps it), then the ``k`` best rows, a caption and a CSV download. Shows what went
    wrong (a store that cannot be opened, an empty query, another model) as a message.
    Returns the search (its texts and "Show code" snippet), or None when nothing was
    searched."""
    from explorer.codegen.similarity import store_search_snippet

    query = columns[0].text_input("Query", default_query, key="similarity.query", bind=URL)
    try:
        corpus = open_saved(path)
    except ValueError as error:
        messages.error(error)
        return None
    poolings = store_poolings(corpus)
    named = pooling_labels(_first_token(corpus))  # "<s> token" for a MPNet corpus
    pooling = choose(
        columns[1],
        "Pooling",
        poolings,
        named.get,
        "similarity.store_pooling",
        "mean" if "mean" in poolings else poolings[0],
        "The poolings this corpus keeps (explorer embed --pooling).",
    )
    choices = [str(c) for c in store_layer_choices(corpus)]
    default = next(c for c in (str(page_layers), "last", choices[0]) if c in choices)
    chosen = choose(
        columns[1],
        "Layers (this corpus)",
        choices,
        lambda c: layers_label(int(c) if c.isdigit() else c),
        "similarity.store_layers",
        default,
        "The layer choices this corpus keeps (explorer embed --layers); the choice above when "
        "it keeps it.",
    )
    layers = int(chosen) if chosen.isdigit() else chosen
    query = query.strip()
    try:
        if not query:
            raise ValueError("The query is empty: type what you are looking for.")
        model = query_model(corpus)
        rows, scores = _search(path, model, query, pooling, layers, k)
    except ValueError as error:
        messages.error(error)
        return None
    if str(page_layers) not in choices:
        messages.caption(
            f"This corpus does not keep every layer {layers_label(page_layers).lower()} needs "
            f"(the choice above): the search uses {layers_label(layers).lower()}, chosen "
            "among the layers it keeps."
        )
    frame = results_frame(corpus, rows, scores, store_rows(path, tuple(int(r) for r in rows)))
    _show(frame, corpus)
    truncated = load(model.ref).encode_batch([query])[0]["truncated"]
    messages.caption(
        f"All {len(corpus):,} rows of the saved corpus searched ({named[pooling]}, "
        f"{layers_label(layers).lower()}); nothing but the query ran the model, {model.label}"
        + ("" if model.current else ", the model this corpus was embedded with (not the sidebar's)")
        + ". The corpus's vectors were stored by explorer embed."
        + (
            f" The query is longer than the {load(model.ref).max_length} tokens the model "
            "reads: only its beginning was embedded (the corpus's texts were cut the same way)."
            if truncated
            else ""
        )
    )
    csv_download(st, "Results (.csv)", frame, "search_results.csv", "similarity.download_results")
    return Searched(
        query,
        pooling,
        layers,
        tuple(frame["text"]),
        model,
        store_search_snippet(store_name(path), query, pooling, layers, k, model=model.ref),
    )


RESULT_TITLES = {"rank": "Rank", "score": "Cosine", "text": "Text", "index": "Row", "row": "Row"}
"""Column titles of every search results table."""


def show_results(frame: pd.DataFrame, titles: dict | None = None) -> None:
    """A search's results as a table whose texts are shown whole (wrapped: Streamlit's data
    grid cut them at the column's width), the cosine as a bar."""
    st.html(
        text_table_html(
            frame,
            "similarity.results",
            titles={**RESULT_TITLES, "label": "Label", **(titles or {})},
            bars={"score": (0.0, 1.0)},
        )
    )


def _show(frame: pd.DataFrame, corpus) -> None:
    column = corpus.label_column
    label = f"Label ({column})" if column and column.lower() != "label" else "Label"
    show_results(frame, {"label": label})
