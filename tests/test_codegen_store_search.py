"""The "Show code" of a search over a saved corpus runs and prints what Corpus.search finds."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.codegen.similarity import store_search_snippet
from tests.snippets import run_snippet
from tests.store_helpers import TEXTS, write_csv


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, bundled):
    from explorer.data.store import Settings, embed_to_store

    folder = tmp_path_factory.mktemp("store-search")
    source = write_csv(folder / "input.csv", TEXTS)
    out = folder / "tickets"
    embed_to_store(bundled, source, out, Settings(layers=[0, 3, 6]), label_column="label")
    return explorer.open_corpus(out)


def _run(source: str, corpus) -> tuple[dict, str]:
    folder = f"path/to/{corpus.path.name}"
    assert source.count(repr(folder)) == 1
    assert str(corpus.path.parent) not in source
    return run_snippet(source.replace(repr(folder), repr(str(corpus.path))))


@pytest.mark.slow
@pytest.mark.parametrize(("pooling", "layers"), [("mean", "last"), ("mean_max", 3)])
def test_snippet_prints_what_corpus_search_finds(bundled, corpus, pooling, layers):
    query = 'Who won the "match"? \\ goal'
    source = store_search_snippet(str(corpus.path), query, pooling, layers, k=4)
    namespace, printed = _run(source, corpus)
    found = corpus.search(bundled, query, 4, pooling=pooling, layers=layers)
    assert namespace["found"].indices.tolist() == found.indices.tolist()
    np.testing.assert_allclose(namespace["found"].scores, found.scores, atol=1e-6)
    lines = printed.splitlines()
    assert len(lines) == 4
    for rank, (line, row, score) in enumerate(
        zip(lines, found.indices, found.scores, strict=True), 1
    ):
        assert line == f"{rank}. {score:.4f}  row {row}  {corpus.texts[row]}"


def test_snippet_names_the_store_by_its_folder_only():
    source = store_search_snippet("/srv/secret/corpora/tickets", "a query", "cls", "sum_last4", 3)
    assert "/srv/secret" not in source
    assert "explorer.open_corpus('path/to/tickets')" in source
    assert "pooling, layers, k = 'cls', 'sum_last4', 3" in source
    compile(source, "<snippet>", "exec")
    with pytest.raises(ValueError, match="pooling"):
        store_search_snippet("tickets", "a query", "median")
