"""Where a page's texts come from: a built-in set, pasted lines, an uploaded CSV, a saved corpus
or uploaded vectors, chosen with one widget written once (Projections, Similarity & search),
and the built-in sets."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from explorer import context
from explorer.data import corpora, uploads
from explorer.data.store.catalog import Catalog, find_stores
from explorer.ui import messages
from explorer.ui.compute import cached
from explorer.ui.sourcetypes import (
    AwaitedVectors,
    BuiltinSet,
    PastedLines,
    SavedCorpus,
    Source,
    UploadedCsv,
    VectorFile,
)
from explorer.ui.vectors import upload_vectors
from explorer.ui.widgets import URL, label_column_picker, option_labels

SOURCE_LABELS = {
    "builtin": "Built-in example",
    "paste": "Paste lines",
    "upload": "Upload a CSV",
    "saved": "Saved corpus",
    "vectors": "Upload vectors",
}


@dataclass(frozen=True)
class Builtin:
    """A built-in example set: a one-line description and a loader of its texts."""

    description: str
    load: Callable[[], uploads.LabelledTexts]


def text_source(
    prefix: str,
    builtins: Mapping[str, Builtin],
    *,
    default: str | None = None,
    paste_default: str | None = None,
    upload: bool = True,
    dataset_key: str | None = None,
    columns: Sequence | None = None,
    label: str = "Texts",
    saved: bool = False,
    vectors: bool = False,
) -> Source | None:
    """Choose texts: a built-in set, pasted lines (when ``paste_default`` is given) or an
    uploaded CSV (text column and optional label column chosen by the person).

    With ``saved``, also the corpus stores of the operator's folders (``EXPLORER_CORPORA``),
    chosen by label (:func:`saved_corpus`: the unreadable ones named apart): a
    :class:`~explorer.ui.sourcetypes.SavedCorpus`, which names the store and carries no texts.
    With ``vectors``, also precomputed vectors uploaded with their texts
    (:mod:`explorer.ui.vectors`): a :class:`~explorer.ui.sourcetypes.VectorFile`, which carries
    them beside their texts and labels (an
    :class:`~explorer.ui.sourcetypes.AwaitedVectors`, not ``ready``, while the files are
    awaited). Each kind is its own type
    (:mod:`explorer.ui.sourcetypes`); the pages ask it what they need.

    Draws a radio in ``columns[0]`` and the chosen source's widgets in ``columns[1]`` (the page
    by default). Returns None while a CSV upload is awaited (after saying what to upload) or
    when no saved corpus can be opened (after saying so).
    Raises ``ValueError`` from the library for a bad paste or file: show it with
    :func:`explorer.ui.messages.error`."""
    kinds = (
        ["builtin"]
        + (["paste"] if paste_default is not None else [])
        + (["upload"] if upload else [])
    )
    catalog = saved_corpora() if saved else Catalog()
    if catalog.stores or catalog.unreadable:
        kinds.append("saved")
    if vectors:
        kinds.append("vectors")
    left, right = columns if columns is not None else (st, st)
    kind = left.radio(
        label,
        kinds,
        format_func=SOURCE_LABELS.get,
        key=f"{prefix}.source",
        bind=URL,
    )
    with right:
        if kind == "saved":
            path = saved_corpus(catalog, st, prefix)
            if path is None:
                return None
            source = SavedCorpus(path)
            st.caption(source.description)
            return source
        if kind == "vectors":
            uploaded = upload_vectors(prefix)
            if uploaded is None:
                return AwaitedVectors()
            return VectorFile.of(*uploaded)
        if kind == "builtin":
            names = list(builtins)
            name = names[0]
            if len(names) > 1:
                name = st.selectbox(
                    "Example set",
                    names,
                    index=names.index(default) if default in names else 0,
                    key=dataset_key or f"{prefix}.dataset",
                    bind=URL,
                )
            st.caption(builtins[name].description)
            chosen = builtins[name].load()
            title = "Sense" if chosen.labels and "sense" in name.lower() else "Label"
            return BuiltinSet(chosen, title, builtins[name].description)
        if kind == "paste":
            lines = st.text_area(
                f"{label}, one per line",
                paste_default,
                key=f"{prefix}.lines",
                height=150,
                help="One text per line; start a line with a label and a tab "
                "(label<TAB>text) to colour the points by label.",
            )
            return PastedLines(uploads.labelled_lines(lines))
        uploaded = st.file_uploader(
            "CSV file (UTF-8, with a header row)",
            type=["csv"],
            key=f"{prefix}.csv",
            max_upload_size=uploads.MAX_UPLOAD_MB,
            help=f"At most {uploads.MAX_ROWS:,} rows and {uploads.MAX_UPLOAD_MB} MB. "
            "Choose the text column and, optionally, a label column.",
        )
    if uploaded is None:
        st.info(
            "Upload a CSV file with one text per row: a header row, a column of texts and, "
            "optionally, a column of labels."
        )
        return None
    digest, table, guessed_text = uploaded_csv(uploaded.getvalue())
    names = list(table.columns)
    pick = st.columns(2)
    text_column = pick[0].selectbox(
        "Text column", names, index=names.index(guessed_text), key=f"{prefix}.text_column"
    )
    guessed = cached(
        "corpora",
        ("csv label column", digest, text_column),
        lambda: uploads.guess_label_column(table, text_column),
    )
    label_column = label_column_picker(
        pick[1], names, text_column, guessed, key=f"{prefix}.label_column"
    )
    data = cached(
        "corpora",
        ("csv texts", digest, text_column, label_column),
        lambda: uploads.labelled_texts(table, text_column, label_column),
    )
    if data.dropped:
        messages.warning(
            f"{data.dropped:,} row(s) with an empty {text_column!r} cell were left out; "
            f"{len(data):,} texts remain."
        )
    return UploadedCsv(data, label_column or "Label")


def uploaded_csv(data: bytes):
    """An uploaded CSV file parsed once (:func:`explorer.data.uploads.read_csv`), then kept in
    the results pool by the SHA-256 of its bytes (``"corpora"``, bounded in bytes; what is
    made from it, its texts per choice of columns, is kept there too): ``(digest, table,
    guessed text column)``. Streamlit hands the same file to every rerun, and parsing it
    again made each rerun with a 1,000-column file take 4 s. Raises ``ValueError`` for a bad
    file (nothing is kept)."""
    digest = hashlib.sha256(data).hexdigest()

    def parse():
        table = uploads.read_csv(data)
        return table, uploads.guess_text_column(table)

    return (digest, *cached("corpora", ("csv", digest), parse))


def dataset(name: str) -> Builtin:
    """The built-in data set ``name`` (:data:`explorer.data.corpora.DATASETS`), labelled."""

    def load() -> uploads.LabelledTexts:
        frame = corpora.load_dataset(name)
        return uploads.from_lists(
            frame["text"].tolist(), frame["label"].tolist(), builtin_columns(name)
        )

    return Builtin(corpora.DATASETS[name], load)


def builtin_columns(name: str) -> dict[str, list[str]]:
    """The columns of the built-in set ``name``'s file, one cell per text in
    :func:`explorer.data.corpora.load_dataset`'s order, to colour a map by."""
    if name == "Word senses (all words)":
        frame = corpora.load_senses()[["word", "sense"]]
    else:
        frame = corpora.load_topics()[["topic", "sentiment"]]
    return {column: frame[column].tolist() for column in frame.columns}


def senses(word: str) -> Builtin:
    """The built-in sentences using ``word`` (one of :data:`explorer.data.corpora.SENSE_WORDS`),
    labelled by its sense."""

    def load() -> uploads.LabelledTexts:
        frame = corpora.load_senses(word)
        return uploads.from_lists(frame["text"].tolist(), frame["sense"].tolist())

    return Builtin(f"Sentences using '{word}', labelled by its sense.", load)


def remarks() -> Builtin:
    """The 240 built-in remarks, labelled "topic · sentiment"."""

    def load() -> uploads.LabelledTexts:
        topics = corpora.load_topics()
        labels = topics["topic"] + " · " + topics["sentiment"]
        return uploads.from_lists(list(topics["text"]), list(labels))

    return Builtin("240 short remarks, labelled by topic and sentiment.", load)


PROBE_SETS = {
    "senses": ("Word senses (token level)", "Word senses (all words)"),
    "topics": ("Topics (sentence level)", "Topics"),
    "sentiment": ("Sentiment (sentence level)", "Sentiment"),
}
"""The built-in sets of the "Which layer?" page: key -> (label, :data:`corpora.DATASETS` name)."""


PROBE_SOURCES = {"builtin": "Built-in example", "upload": "Upload a CSV", "saved": "Saved corpus"}


def labelled_source(prefix: str, columns: Sequence):
    """Labelled texts to probe: a built-in set, an uploaded ``text,label`` /
    ``text,word,label`` CSV or, when the operator named folders (``EXPLORER_CORPORA``), a saved
    corpus (radio in ``columns[0]``, the rest in ``columns[1]``).

    Returns a :class:`~explorer.ui.sourcetypes.BuiltinSet` or
    :class:`~explorer.ui.sourcetypes.UploadedCsv` whose data holds the texts, labels and, for
    a word task, a ``word`` column (:func:`probe_table` reads it back), or a
    :class:`~explorer.ui.sourcetypes.SavedCorpus`; None while an upload is awaited or when no
    saved corpus can be opened. Raises ``ValueError`` for a bad file."""
    from explorer import probing

    catalog = saved_corpora()
    kind = columns[0].radio(
        "Data",
        ("builtin", "upload", *(("saved",) if catalog.stores or catalog.unreadable else ())),
        format_func=PROBE_SOURCES.get,
        key=f"{prefix}.source",
        bind=URL,
    )
    if kind == "saved":
        path = saved_corpus(catalog, columns[1], prefix)
        if path is None:
            return None
        source = SavedCorpus(
            path,
            "Embedded ahead of time with `explorer embed`: the probe reads its stored vectors, "
            "nothing runs the model.",
        )
        columns[1].caption(source.description)
        return source
    if kind == "builtin":
        dataset = columns[1].selectbox(
            "Example set",
            tuple(PROBE_SETS),
            format_func=option_labels((key, PROBE_SETS[key][0]) for key in PROBE_SETS),
            key=f"{prefix}.dataset",
            bind=URL,
            help="Word senses: sentences using bank, bat, bark, crane, spring, match, mouse and "
            "plant, labelled by sense. Topics and sentiment: 240 short remarks.",
        )
        return BuiltinSet(_probe_data(corpora.load_dataset(PROBE_SETS[dataset][1])))
    uploaded = columns[1].file_uploader(
        "CSV with columns text,label (sentences) or text,word,label (word senses)",
        type=["csv"],
        key=f"{prefix}.upload",
        max_upload_size=uploads.MAX_UPLOAD_MB,
        help=f"UTF-8, a header row, at most {probing.MAX_ROWS:,} rows and "
        f"{uploads.MAX_UPLOAD_MB} MB.",
    )
    if uploaded is None:
        st.info(
            "Upload a CSV file: `text,label` to probe sentences (e.g. topic or sentiment), or "
            "`text,word,label` to probe the vector of `word` in each text (e.g. its sense)."
        )
        return None
    data = uploaded.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    frame, _ = cached("corpora", ("probe csv", digest), lambda: probing.read_labelled_csv(data))
    return UploadedCsv(_probe_data(frame))


def _probe_data(frame) -> uploads.LabelledTexts:
    """A probe's ``text,label`` or ``text,word,label`` table as a source's data (the word, when
    there is one, a column)."""
    words = (("word", tuple(frame["word"])),) if "word" in frame.columns else ()
    return uploads.LabelledTexts(tuple(frame["text"]), tuple(frame["label"]), 0, words)


def probe_table(source: Source) -> pd.DataFrame:
    """The ``text``, ``label`` (and ``word``) table of a :func:`labelled_source` source with
    texts (not a saved corpus's)."""
    data = source.data
    return pd.DataFrame({"text": data.texts, "label": data.labels, **dict(data.columns)})


def saved_corpora() -> Catalog:
    """The corpus stores in the operator's folders (:func:`explorer.data.store.catalog.find_stores`
    over ``EXPLORER_CORPORA``); empty when the operator named none."""
    from explorer.ui.model_in_use import settings

    folders = settings().corpora
    return find_stores(folders) if folders else Catalog()


def saved_corpus(catalog: Catalog, where, prefix: str) -> str | None:
    """A "Saved corpus" select box in ``where`` (a Streamlit container) over the readable
    stores of ``catalog``, after a warning naming the unreadable ones and why: the chosen
    store's folder (never shown), or ``None`` when none can be opened."""
    if catalog.unreadable:
        names = "; ".join(f"{bad.name} ({bad.reason})" for bad in catalog.unreadable)
        messages.warning(f"Unreadable, not offered: {names}", where)
    if not catalog.stores:
        messages.info("No saved corpus can be opened: the operator can fix or remove them.", where)
        return None
    labels = [entry.label for entry in catalog.stores]
    # The box shows a store's folder name, its rows and model go under it: a select box's
    # value cannot wrap, and the whole label cut a long name (issue 33.8). Two stores of one
    # name keep their whole labels, so that the box tells them apart.
    names = [label.split(" · ", 1)[0] for label in labels]
    shown = dict(zip(labels, names if len(set(names)) == len(names) else labels, strict=True))
    chosen = where.selectbox(
        "Saved corpus",
        labels,
        format_func=shown.__getitem__,
        key=f"{prefix}.store",
        bind=URL,
    )
    if shown.get(chosen, chosen) != chosen:
        messages.caption(chosen.split(" · ", 1)[1], where)  # "14 texts · <model>"
    return str(catalog.stores[labels.index(chosen)].path)


def load_sense_example() -> None:
    """``on_change`` of Word in context's example picker: fill the sentences and the word from
    the built-in sense set chosen (three sentences a sense). A module function, not one of the
    page's: Streamlit keeps a widget's callback for the session, and a page's function would
    keep the page's whole namespace alive with it."""
    word = st.session_state.get("context.example")
    if word:
        st.session_state["context.text"] = context.labelled_examples(word, per_sense=3)
        st.session_state["context.word"] = word
    st.session_state["context.example"] = None
