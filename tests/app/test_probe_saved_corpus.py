"""Which layer? on a saved corpus: listed from EXPLORER_CORPORA, probed on its stored layers
with no forward pass, sampled when large, a clear message when it has nothing to probe."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from explorer.pooling import POOLING_LABELS
from explorer.server import limits
from tests.app.rendered import plain
from tests.store_helpers import TEXTS, write_csv

pytestmark = pytest.mark.slow

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(scope="module")
def corpora_folder(tmp_path_factory, bundled):
    from explorer.data.store import Settings, embed_to_store

    allowed = tmp_path_factory.mktemp("probe-corpora")
    source = write_csv(allowed / "input.csv", TEXTS)
    embed_to_store(bundled, source, allowed / "tickets", Settings(layers=[0, 3, 6]))
    bare = [{"text": row["text"], "id": row["source"]} for row in TEXTS]
    embed_to_store(bundled, write_csv(allowed / "bare.csv", bare), allowed / "untitled")
    return allowed


def _values(array) -> list:
    """A Plotly JSON array, plain or typed (``{"dtype", "bdata"}``), as a list."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), array["dtype"]).tolist()
    return list(array)


def _saved(page, monkeypatch, folder, store: str | None = None):
    monkeypatch.setenv("EXPLORER_CORPORA", str(folder))
    at = page("probe")
    at.radio(key="probe.source").set_value("saved").run()
    if store is not None:
        at.selectbox(key="probe.store").set_value(store).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_a_saved_corpus_is_probed_on_its_stored_layers(page, monkeypatch, corpora_folder):
    at = _saved(page, monkeypatch, corpora_folder)
    stores = at.selectbox(key="probe.store").options
    assert stores == ["tickets", "untitled"]  # the folder names; rows and model under the box
    assert f"{len(TEXTS)} texts · {MODEL}" in " ".join(plain(c.value) for c in at.caption)
    assert at.selectbox(key="probe.column").options == ["label (4 classes)"]
    assert not at.error
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert _values(chart["data"][0]["x"]) == [0, 3, 6]
    assert _values(chart["layout"]["xaxis"]["tickvals"]) == [0, 3, 6]
    assert at.selectbox(key="probe.layer").options == ["0 (embeddings)", "3", "6"]
    best = at.dataframe[0].value
    assert best.loc[0, "features"] == "Mean of tokens" and best.loc[0, "layer"] in (0, 3, 6)
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "keeps layers 0, 3, 6 of 0–6" in captions
    assert "only the linear probe runs" in captions
    assert len(at.get("plotly_chart")) == 1  # no CNN chart: no token vectors in a store
    code = at.code[0].value
    assert "explorer.open_corpus('path/to/tickets')" in code and str(corpora_folder) not in code
    assert "LogisticRegression" in code
    page_text = " ".join(plain(m.value) for m in (*at.markdown, *at.caption, *at.info))
    assert str(corpora_folder) not in page_text
    # issue 27.7: a saved corpus keeps pooled sentence vectors; no subword mode is named
    strategy = at.selectbox(key="probe.features")
    assert strategy.options == ["Mean of tokens"] and strategy.value == "mean"
    assert "subword" not in (page_text + " ".join(plain(i.value) for i in at.info)).lower()

    at.multiselect(key="probe.stored_poolings").set_value(["cls", "mean_max"]).run()
    assert not at.exception, [e.message for e in at.exception]
    names = [t["name"] for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    assert names[:2] == [POOLING_LABELS["cls"], POOLING_LABELS["mean_max"]]


def test_a_large_saved_corpus_is_sampled_and_says_so(page, monkeypatch, corpora_folder):
    monkeypatch.setattr(limits, "MAX_PROBE_ROWS", 8)
    at = _saved(page, monkeypatch, corpora_folder)
    notes = " ".join(plain(i.value) for i in at.info)
    assert "Probing 8 of 14 rows, sampled at random" in notes
    title = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    assert "(8 texts, 2-fold CV)" in title
    assert "limit=8" in at.code[0].value


def test_a_saved_corpus_without_labels_says_what_is_missing(page, monkeypatch, corpora_folder):
    at = _saved(page, monkeypatch, corpora_folder, "untitled")
    message = plain(at.error[0].value)
    assert "no column to probe" in message and "--label-column" in message
    assert "'id': 14 of its 14 values occur in a single text" in message
    assert not at.get("plotly_chart")
