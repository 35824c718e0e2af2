"""explorer.ui.sourcetypes: one type per kind of text source, each answering what the pages
ask (its texts and labels, the columns a map can be coloured by, whether its vectors are there
already, what to say under the choice) so no page tests a kind string."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from explorer.data import uploads
from explorer.data.vectorfiles import UploadedVectors
from explorer.ui.sourcetypes import (
    AwaitedVectors,
    BuiltinSet,
    PastedLines,
    SavedCorpus,
    Source,
    UploadedCsv,
    VectorFile,
)

TEXTS = ("The river bank flooded.", "She paid at the bank.", "A late goal won it.")
DATA = uploads.from_lists(TEXTS, ["river", "money", "sport"], {"score": ["1", "2", "3"]})


def _vectors() -> UploadedVectors:
    vectors = np.arange(12, dtype=np.float32).reshape(3, 4)
    return UploadedVectors(
        TEXTS,
        ("a", "b", "a"),
        vectors,
        digest="d",
        label_column="topic",
        dropped=1,
        columns=(("source", ("x", "y", "z")),),
    )


def test_texts_kinds_carry_their_texts_and_run_the_model():
    builtin = BuiltinSet(DATA, "Sense", "Sentences using 'bank'.")
    pasted = PastedLines(uploads.labelled_lines("river\tThe bank flooded.\nNo label here."))
    csv = UploadedCsv(DATA, "topic")
    for source in (builtin, pasted, csv):
        assert isinstance(source, Source)
        assert not source.embedded and source.store is None and source.vectors is None
        assert source.files == ()
    assert builtin.data.texts == TEXTS and builtin.label_title == "Sense"
    assert builtin.description == "Sentences using 'bank'."
    assert pasted.label_title == "Label" and pasted.description == ""
    assert pasted.data.labels == ("river", uploads.NO_LABEL)
    assert csv.label_title == "topic" and csv.description == ""


def test_columns_and_their_cells_for_the_rows_drawn():
    source = UploadedCsv(DATA, "Label")
    assert source.columns() == ["score"]
    assert source.column("score", None, np.array([2, 0])) == ["3", "1"]
    assert PastedLines(uploads.from_lists(TEXTS)).columns() == []
    with pytest.raises(ValueError, match="The data has no column 'colour': choose another"):
        source.column("colour", None, np.array([0]))


def test_a_vector_file_holds_its_vectors_texts_and_files():
    found = _vectors()
    source = VectorFile.of(found, ["vectors.npy", "texts.csv"])
    assert source.embedded and source.store is None
    assert source.vectors is found and source.files == ("vectors.npy", "texts.csv")
    assert source.data == uploads.LabelledTexts(TEXTS, ("a", "b", "a"), 1, found.columns)
    assert source.label_title == "topic"
    assert source.columns() == ["source"]
    assert source.column("source", None, np.array([1])) == ["y"]
    assert hash(source) == hash(VectorFile.of(found, ("vectors.npy", "texts.csv")))


def test_a_saved_corpus_reads_its_columns_from_its_store(tiny, tmp_path):
    from explorer.data.store import embed_to_store
    from tests.store_helpers import TEXTS as ROWS
    from tests.store_helpers import write_csv

    csv = write_csv(tmp_path / "input.csv", ROWS)
    folder = tmp_path / "tickets"
    embed_to_store(tiny, csv, folder, label_column="label")
    source = SavedCorpus(str(folder))
    assert source.embedded and source.data is None and source.vectors is None
    assert source.store == str(folder) and "nothing runs the model" in source.description
    assert source.columns() == ["score", "source"]
    points = SimpleNamespace(path=str(folder), rows=(0, 1, 2, 3))
    cells = source.column("source", points, np.array([3, 1]))
    assert list(cells) == [ROWS[3]["source"], ROWS[1]["source"]]
    with pytest.raises(ValueError, match="The saved corpus has no column 'colour'"):
        source.column("colour", points, np.array([0]))


def test_a_damaged_store_offers_no_columns(tmp_path):
    assert SavedCorpus(str(tmp_path / "missing")).columns() == []


def test_awaited_vectors_are_not_ready_and_take_the_uploaded_vectors_controls():
    """A page asks the source whether vectors are awaited (issue 34), not the radio's state."""
    awaited = AwaitedVectors()
    assert not awaited.ready and awaited.uploaded_vectors
    assert awaited.columns() == [] and awaited.vectors is None and awaited.data is None
    assert VectorFile.of(_vectors(), ["v.npy"]).uploaded_vectors
    for source in (BuiltinSet(DATA), PastedLines(DATA), UploadedCsv(DATA), SavedCorpus("x")):
        assert source.ready and not source.uploaded_vectors


def _probe_source_script() -> None:
    import streamlit as st

    from explorer.ui import sources

    source = sources.labelled_source("probe", st.columns(2))
    st.session_state["kind"] = type(source).__name__
    st.session_state["table"] = sources.probe_table(source)


def test_the_probe_pages_labelled_source_is_a_source_type():
    """labelled_source returned a (frame, task, store) tuple (issue 34); now a source type whose
    table holds the word column of a word task."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_probe_source_script, default_timeout=60)
    at.query_params["probe.dataset"] = "Word senses (token level)"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["kind"] == "BuiltinSet"
    table = at.session_state["table"]
    assert list(table.columns) == ["text", "label", "word"] and len(table) > 10
    at.selectbox(key="probe.dataset").set_value("topics").run()
    assert list(at.session_state["table"].columns) == ["text", "label"]
