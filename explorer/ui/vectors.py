"""Vectors a visitor uploads (:mod:`explorer.data.vectorfiles`): the upload widgets of the text
source "Upload vectors" and the Similarity page's search over them (the Projections map of
them is :mod:`explorer.ui.projection_maps`'s). Nothing here runs the model on the uploaded texts."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from explorer.data import vectorfiles
from explorer.server import limits
from explorer.similarity import MAX_K, top_k
from explorer.ui import messages
from explorer.ui.compute import cached
from explorer.ui.widgets import label_column_picker, option_labels

WHAT_TO_UPLOAD = (
    "Upload vectors computed elsewhere, one per text: **a `.npy` file** (a float array of "
    "shape texts × dimensions, saved with `numpy.save`) **with a CSV of the same rows** (a "
    "header, a text column, optionally a label column), **or one Parquet file** with a text "
    "column, a vector column (a list of floats in each row) and optionally a label column."
)


def upload_vectors(prefix: str) -> tuple[vectorfiles.UploadedVectors, tuple[str, ...]] | None:
    """The upload widgets (vectors, then texts for a ``.npy``, then the columns): the
    uploaded vectors and the files' names, or None while a file is awaited (after saying what
    to upload). Raises ``ValueError`` from :mod:`explorer.data.vectorfiles` for a bad file."""
    limit = f"at most {vectorfiles.MAX_UPLOAD_MB} MB each"
    vectors = st.file_uploader(
        "Vectors (.npy or .parquet)",
        type=["npy", "parquet"],
        key=f"{prefix}.vectors",
        max_upload_size=vectorfiles.MAX_UPLOAD_MB,
        help=f"A .npy array (texts × dimensions) or a Parquet file with a vector column; {limit}.",
    )
    texts = None
    if vectors is not None and not vectors.name.lower().endswith(".parquet"):
        texts = st.file_uploader(
            "Texts of the vectors (CSV, one row per vector)",
            type=["csv"],
            key=f"{prefix}.vector_texts",
            max_upload_size=vectorfiles.MAX_UPLOAD_MB,
            help=f"UTF-8, a header row, a text column and optionally a label column; {limit}.",
        )
    if vectors is None or (texts is None and not vectors.name.lower().endswith(".parquet")):
        st.info(WHAT_TO_UPLOAD)
        return None
    files = (vectors.name, *((texts.name,) if texts is not None else ()))
    table = _table(prefix, vectors.getvalue(), None if texts is None else texts.getvalue())
    pick = st.columns(2)
    text_column = pick[0].selectbox(
        "Text column", table.text_columns, key=f"{prefix}.vector_text_column"
    )
    label_column = label_column_picker(
        pick[1],
        list(table.frame.columns),
        text_column,
        table.guess_label_column(text_column),
        key=f"{prefix}.vector_label_column",
    )
    data = cached(
        "corpora",
        ("vector rows", table.digest, text_column, label_column),
        lambda: table.select(text_column, label_column, limits.MAX_POINTS),
    )
    if data.dropped:
        messages.warning(
            f"{data.dropped:,} row(s) with an empty {text_column!r} cell were left out with "
            f"their vectors; {data.total - data.dropped:,} remain."
        )
    st.caption(
        f"{data.total:,} vectors of {data.dims:,} dimensions, used as they are: nothing runs "
        "the model on these texts."
    )
    return data, files


def _table(prefix: str, vectors: bytes, texts: bytes | None) -> vectorfiles.VectorTable:
    """The uploaded table (cached by the files' contents), with a vector column chooser when
    a Parquet file has several columns of float lists."""
    digests = tuple(hashlib.sha256(d).hexdigest() for d in (vectors, texts) if d is not None)

    def read(column):
        return cached(
            "corpora",
            ("vector table", digests, column),
            lambda: vectorfiles.read_table(vectors, texts, column),
        )

    table = read(None)
    if len(table.vector_columns) > 1:
        column = st.selectbox("Vector column", table.vector_columns, key=f"{prefix}.vector_column")
        if column != table.vector_column:
            table = read(column)
    return table


QUERY_MODES = {
    "text": "Type a query (embedded with the current model)",
    "row": "Use one of the uploaded rows",
}


def search_vectors(
    data: vectorfiles.UploadedVectors,
    files: Sequence[str],
    model,
    layers,
    k: int,
    columns: Sequence,
    default_query: str,
) -> tuple[pd.DataFrame, str]:
    """The search over uploaded vectors: a query (a typed text embedded with the current
    model ``model``, only when the vectors are as wide as its hidden states, or
    one of the uploaded rows) in ``columns[0]`` (and the query's pooling in ``columns[1]``),
    then the ``k`` nearest rows.
    Returns ``(results, snippet)``: the columns of :func:`explorer.similarity.top_k`. Raises
    ``ValueError`` for an empty query."""
    from explorer.codegen.vectorfiles import query_search_snippet, row_search_snippet
    from explorer.ui.compute import embed_corpus
    from explorer.ui.widgets import pooling_select, vector_choice

    modes = list(QUERY_MODES) if data.dims == model.hidden_size else ["row"]
    mode = columns[0].radio(
        "Query",
        modes,
        format_func=QUERY_MODES.get,
        key="similarity.vector_query_mode",
        horizontal=True,
    )
    if mode == "row":
        row = _row_choice(columns[0], data)
        if len(modes) == 1:
            messages.caption(
                f"The vectors have {data.dims:,} dimensions and the current model gives "
                f"{model.hidden_size:,}: a typed query cannot be compared with them, so one of "
                "the uploaded rows is the query."
            )
        found = top_k(data.vectors[row], data.vectors, data.texts, min(k + 1, MAX_K))
        found = found[found["index"] != row].head(k).reset_index(drop=True)
        found["rank"] = range(1, len(found) + 1)
        return found, row_search_snippet(data, files, row, k)
    query = columns[0].text_input("Query", default_query, key="similarity.vector_query").strip()
    pooling = pooling_select(
        columns[1], "similarity.vector_pooling", cls_token=model.tokenizer.cls_token
    )
    choice = vector_choice(pooling, layers)
    if not query:
        raise ValueError("The query is empty: type what you are looking for.")
    messages.caption(
        f"The query is embedded with the current model (the one chosen in the sidebar; "
        f"{choice.label}): the results only make sense if "
        "the uploaded vectors came from the same model, pooling and layers."
    )
    vector = embed_corpus(model.ref, (query,)).sentence(choice)[0]
    if len(vector) != data.dims:
        raise ValueError(
            f"Under this pooling and these layers the query vector has {len(vector):,} "
            f"dimensions, the uploaded vectors {data.dims:,}: choose one layer (or the sum of "
            "the last four) and a single pooling."
        )
    found = top_k(vector, data.vectors, data.texts, k)
    return found, query_search_snippet(data, files, model.ref, query, choice, k=k)


def _row_choice(container, data: vectorfiles.UploadedVectors) -> int:
    """The uploaded row chosen as the query (0-based): a list to pick from for up to 1,000
    rows, a row number beyond."""
    key = "similarity.vector_query_row"
    if len(data) <= 1000:
        return container.selectbox(
            "Query row",
            range(len(data)),
            format_func=option_labels(
                (i, f"{i + 1}. {data.texts[i][:90]}") for i in range(len(data))
            ),
            key=key,
        )
    row = container.number_input("Query row", 1, len(data), 1, key=key) - 1
    messages.caption(f"Row {row + 1}: {data.texts[row][:200]}", container)
    return int(row)
