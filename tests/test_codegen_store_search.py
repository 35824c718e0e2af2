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


@pytest.fixture(scope="module")
def random_corpus(tmp_path_factory, tiny_bert_path):
    """A corpus embedded with random weights (:func:`random_weights` of a tiny BERT whose own
    weights are not seed 0's, so that the trained weights would give other numbers); its
    manifest names the model ``"<folder> (random weights)"``, which loads nothing."""
    from explorer.data.store import Settings, embed_to_store
    from explorer.model.loading import random_weights
    from tests.tiny_models import save_copy

    folder = tmp_path_factory.mktemp("store-random")
    trained = save_copy(tiny_bert_path, tmp_path_factory.mktemp("model-seed1"), seed=1)
    model = random_weights(explorer.load_model(trained))
    source = write_csv(folder / "input.csv", TEXTS)
    embed_to_store(model, source, folder / "random", Settings(layers=[0, 4]))
    return explorer.open_corpus(folder / "random"), model


def test_the_snippet_of_a_corpus_embedded_with_random_weights_prints_the_pages_numbers(
    random_corpus,
):
    corpus, model = random_corpus
    query = "The referee missed the goal."
    source = store_search_snippet(corpus.path.name, query, "mean", "last", 4, model=model.ref)
    assert str(model.source) in source  # the trained model's folder: hide_folders hides it
    namespace, printed = _run(source, corpus)
    found = corpus.search(model, query, 4, pooling="mean", layers="last")  # as the page
    assert namespace["found"].indices.tolist() == found.indices.tolist()
    np.testing.assert_allclose(namespace["found"].scores, found.scores, atol=1e-6)
    first = printed.splitlines()[0]
    assert (
        first
        == f"1. {found.scores[0]:.4f}  row {found.indices[0]}  {corpus.texts[found.indices[0]]}"
    )
    # the trained weights are not the corpus's: the store refuses them
    with pytest.raises(ValueError, match="not the model this store was embedded with"):
        corpus.search(explorer.load_model(model.source), query, 4)


def test_an_operator_folder_of_random_weights_is_hidden(tmp_path):
    from explorer.codegen import hide_folders
    from explorer.model.ref import ModelRef

    folder = str(tmp_path / "secret-models" / "bert")
    source = store_search_snippet("tickets", "q", "mean", "last", 3, model=ModelRef(folder, True))
    shown = hide_folders(source, [folder])
    assert str(tmp_path) not in shown and "name = 'path/to/bert'" in shown
    compile(shown, "<snippet>", "exec")
