"""What the Probe page probes: labelled texts from a built-in set, an uploaded CSV or a saved
corpus (:func:`explorer.ui.sources.labelled_source`), one word's sentences or all of them, and
the rows one request may probe (sampled beyond the caps, with a note)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from explorer.model.ref import ModelRef
from explorer.ui import messages, sources
from explorer.ui.which_layer._probes import sample_rows
from explorer.ui.which_layer._saved import SavedRows, saved_rows
from explorer.ui.widgets import URL, option_labels

ALL_WORDS = "(all)"


@dataclass(frozen=True)
class ProbeRows:
    """The rows a probe reads: ``texts`` with their ``labels`` (and, for a word task, the
    target ``words``); ``task`` is ``"word"``, ``"sentence"`` or ``"saved"`` (a saved
    corpus's rows, which ``saved`` and ``store`` name)."""

    task: str
    texts: tuple[str, ...]
    labels: tuple[str, ...]
    words: tuple[str, ...] | None
    store: str | None = None
    saved: SavedRows | None = None


def _word(frame: pd.DataFrame, where) -> pd.DataFrame:
    """The "Word" select box in ``where``: the rows of the word chosen, or all of them."""
    options = (ALL_WORDS, *dict.fromkeys(frame["word"].str.strip()))
    word = where.selectbox(
        "Word",
        options,
        format_func=option_labels(
            (w, "All words (one probe per word)" if w == ALL_WORDS else w) for w in options
        ),
        key="probe.word",
        bind=URL,
        help="Each word is probed on its own sentences, so the probe must tell the word's "
        "senses apart; with all words, the accuracy is pooled over them.",
    )
    if word == ALL_WORDS:
        return frame
    return frame[frame["word"].str.strip() == word].reset_index(drop=True)


def probe_rows(model_ref: ModelRef, columns: Sequence) -> ProbeRows:
    """The data widgets in ``columns`` (three) and the rows to probe with the model ``model_ref``
    (notes say what a cap left out). Stops the page while a file is awaited, or after saying
    why the data cannot be probed."""
    try:
        source = sources.labelled_source("probe", columns[:2])
        store = source.store if source is not None else None
        saved = saved_rows(store, columns[2]) if store is not None else None
    except ValueError as error:
        messages.error(error)
        st.stop()
    if source is None:
        st.stop()
    if saved is not None:
        task = "saved"
        if saved.note:
            messages.info(saved.note)
        frame = pd.DataFrame({"text": saved.texts, "label": saved.labels})
    else:
        frame = sources.probe_table(source)
        task = "word" if "word" in frame.columns else "sentence"
        if task == "word":
            frame = _word(frame, columns[2])
    try:
        kept = None
        if saved is None:
            kept = sample_rows(
                model_ref,
                tuple(frame["text"]),
                tuple(frame["label"].astype(str).str.strip()),
                tuple(frame["word"].str.strip()) if task == "word" else None,
            )
    except ValueError as error:
        messages.error(error)
        st.stop()
    if kept and kept.note:
        messages.info(kept.note)
        frame = frame.iloc[kept.rows].reset_index(drop=True)
    return ProbeRows(
        task,
        tuple(frame["text"]),
        tuple(str(label).strip() for label in frame["label"]),
        tuple(frame["word"].str.strip()) if task == "word" else None,
        store,
        saved,
    )
