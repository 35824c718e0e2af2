""" "Show code" for uploaded vectors: the snippets read the same files into the same rows and
print the page's numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from explorer.codegen.vectorfiles import (
    projection_snippet,
    query_search_snippet,
    row_search_snippet,
)
from explorer.data.vectorfiles import read_vectors
from explorer.maps import ProjectionParams
from explorer.model.ref import ModelRef
from explorer.similarity import _search as search
from tests.snippets import run_snippet

TEXTS = [f"Text {i} about {('dogs', 'cats', 'fish')[i % 3]}." for i in range(40)]


@pytest.fixture
def files(tmp_path):
    """A .npy and a semicolon-free CSV with two empty texts, and the same as one Parquet."""
    vectors = np.random.default_rng(1).normal(size=(40, 12)).astype(np.float32)
    texts = list(TEXTS)
    texts[5] = texts[17] = " "
    labels = [("a", "b", "")[i % 3] for i in range(40)]
    np.save(tmp_path / "v.npy", vectors)
    frame = pd.DataFrame({"text": texts, "label": labels})
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = pa.table(
        {"text": texts, "label": labels, "emb": pa.array(vectors.tolist(), pa.list_(pa.float32()))}
    )
    pq.write_table(table, tmp_path / "v.parquet")
    return tmp_path


def _uploads(folder, max_rows: int = 20_000):
    npy = read_vectors(
        (folder / "v.npy").read_bytes(),
        (folder / "t.csv").read_bytes(),
        label_column="label",
        max_rows=max_rows,
    )
    parquet = read_vectors(
        (folder / "v.parquet").read_bytes(), label_column="label", max_rows=max_rows
    )
    return [(npy, ("v.npy", "t.csv")), (parquet, ("v.parquet",))]


@pytest.mark.parametrize("max_rows", [20_000, 25], ids=["all rows", "sampled"])
def test_projection_snippet_reads_the_same_rows_and_prints_the_pages_pca(files, max_rows):
    for data, names in _uploads(files, max_rows):
        assert data.dropped == 2 and data.sampled == (max_rows == 25)
        snippet = projection_snippet(data, names, ProjectionParams("pca", 2))
        namespace, out = run_snippet(snippet, "snippet.py", files)
        np.testing.assert_array_equal(namespace["vectors"], data.vectors)
        assert namespace["texts"] == list(data.texts)
        assert namespace["labels"] == list(data.labels)
        projector = ProjectionParams("pca", 2).projector().fit(data.vectors)
        assert f"total: {projector.explained_variance_ratio_.sum():.4f}" in out


def test_row_search_snippet_prints_the_pages_results(files):
    for data, names in _uploads(files):
        _, out = run_snippet(row_search_snippet(data, names, 3, 4), "snippet.py", files)
        found = search.top_k(data.vectors[3], data.vectors, data.texts, 5)
        found = found[found["index"] != 3].head(4)
        found["rank"] = range(1, len(found) + 1)
        lines = out.splitlines()
        assert lines[0] == f"query: {data.texts[3]}"
        assert lines[1:] == [
            f"{rank}. {score:.4f}  {text}"
            for rank, score, text in zip(found["rank"], found["score"], found["text"], strict=True)
        ]


def test_query_search_snippet_embeds_the_query_with_the_model(tmp_path, tiny, tiny_bert_path):
    import explorer

    texts = ["The bank raised rates.", "A river bank.", "We ate soup.", "The team won."]
    vectors = explorer.embed_corpus(tiny, texts).sentence("mean", "last")
    pq.write_table(
        pa.table({"text": texts, "v": pa.array(vectors.tolist(), pa.list_(pa.float32()))}),
        tmp_path / "m.parquet",
    )
    data = read_vectors((tmp_path / "m.parquet").read_bytes())
    snippet = query_search_snippet(
        data, ("m.parquet",), ModelRef(tiny_bert_path), "rates", "mean", "last", 2
    )
    assert "only makes sense if" in snippet
    namespace, out = run_snippet(snippet, "snippet.py", tmp_path)
    query = explorer.embed_corpus(tiny, ["rates"]).sentence("mean", "last")[0]
    found = search.top_k(query, data.vectors, data.texts, 2)
    assert out.splitlines()[0] == f"1. {found['score'][0]:.4f}  {found['text'][0]}"
