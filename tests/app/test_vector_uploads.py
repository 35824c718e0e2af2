"""AppTest of "Upload vectors": precomputed vectors drawn on Projections and searched on
Similarity & search with no forward pass over their texts; a bad file is an error message."""

from __future__ import annotations

import io
import json
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.app.rendered import html_table, plain
from tests.app.test_projections_page import _legend, _values

pytestmark = pytest.mark.slow

TEXTS = [f"Remark {i} about {('dogs', 'cats', 'fish')[i % 3]}." for i in range(30)]
LABELS = [("dogs", "cats", "fish")[i % 3] for i in range(30)]


def _results(at):
    """The search results table (whole texts: explorer.figures.tables), or None."""
    return html_table(at, "similarity.results")


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _parquet(vectors: np.ndarray, texts=TEXTS) -> bytes:
    table = pa.table(
        {
            "text": texts,
            "label": LABELS[: len(texts)],
            "embedding": pa.array(vectors.tolist(), pa.list_(pa.float32())),
        }
    )
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _clusters(seed: int = 0, dims: int = 16) -> np.ndarray:
    """Three well separated clusters, one per label."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=5, size=(3, dims))
    return (centres[np.arange(30) % 3] + rng.normal(size=(30, dims))).astype(np.float32)


def _choose_vectors(at, prefix: str):
    at.radio(key=f"{prefix}.source").set_value("vectors").run()
    _ok(at)
    assert any("a `.npy` file" in i.value and "Parquet file" in i.value for i in at.info)
    return at


def test_while_vectors_are_awaited_the_pages_offer_their_controls_and_draw_nothing(page):
    # issue 34: the source says it awaits vectors (AwaitedVectors), not the radio's state
    at = _choose_vectors(page("projections"), "projections")
    keys = {w.key for w in at.get("selectbox")}
    assert "projections.pooling" not in keys and "projections.layers" not in keys
    assert not at.get("plotly_chart") and not at.error
    at.switch_page("pages/similarity.py").run()
    at = _choose_vectors(at, "similarity.corpus")
    assert not at.error and _results(at) is None


def test_projections_draw_an_uploaded_npy_with_its_csv(page):
    at = _choose_vectors(page("projections"), "projections")
    at.file_uploader(key="projections.vectors").set_value(
        ("mine.npy", _npy(_clusters()), "application/octet-stream")
    )
    at.run()
    _ok(at)
    assert any("Texts of the vectors" in u.label for u in at.get("file_uploader"))
    texts = pd.DataFrame({"text": TEXTS, "label": LABELS}).to_csv(index=False).encode()
    at.file_uploader(key="projections.vector_texts").set_value(("mine.csv", texts, "text/csv"))
    at.run()
    _ok(at)
    assert not at.error
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    rows = sorted(i for trace in figure["data"] for i in _values(trace["customdata"]))
    assert rows == list(range(30))
    assert sorted(_legend(figure)) == ["cats", "dogs", "fish"]
    assert "PCA of 30 uploaded vectors" in figure["layout"]["title"]["text"]
    assert {m.label: m.value for m in at.metric}["Points"] == "30"
    # Nothing that needs the model on these texts is offered, and the page says why.
    keys = {w.key for w in at.get("selectbox")} | {w.key for w in at.radio}
    assert not {"projections.pooling", "projections.compare", "projections.view"} & keys
    assert any("need texts embedded by the explorer" in plain(c.value) for c in at.caption)
    code = at.code[0].value
    assert "np.load('mine.npy', allow_pickle=False)" in code and "pd.read_csv('mine.csv'" in code
    assert "PCA(n_components=2" in code and "AutoModel" not in code
    # Clusters of the full-space vectors still work on uploaded vectors.
    at.selectbox(key="projections.colour").select("clusters").run()
    _ok(at)
    assert len(_legend(json.loads(at.get("plotly_chart")[0].proto.spec))) == 3


def test_a_wrong_file_is_an_error_not_a_traceback(page):
    at = _choose_vectors(page("projections"), "projections")
    ints = _npy(np.ones((30, 4), dtype=np.int64))
    at.file_uploader(key="projections.vectors").set_value(("ints.npy", ints, "application/x"))
    at.run()
    texts = pd.DataFrame({"text": TEXTS}).to_csv(index=False).encode()
    at.file_uploader(key="projections.vector_texts").set_value(("t.csv", texts, "text/csv"))
    at.run()
    _ok(at)
    assert "int64 values" in plain(at.error[0].value)
    assert not at.get("plotly_chart")
    short = pd.DataFrame({"text": TEXTS[:29]}).to_csv(index=False).encode()
    at.file_uploader(key="projections.vectors").set_value(("v.npy", _npy(_clusters()), "x"))
    at.file_uploader(key="projections.vector_texts").set_value(("t.csv", short, "text/csv"))
    at.run()
    _ok(at)
    assert "CSV has 29 rows but the .npy file has 30 vectors" in plain(at.error[0].value)


def test_similarity_searches_an_uploaded_parquet_by_row(page):
    at = _choose_vectors(page("similarity"), "similarity.corpus")
    vectors = _clusters(dims=16)  # not the model's width: the query is one of the rows
    at.file_uploader(key="similarity.corpus.vectors").set_value(
        ("corpus.parquet", _parquet(vectors), "application/octet-stream")
    )
    at.run()
    _ok(at)
    assert at.radio(key="similarity.vector_query_mode").options == ["Use one of the uploaded rows"]
    assert any("a typed query cannot be compared" in plain(c.value) for c in at.caption)
    at.selectbox(key="similarity.vector_query_row").select(4).run()
    _ok(at)
    results = _results(at)
    assert len(results) == 5 and 5 not in results["index"].tolist()  # row 5 is the query
    assert set(results["label"]) == {LABELS[4]}  # its own cluster
    assert list(results["rank"]) == [1, 2, 3, 4, 5]
    code = at.code[-1].value
    assert "pd.read_parquet('corpus.parquet')" in code and "query_row, k = 4, 5" in code


def test_similarity_embeds_a_query_when_the_vectors_are_the_models(page, bundled):
    texts = [
        "The striker scored twice in the second half.",
        "Our team lost the final on penalties.",
        "This soup needs more salt and pepper.",
        "Fresh bread from the oven smells wonderful.",
        "It will rain all weekend.",
    ]
    import explorer

    vectors = explorer.embed_corpus(bundled, texts).sentence("mean", "last")
    at = _choose_vectors(page("similarity"), "similarity.corpus")
    at.file_uploader(key="similarity.corpus.vectors").set_value(
        ("mine.parquet", _parquet(vectors, texts), "application/octet-stream")
    )
    at.run()
    _ok(at)
    assert at.radio(key="similarity.vector_query_mode").value == "text"
    at.text_input(key="similarity.vector_query").input("Which team won the game?").run()
    _ok(at)
    results = _results(at)
    assert results["text"].iloc[0] in texts[:2]
    assert any("embedded with the current model" in plain(c.value) for c in at.caption)
    assert "only make sense if" in " ".join(plain(c.value) for c in at.caption)
    at.text_input(key="similarity.vector_query").input("  ").run()
    _ok(at)
    assert any("query is empty" in e.value for e in at.error)


def test_a_tiny_parquet_that_unpacks_to_gigabytes_is_refused_on_the_page(page):
    """Issue 23.1: 1.9 KB holding one 5,000-character text in 100,000 rows took the server
    past 2.5 GB; now the page says so before decoding it."""
    from tests.test_parquetfile import repeated_text

    at = _choose_vectors(page("projections"), "projections")
    data = repeated_text(100_000, 5_000)
    at.file_uploader(key="projections.vectors").set_value(("tiny.parquet", data, "x"))
    start = time.perf_counter()
    at.run()
    _ok(at)
    assert time.perf_counter() - start < 10
    assert "unpacks to more than 100 MB" in plain(at.error[0].value)
    assert not at.get("plotly_chart")


def test_the_query_pooling_menu_names_the_models_own_first_token(roberta_page, tiny_roberta):
    # It read "[CLS] token" beside a model whose first token is <s> (MPNet, RoBERTa).
    at = roberta_page("similarity")
    at = _choose_vectors(at, "similarity.corpus")
    vectors = np.random.default_rng(0).normal(size=(len(TEXTS), tiny_roberta.hidden_size))
    at.file_uploader(key="similarity.corpus.vectors").set_value(
        ("mine.parquet", _parquet(vectors.astype(np.float32)), "application/octet-stream")
    )
    at.run()
    _ok(at)
    assert at.radio(key="similarity.vector_query_mode").value == "text"
    options = at.selectbox(key="similarity.vector_pooling").options
    assert "<s> token" in options and not any("[CLS]" in o for o in options)
