"""The Projections "Show code" ending: the map drawn as the page colours it, written as one
HTML file, printing the numbers of the page's sentence on a numeric column."""

from __future__ import annotations

import re

import numpy as np
import plotly.io as pio
import pytest

from explorer.codegen.mapfile import map_file_block
from explorer.codegen.projections import projection_snippet
from explorer.maps import ProjectionParams, value_agreement
from explorer.model.ref import ModelRef
from tests.snippets import assert_prints_headline, run_snippet


def _prefix(coords: np.ndarray, texts: list[str]) -> str:
    return f"import numpy as np\ncoords = np.array({coords.tolist()!r})\ntexts = {texts!r}\n"


def test_numeric_column_program_prints_the_pages_numbers_and_writes_an_offline_file(tmp_path):
    rng = np.random.default_rng(0)
    coords = rng.normal(size=(40, 2))
    values = coords[:, 0] * 3 + rng.normal(size=40)
    values[5] = np.nan
    texts = [f"text {i}" for i in range(40)]
    block = map_file_block("stars", values, numeric=True, contours=True, file_name="m.html")
    _, out = run_snippet(_prefix(coords, texts) + block, folder=tmp_path)
    near, far, _ = value_agreement(coords, np.round(values, 6), k=5)
    assert f"neighbours differ by {near:.3g}, random points by {far:.3g}" in out
    page = (tmp_path / "m.html").read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]*\ssrc=", page)
    figure = pio.from_json(
        re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*(\[.*?\]),\s*\{", page, re.S)
        .group(1)
        .join(['{"data":', "}"])
    )
    kinds = [trace.type for trace in figure.data]
    assert kinds == ["histogram2dcontour", "scatter", "scatter"]
    assert figure.data[2].name == "no value" and figure.data[2].text == ("text 5",)
    assert figure.data[1].marker.colorbar.title.text == "stars"


def test_categories_get_a_trace_each_and_no_numbers(tmp_path):
    coords = np.arange(12, dtype=float).reshape(6, 2)
    labels = ["dog", "cat", "dog", "fish", "cat", "dog"]
    block = map_file_block("animal", labels, numeric=False, contours=False)
    namespace, out = run_snippet(
        _prefix(coords, [f"t{i}" for i in range(6)]) + block, folder=tmp_path
    )
    assert [trace.name for trace in namespace["fig"].data] == ["dog", "cat", "fish"]
    assert list(namespace["fig"].data[0].x) == [0.0, 4.0, 10.0]
    assert "neighbours differ" not in out and (tmp_path / "map.html").is_file()
    plain = map_file_block("Label", None, numeric=False, contours=False)
    namespace, _ = run_snippet(
        _prefix(coords, [f"t{i}" for i in range(6)]) + plain, folder=tmp_path
    )
    assert len(namespace["fig"].data) == 1


def test_a_program_cut_to_its_first_texts_keeps_their_values(tmp_path):
    coords = np.arange(8, dtype=float).reshape(4, 2)
    block = map_file_block("n", [1, 2, 3, 4, 5, 6], numeric=True, contours=False)
    namespace, _ = run_snippet(_prefix(coords, list("abcd")) + block, folder=tmp_path)
    assert namespace["values"] == [1, 2, 3, 4]


@pytest.mark.slow
def test_after_the_pages_projection_program(bundled, tmp_path):
    texts = ["A dog barks.", "Cats sleep all day.", "Stocks fell.", "Rain again.", "Bonds rose."]
    lengths = [len(t.split()) for t in texts]
    snippet = projection_snippet(
        ModelRef(bundled.name), texts, "mean", "last", ProjectionParams("pca", 2)
    )
    block = map_file_block("Length (words)", lengths, numeric=True, contours=True)
    namespace, out = run_snippet(snippet + block, folder=tmp_path)
    near, far, _ = value_agreement(namespace["coords"], np.array(lengths, dtype=float))
    assert f"neighbours differ by {near:.3g}, random points by {far:.3g}" in out
    assert (tmp_path / "map.html").stat().st_size > 3_000_000


@pytest.mark.slow
def test_labelled_map_prints_the_pages_headline(bundled, tmp_path):
    # issue 33.5: a map coloured by labels printed no number of the page's sentence (the share
    # of map neighbours with a point's label against the shuffled share, the groups' shares)
    from explorer.maps import map_notice, trustworthiness

    topics = {
        "animals": ["A dog barks.", "Cats sleep all day.", "The horse ran.", "Birds sing."],
        "money": ["Stocks fell.", "Bonds rose.", "The bank lent cash.", "Prices went up."],
        "weather": ["Rain again.", "A sunny day.", "Snow fell overnight.", "Wind and storms."],
    }
    texts = [t for group in topics.values() for t in group]
    labels = [label for label, group in topics.items() for _ in group]
    snippet = projection_snippet(
        ModelRef(bundled.name), texts, "mean", "last", ProjectionParams("pca", 2)
    )
    block = map_file_block("Label", labels, numeric=False, contours=False)
    namespace, out = run_snippet(snippet + block, folder=tmp_path)
    coords = namespace["coords"]
    trust = trustworthiness(namespace["vectors"], coords, n_neighbors=5)
    headline = map_notice(coords, labels, trust=trust)
    assert "shuffled" in headline
    assert_prints_headline(out, headline)
