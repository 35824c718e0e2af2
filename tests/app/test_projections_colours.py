"""AppTest of the Projections map's colourings by a column of the data, its density contours
and "Download this map" (a standalone HTML file)."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from explorer.data.columns import LENGTH
from explorer.maps import value_agreement
from tests.app.rendered import plain
from tests.app.test_projections_page import _legend, _values
from tests.snippets import run_snippet

pytestmark = pytest.mark.slow

LENGTH_OPTION = "length"


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _figure(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def _coords(figure: dict) -> np.ndarray:
    """Every point's map coordinates by row (the traces carry their rows in customdata)."""
    rows, xs, ys = [], [], []
    for trace in figure["data"]:
        if "customdata" in trace:
            rows += _values(trace["customdata"])
            xs += _values(trace["x"])
            ys += _values(trace["y"])
    order = np.argsort(rows)
    return np.column_stack([np.array(xs)[order], np.array(ys)[order]])


def test_builtin_columns_colour_the_map_by_category_or_number(page):
    at = page("projections")
    colour = at.selectbox(key="projections.colour")
    assert colour.value == "labels"  # today's colouring stays the default
    assert {"Column: topic", "Column: sentiment", "Text length (words)"} <= set(colour.options)
    colour.select("column:sentiment").run()
    _ok(at)
    figure = _figure(at)
    assert sorted(_legend(figure)) == ["negative", "positive"]
    assert figure["layout"]["legend"]["title"]["text"] == "sentiment"
    headline = [plain(i.value) for i in at.info if "nearest points share its" in plain(i.value)]
    assert headline and "share its “sentiment” value (" in headline[0]  # not "its label"
    assert "if the “sentiment” values were shuffled" in headline[0]
    at.selectbox(key="projections.colour").select(LENGTH_OPTION).run()
    _ok(at)
    figure = _figure(at)
    scale = figure["data"][0]
    assert scale["marker"]["colorbar"]["title"]["text"] == LENGTH
    from explorer.data import corpora

    words = [len(t.split()) for t in corpora.load_dataset("Topics")["text"]]
    assert scale["marker"]["cmin"] == min(words) and scale["marker"]["cmax"] == max(words)
    near, far, _ = value_agreement(_coords(figure), np.array(words, dtype=float))
    notice = [plain(i.value) for i in at.info if f"differ in “{LENGTH}”" in plain(i.value)]
    assert notice and f"by {near:,.3g} on average, against {far:,.3g}" in notice[0]
    code = at.code[0].value
    assert "write_html('pca-map.html', include_plotlyjs=True)" in code
    assert "neighbours differ by" in code


def test_contours_and_the_download_button(page):
    at = page("projections")
    button = at.get("download_button")[0]
    assert re.fullmatch(r"Download this map \(HTML, \d+\.\d MB\)", button.proto.label)
    assert [t["type"] for t in _figure(at)["data"]] == ["scatter"] * 4
    at.checkbox(key="projections.contours").check().run()
    _ok(at)
    kinds = [t["type"] for t in _figure(at)["data"]]
    assert kinds == ["contour"] + ["scatter"] * 4
    assert "Histogram2dContour" in at.code[0].value
    at.radio(key="projections.dims").set_value(3).run()
    _ok(at)
    assert not at.get("checkbox") or "projections.contours" not in {
        c.key for c in at.get("checkbox")
    }
    assert all(t["type"] != "contour" for t in _figure(at)["data"])


def test_an_uploaded_csv_offers_its_columns_numbers_and_categories(page, tmp_path):
    at = page("projections")
    at.radio(key="projections.source").set_value("upload").run()
    frame = pd.DataFrame(
        {
            "text": [f"Sentence {i} is about {('dogs', 'cats')[i % 2]}." for i in range(14)],
            "label": [str(i % 2) for i in range(14)],
            "stars": [str(i % 5 + 1) if i != 3 else "" for i in range(14)],
            "city": [("Oslo", "Rome", "Lima")[i % 3] for i in range(14)],
        }
    )
    data = frame.to_csv(index=False).encode()
    at.file_uploader(key="projections.csv").set_value(("mine.csv", data, "text/csv"))
    at.run()
    _ok(at)
    options = at.selectbox(key="projections.colour").options
    assert "Column: stars" in options and "Column: city" in options
    assert "Column: text" not in options and "Column: label" not in options
    at.selectbox(key="projections.colour").select("column:stars").run()
    _ok(at)
    figure = _figure(at)
    scale, empty = figure["data"]
    assert scale["marker"]["colorbar"]["title"]["text"] == "stars"
    assert (scale["marker"]["cmin"], scale["marker"]["cmax"]) == (1, 5)
    assert _values(empty["customdata"]) == [3] and empty["name"] == "no value"
    assert any("1 point(s) without a value are grey" in plain(i.value) for i in at.info)
    namespace, out = run_snippet(at.code[0].value, folder=tmp_path)
    assert (tmp_path / "pca-map.html").is_file() and "neighbours differ by" in out
    at.selectbox(key="projections.colour").select("column:city").run()
    _ok(at)
    assert sorted(_legend(_figure(at))) == ["Lima", "Oslo", "Rome"]


def test_a_word_map_colours_each_occurrence_by_its_sentences_column(page):
    at = page("projections")
    at.radio(key="projections.level").set_value("words").run()
    _ok(at)
    at.selectbox(key="projections.colour").select(LENGTH_OPTION).run()
    _ok(at)
    figure = _figure(at)
    hovers = [h for t in figure["data"] if "text" in t for h in t["text"]]
    for hover in hovers[:5]:  # "Length (words): 9<br>... the sentence"
        value, sentence = re.match(r"Length \(words\): (\d+)<br>.*?<br>(.*)", hover).groups()
        plain_sentence = re.sub(r"<[^>]+>", " ", sentence)
        assert int(value) == len(plain_sentence.split())


def test_uploaded_vectors_carry_their_tables_columns(page):
    from tests.app.test_vector_uploads import TEXTS, _choose_vectors, _clusters, _npy

    at = _choose_vectors(page("projections"), "projections")
    at.file_uploader(key="projections.vectors").set_value(("v.npy", _npy(_clusters()), "x"))
    at.run()
    texts = pd.DataFrame({"text": TEXTS, "score": [i / 10 for i in range(30)]})
    buffer = io.StringIO()
    texts.to_csv(buffer, index=False)
    at.file_uploader(key="projections.vector_texts").set_value(
        ("t.csv", buffer.getvalue().encode(), "text/csv")
    )
    at.run()
    _ok(at)
    at.selectbox(key="projections.colour").select("column:score").run()
    _ok(at)
    marker = _figure(at)["data"][0]["marker"]
    assert marker["colorbar"]["title"]["text"] == "score"
    assert (marker["cmin"], marker["cmax"]) == (0.0, 2.9)


def test_a_saved_corpus_offers_its_input_columns(page, bundled, tmp_path, monkeypatch):
    from explorer.data.store import embed_to_store
    from tests.store_helpers import TEXTS, write_csv

    source = write_csv(tmp_path / "input.csv", TEXTS)
    embed_to_store(bundled, source, tmp_path / "corpora" / "tickets", label_column="label")
    monkeypatch.setenv("EXPLORER_CORPORA", str(tmp_path / "corpora"))
    at = page("projections")
    at.radio(key="projections.source").set_value("saved").run()
    _ok(at)
    options = at.selectbox(key="projections.colour").options
    assert {"Column: score", "Column: source"} <= set(options)
    at.selectbox(key="projections.colour").select("column:score").run()
    _ok(at)
    marker = _figure(at)["data"][0]["marker"]
    scores = [row["score"] for row in TEXTS]
    assert marker["colorbar"]["title"]["text"] == "score"
    assert (marker["cmin"], marker["cmax"]) == (min(scores), max(scores))
    at.selectbox(key="projections.colour").select("column:source").run()
    _ok(at)
    assert _legend(_figure(at)) == [row["source"] for row in TEXTS]  # a category each


def _upload(at, frame: pd.DataFrame) -> None:
    at.radio(key="projections.source").set_value("upload").run()
    data = frame.to_csv(index=False).encode()
    at.file_uploader(key="projections.csv").set_value(("mine.csv", data, "text/csv"))
    at.run()
    _ok(at)


def test_a_column_named_like_the_text_length_stays_choosable(page):
    """Issue 32: a CSV column "Length (words)" was replaced by the built-in text length."""
    at = page("projections")
    texts = [
        f"Sentence {i} is about {('dogs', 'cats')[i % 2]}{' too' * (i % 4)}." for i in range(14)
    ]
    lengths = [("short", "long")[i % 2] for i in range(14)]
    labels = [str(i % 3) for i in range(14)]
    _upload(at, pd.DataFrame({"text": texts, "label": labels, LENGTH: lengths}))
    colour = at.selectbox(key="projections.colour")
    assert {f"Column: {LENGTH}", "Text length (words)"} <= set(colour.options)
    colour.select("column:" + LENGTH).run()
    _ok(at)
    assert sorted(_legend(_figure(at))) == ["long", "short"]
    at.selectbox(key="projections.colour").select(LENGTH_OPTION).run()
    _ok(at)
    marker = _figure(at)["data"][0]["marker"]
    words = [len(t.split()) for t in texts]
    assert (marker["cmin"], marker["cmax"]) == (min(words), max(words))


def test_long_cells_and_labels_are_cut_on_the_map_and_said_so(page):
    """Issue 32: one long label or cell cost gigabytes and froze the browser."""
    at = page("projections")
    n = 14
    blob = [f"{i % 3} " + "blob " * 4_000 for i in range(n)]  # 20,000 characters
    labels = [("dogs", "cats")[i % 2] for i in range(n)]
    labels[3] = 'a "quoted" ' + "label " * 5_000
    texts = [f"Sentence {i} is about {('dogs', 'cats')[i % 2]}." for i in range(n)]
    _upload(at, pd.DataFrame({"text": texts, "label": labels, "blob": blob}))
    notes = [plain(i.value) for i in at.info if "longer than 200 characters" in plain(i.value)]
    assert notes and "1 label(s)" in notes[0] and "panel shows the labels whole" in notes[0]
    figure = at.get("plotly_chart")[0].proto.spec
    assert len(figure) < 100_000, len(figure)
    names = _legend(_figure(at))
    assert max(map(len, names)) <= 80 and any(n.startswith('a "quoted" label') for n in names)
    at.selectbox(key="projections.colour").select("column:blob").run()
    _ok(at)
    names = _legend(_figure(at))
    assert len(names) == 3 and max(map(len, names)) <= 80, names
    assert len(at.get("plotly_chart")[0].proto.spec) < 100_000
    notes = [plain(i.value) for i in at.info if "longer than 200 characters" in plain(i.value)]
    assert notes and f"{n} label(s) or value(s)" in notes[0]
