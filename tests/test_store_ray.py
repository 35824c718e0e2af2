"""explorer.data.store's Ray Data engine: the same store as the local engine, resumable across
engines, clear messages; and a clear message when Ray is not installed.

One local Ray instance serves the module (starting Ray takes seconds; each pipeline also
starts its actors, which import torch and load the model). In CI Ray is required
(requirements-dev.txt installs requirements-ray.txt); elsewhere these tests skip without it.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from explorer.data.store import Settings, embed_to_store, open_corpus
from explorer.data.store.format import read_manifest
from explorer.data.store.ray_engine import INSTALL, RayEngine, _windows, import_ray
from tests.store_helpers import TEXTS, write_csv

if not os.environ.get("CI"):
    pytest.importorskip("ray", reason=f"Ray is not installed: {INSTALL}")

pytestmark = [
    pytest.mark.slow,
    # Ray Data's own DataContext copies touch its deprecated options
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray"),
]

SETTINGS = Settings(poolings=("cls", "mean", "max"), layers="all", shard_rows=4)


class Killed(Exception):
    pass


@pytest.fixture(scope="module")
def engine():
    """A Ray engine on a local instance: one actor (each pipeline starts its actors, which
    import torch and load the model), blocks of 3 texts, so shards of 4 rows span blocks."""
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    with RayEngine(actors=1, block_rows=3) as started:
        started.start()
        yield started


@pytest.fixture(scope="module")
def stores(tiny_bert_path, tmp_path_factory):
    folder = tmp_path_factory.mktemp("ray-local")
    source = write_csv(folder / "in.csv", TEXTS)
    from explorer.model import load_model

    model = load_model(tiny_bert_path)
    embed_to_store(model, source, folder / "local", SETTINGS)
    return model, source, folder


def _manifest_without_run(folder) -> dict:
    manifest = read_manifest(folder)
    for key in ("created", "finished", "updated"):
        manifest.pop(key)
    for shard in manifest["shards"]:
        shard.pop("engine")
    return manifest


def _assert_same_store(a, b) -> None:
    local, ray = open_corpus(a), open_corpus(b)
    assert ray.texts == local.texts and ray.labels == local.labels
    assert ray.metadata.equals(local.metadata)
    for pooling in local.poolings:
        for layer in local.layers:
            np.testing.assert_allclose(
                ray.vectors(pooling, layer), local.vectors(pooling, layer), atol=1e-5, rtol=0
            )
            np.testing.assert_allclose(
                ray.norms(pooling, layer), local.norms(pooling, layer), atol=1e-5, rtol=0
            )
    np.testing.assert_array_equal(ray.num_tokens, local.num_tokens)
    np.testing.assert_array_equal(
        np.load(b / "vectors/truncated.npy"), np.load(a / "vectors/truncated.npy")
    )
    for shard in read_manifest(a)["shards"]:
        assert pq.read_table(b / shard["dir"] / "rows.parquet").equals(
            pq.read_table(a / shard["dir"] / "rows.parquet")
        )


def test_ray_engine_gives_the_local_store(engine, stores):
    model, source, folder = stores
    seen = []
    with RayEngine(actors=2, block_rows=3) as two:  # on the fixture's Ray: two actors
        manifest = embed_to_store(
            model, source, folder / "ray", SETTINGS, engine=two, progress=seen.append
        )
    assert manifest["complete"] and manifest["rows"] == len(TEXTS)
    _assert_same_store(folder / "local", folder / "ray")
    assert _manifest_without_run(folder / "ray") == _manifest_without_run(folder / "local")
    assert {s["engine"] for s in manifest["shards"]} == {"ray"}
    assert {s["engine"] for s in read_manifest(folder / "local")["shards"]} == {"local"}
    rows = [p.rows for p in seen]
    assert rows == sorted(rows) and rows[-1] == len(TEXTS) and seen[-1].shards == 4
    json.dumps(manifest)  # still plain JSON


def test_a_local_run_resumes_on_ray(engine, stores):
    model, source, folder = stores

    def kill(index: int) -> None:
        if index == 1:
            raise Killed

    with pytest.raises(Killed):
        embed_to_store(model, source, folder / "mixed", SETTINGS, on_shard=kill)
    assert read_manifest(folder / "mixed")["rows"] == 8
    done = []
    manifest = embed_to_store(
        model, source, folder / "mixed", SETTINGS, engine=engine, on_shard=done.append
    )
    assert done == [2, 3]  # the two local shards were kept
    assert [s["engine"] for s in manifest["shards"]] == ["local", "local", "ray", "ray"]
    _assert_same_store(folder / "local", folder / "mixed")


def test_a_text_the_model_cannot_read_is_a_value_error_naming_its_rows(engine, stores, tmp_path):
    model, _, _ = stores
    # row 6 is in shard 1 (rows 5-8), whose first block holds rows 5-7; accents alone are
    # nothing to an uncased tokenizer (control characters alone are skipped as blank)
    rows = [*TEXTS[:5], {**TEXTS[5], "text": "\u0301\u0301\u0301"}, *TEXTS[6:8]]
    source = write_csv(tmp_path / "bad.csv", rows)
    with pytest.raises(ValueError, match=r"^In rows 5-7: Text 2 has no tokens") as error:
        embed_to_store(model, source, tmp_path / "s", SETTINGS, engine=engine)
    assert "Traceback" not in str(error.value)
    manifest = read_manifest(tmp_path / "s")
    assert not manifest["complete"] and manifest["rows"] in (0, 4)  # whole shards only


def test_windows_group_whole_shards():
    import pyarrow as pa

    tables = [pa.table({"text": ["a"] * n}) for n in (4, 4, 4, 2)]
    sizes = [[t.num_rows for t in w] for w in _windows(iter(tables), 8)]
    assert sizes == [[4, 4], [4, 2]]
    assert [[t.num_rows for t in w] for w in _windows(iter(tables), 100)] == [[4, 4, 4, 2]]


def test_without_ray_the_message_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.setitem(sys.modules, "ray.data", None)
    with pytest.raises(ValueError, match="pip install -r requirements-ray.txt"):
        import_ray()
    with pytest.raises(ValueError, match="requirements-ray.txt"):
        RayEngine()
