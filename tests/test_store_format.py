"""explorer.data.store: damaged stores are refused with a ValueError naming the file."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from explorer.choice import VectorChoice
from explorer.data.store import FORMAT_VERSION, open_corpus, save_projection
from explorer.data.store.format import NPY_HEADER_BYTES, model_fingerprint, npy_header
from tests.store_helpers import edit_manifest, small_store


@pytest.fixture(scope="module")
def store(tiny, tmp_path_factory):
    return small_store(tiny, tmp_path_factory.mktemp("store-format"))


@pytest.fixture
def copy(store, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(store, target)
    return target


def test_opens(store):
    corpus = open_corpus(store)
    assert len(corpus) == 7 and corpus.poolings == ("mean",)
    assert not any((store / "shards/00000").glob("*.npy"))  # gathered into vectors/


def test_truncated_npy(copy):
    path = copy / "vectors/mean/layer_04.npy"
    path.write_bytes(path.read_bytes()[:-50])
    with pytest.raises(ValueError, match=r"layer_04\.npy is not a readable \.npy"):
        open_corpus(copy)


def test_wrong_shape(copy):
    np.save(copy / "vectors/mean/layer_02.npy", np.zeros((6, 32), np.float32))
    with pytest.raises(ValueError, match=r"layer_02\.npy holds float32 \(6, 32\).*says"):
        open_corpus(copy)


def test_wrong_dtype(copy):
    np.save(copy / "vectors/mean/layer_02.npy", np.zeros((7, 32), np.float16))
    with pytest.raises(ValueError, match=r"layer_02\.npy holds float16"):
        open_corpus(copy)


def test_missing_vector_file(copy):
    (copy / "vectors/mean/layer_00.npy").unlink()
    with pytest.raises(ValueError, match=r"layer_00\.npy is missing"):
        open_corpus(copy)


def test_missing_shard(copy):
    shutil.rmtree(copy / "shards/00001")
    with pytest.raises(ValueError, match=r"shards/00001/rows\.parquet is missing"):
        open_corpus(copy)


def test_shard_with_other_rows(copy):
    shutil.copy(copy / "shards/00002/rows.parquet", copy / "shards/00001/rows.parquet")
    with pytest.raises(ValueError, match=r"00001/rows\.parquet has 1 rows; the manifest says 3"):
        open_corpus(copy)


def test_newer_version(copy):
    edit_manifest(copy, lambda m: m.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(ValueError, match=r"manifest\.json is format version 2, newer"):
        open_corpus(copy)


def test_bad_json(copy):
    (copy / "manifest.json").write_text('{"format": ')
    with pytest.raises(ValueError, match=r"manifest\.json is not valid JSON"):
        open_corpus(copy)


def test_missing_keys(copy):
    edit_manifest(copy, lambda m: m.pop("shards"))
    with pytest.raises(ValueError, match=r"manifest\.json lacks shards"):
        open_corpus(copy)


def test_not_a_store(tmp_path):
    with pytest.raises(ValueError, match="not a corpus store"):
        open_corpus(tmp_path)
    with pytest.raises(ValueError, match="is not a folder"):
        open_corpus(tmp_path / "nowhere")


def test_fingerprint_is_stable_and_tells_models_apart(tiny, bundled):
    assert model_fingerprint(tiny) == model_fingerprint(tiny)
    assert model_fingerprint(tiny) != model_fingerprint(bundled)


def test_save_projection(copy):
    entry = save_projection(copy, "pca", "mean", "last", sample=5)
    corpus = open_corpus(copy)
    coords, rows = corpus.projection("pca", VectorChoice("mean", "last"))
    assert coords.shape == (5, 2) and rows.shape == (5,) and entry["of_rows"] == 7
    save_projection(copy, "pca", "mean", "last")  # replaces the entry
    corpus = open_corpus(copy)
    assert len(corpus.projections) == 1
    coords, rows = corpus.projection("pca", VectorChoice("mean", "last"))
    assert coords.shape == (7, 2) and rows is None
    assert corpus.projection("tsne", VectorChoice("mean", "last")) is None


@pytest.mark.parametrize(
    ("dtype", "shape"), [("float32", (0, 384)), ("float16", (3, 5)), ("bool", (4,))]
)
def test_npy_header_is_read_by_numpy_and_always_the_same_length(tmp_path, dtype, shape):
    array = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    path = tmp_path / "a.npy"
    path.write_bytes(npy_header(array.dtype, array.shape) + array.tobytes())
    np.testing.assert_array_equal(np.load(path), array)
    assert np.load(path, mmap_mode="r").offset == NPY_HEADER_BYTES
    assert len(npy_header(np.dtype(dtype), (10**15, 4096))) == NPY_HEADER_BYTES


def test_a_finished_store_wrote_each_vector_file_once_with_its_final_header(store):
    manifest = json.loads((store / "manifest.json").read_text())
    assert len(manifest["shards"]) == 3  # the vectors of three shards, appended
    assert [s["files"] for s in manifest["shards"]] == [["rows.parquet"]] * 3
    for file in (store / "vectors").rglob("*.npy"):
        assert len(np.load(file, mmap_mode="r")) == 7
    assert not list((store / "shards").rglob("*.npy"))
