"""A store never reads outside its folder (issue 23, finding 4): every file its manifest names
must resolve inside the store folder's real path, whatever ``..``, absolute paths or symbolic
links say; the refusal names the store by its folder's name, never where the file leads."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from explorer.choice import VectorChoice
from explorer.cli import main
from explorer.data.store import open_corpus, save_projection
from explorer.data.store.catalog import find_stores
from tests.store_helpers import edit_manifest, small_store

REFUSED = r"The store 'copy' names a file outside its folder"


@pytest.fixture(scope="module")
def store(tiny, tmp_path_factory):
    store = small_store(tiny, tmp_path_factory.mktemp("store-paths"))
    save_projection(store, "pca", "mean", "last", sample=5)
    return store


@pytest.fixture
def copy(store, tmp_path):
    """A copy of the store in ``allowed/copy`` and a second copy in ``private/store``, the
    outside files a hostile manifest or link points at (same shapes: they would open)."""
    shutil.copytree(store, tmp_path / "allowed/copy")
    shutil.copytree(store, tmp_path / "private/store")
    return tmp_path / "allowed/copy"


def _read_projection(corpus):
    corpus.projection("pca", VectorChoice("mean", "last"))


def _refused(folder, *, open_it=lambda corpus: None):
    with pytest.raises(ValueError, match=REFUSED) as error:
        open_it(open_corpus(folder))
    assert "private" not in str(error.value)
    return error


def _vectors(path: str):
    return lambda m: m["vectors"]["mean"].update({"4": path})


def test_a_dot_dot_vector_path_is_refused(copy):
    edit_manifest(copy, _vectors("../../private/store/vectors/mean/layer_04.npy"))
    _refused(copy)


def test_a_dot_dot_shard_path_is_refused(copy):
    edit_manifest(copy, lambda m: m["shards"][0].update(dir="../../private/store/shards/00000"))
    _refused(copy)


def test_a_dot_dot_projection_path_is_refused(copy):
    def outside(manifest):
        manifest["projections"][0]["file"] = "../../private/store/projections/pca-mean-last.npy"

    edit_manifest(copy, outside)
    _refused(copy, open_it=_read_projection)


def test_an_absolute_path_is_refused(copy):
    outside = copy.parents[1] / "private/store/vectors/mean/layer_04.npy"
    edit_manifest(copy, _vectors(str(outside)))
    _refused(copy)


@pytest.mark.parametrize("folder", ["vectors", "shards", "vectors/mean", "projections"])
def test_a_symlinked_folder_leading_outside_is_refused(copy, folder):
    shutil.rmtree(copy / folder)
    (copy / folder).symlink_to(copy.parents[1] / "private/store" / folder)
    _refused(copy, open_it=_read_projection)


@pytest.mark.parametrize(
    "file",
    [
        "vectors/mean/layer_04.npy",
        "shards/00001/rows.parquet",
        "manifest.json",
        "projections/pca-mean-last.npy",
        "vectors/mean/layer_04.norms.npy",
        "vectors/num_tokens.npy",
        "vectors/truncated.npy",
    ],
)
def test_a_symlinked_file_leading_outside_is_refused(copy, file):
    (copy / file).unlink()
    (copy / file).symlink_to(copy.parents[1] / "private/store" / file)

    def read_all(corpus):
        corpus.projection("pca", VectorChoice("mean", "last"))
        corpus.norms("mean", 4)
        corpus.num_tokens  # noqa: B018 (cached properties read on first use)
        corpus.truncated  # noqa: B018

    _refused(copy, open_it=read_all)


def test_links_inside_the_store_are_followed(copy):
    shutil.move(copy / "vectors", copy / "data")
    (copy / "vectors").symlink_to("data")
    (copy / "vectors/mean/layer_04.npy").unlink()
    (copy / "vectors/mean/layer_04.npy").symlink_to(copy / "data/mean/layer_03.npy")
    corpus = open_corpus(copy)
    np.testing.assert_array_equal(corpus.vectors("mean", 4), corpus.vectors("mean", 3))
    assert len(corpus.texts) == 7


def test_the_catalog_lists_a_store_leading_outside_as_unreadable(copy):
    shutil.rmtree(copy / "vectors")
    (copy / "vectors").symlink_to(copy.parents[1] / "private/store/vectors")
    catalog = find_stores([copy.parent])
    assert catalog.stores == ()
    ((name, reason),) = [(bad.name, bad.reason) for bad in catalog.unreadable]
    assert name == "copy" and "outside its folder" in reason and "private" not in reason


def test_info_refuses_a_store_leading_outside(copy, capsys):
    edit_manifest(copy, lambda m: m["shards"][0].update(dir="../../private/store/shards/00000"))
    assert main(["info", str(copy)]) == 2
    err = capsys.readouterr().err
    assert "names a file outside its folder" in err and "private" not in err
