"""A manifest is checked against the store's schema, bounded in size and depth, before anything
uses it (issue 23, finding 6): a malformed one is a ValueError naming the key, never a
RecursionError, AttributeError or TypeError, in the library and in ``explorer info``."""

from __future__ import annotations

import json
import shutil

import pytest

from explorer.cli import main
from explorer.data.store import open_corpus
from explorer.data.store.format import read_manifest, shard_dir, write_manifest
from explorer.data.store.schema import MAX_MANIFEST_BYTES, MAX_NESTING
from tests.store_helpers import small_store


@pytest.fixture(scope="module")
def store(tiny, tmp_path_factory):
    return small_store(tiny, tmp_path_factory.mktemp("store-schema"))


@pytest.fixture
def copy(store, tmp_path):
    shutil.copytree(store, tmp_path / "copy")
    return tmp_path / "copy"


def _set(key: str, value):
    """A change to the manifest: ``key`` (dotted, ``shards.0.rows``) set to ``value``."""

    def change(manifest):
        *parents, last = key.split(".")
        node = manifest
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value

    return change


BAD = [
    ("model", "bert", r"model must be an object, not a string"),
    ("rows", "forty", r"rows must be an integer of at least 0, not a string"),
    ("rows", None, r"rows must be an integer of at least 0, not null"),
    ("rows", -7, r"rows must be an integer of at least 0, not -7"),
    ("rows", True, r"rows must be an integer of at least 0, not true"),
    ("rows", 7.0, r"rows must be an integer of at least 0, not a number"),
    ("model.num_layers", False, r"model\.num_layers must be an integer from 1 to 256, not false"),
    (
        "model.num_layers",
        10**6,
        r"model\.num_layers must be an integer from 1 to 256, not 1,000,000",
    ),
    ("model.hidden_size", "32", r"model\.hidden_size must be an integer"),
    ("model.name", ["x"], r"model\.name must be a string, not an array"),
    ("input", None, r"input must be an object, not null"),
    ("input.columns", None, r"input\.columns must be an array, not null"),
    ("input.label_column", 3, r"input\.label_column must be a string, not 3"),
    ("tokenizer.lowercase", "yes", r"tokenizer\.lowercase must be true or false"),
    ("poolings", [], r"poolings must be an array of at least 1 item"),
    ("poolings", "mean", r"poolings must be an array, not a string"),
    ("layers", ["last"], r"layers\[0\] must be an integer"),
    ("layers", [0, 99], r"layers must be from 0 to 4"),
    ("dtype", "float64", r"dtype must be one of float32, float16"),
    ("complete", 1, r"complete must be true or false, not 1"),
    ("shards", {"dir": "x"}, r"shards must be an array, not an object"),
    ("shards.1", "shards/00001", r"shards\[1\] must be an object, not a string"),
    ("shards.1.rows", "3", r"shards\[1\]\.rows must be an integer"),
    ("shards.1.dir", None, r"shards\[1\]\.dir must be a path inside the store, not null"),
    ("vectors", None, r"vectors must be an object, not null"),
    ("vectors.mean", "vectors/mean", r"vectors\.mean must be an object, not a string"),
    ("vectors.mean.4", 4, r"vectors\.mean\.4 must be a path inside the store, not 4"),
    ("projections", [{"method": "pca"}], r"projections\[0\] lacks pooling, layers, file"),
    ("limit", 0, r"limit must be an integer of at least 1, not 0"),
    ("rows", 10**30, r"rows must be an integer of at least 0, not a larger integer"),
]


@pytest.mark.parametrize(("key", "value", "message"), BAD)
def test_a_field_of_the_wrong_type_or_range_is_a_value_error_naming_it(copy, key, value, message):
    path = copy / "manifest.json"
    manifest = json.loads(path.read_text())
    _set(key, value)(manifest)
    path.write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=r"manifest\.json: " + message):
        open_corpus(copy)


def test_a_missing_nested_key_is_named(copy):
    path = copy / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["model"]["hidden_size"]
    path.write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=r"manifest\.json: model lacks hidden_size"):
        read_manifest(copy)


def test_200000_levels_of_nesting_are_a_value_error(copy):
    deep = "[" * 200_000 + "]" * 200_000
    (copy / "manifest.json").write_text('{"format": "explorer-corpus-store", "x": ' + deep + "}")
    with pytest.raises(ValueError, match=rf"nests deeper than {MAX_NESTING} levels"):
        read_manifest(copy)


def test_nesting_within_the_parser_but_past_the_bound_is_refused(copy):
    path = copy / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["extra"] = json.loads("[" * MAX_NESTING + "]" * MAX_NESTING)
    path.write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=rf"manifest\.json nests deeper than {MAX_NESTING}"):
        read_manifest(copy)
    manifest["extra"] = json.loads("[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1))
    path.write_text(json.dumps(manifest))
    assert read_manifest(copy)["extra"]  # unknown keys are kept, within the bound


def test_a_manifest_larger_than_the_cap_is_refused_before_parsing(copy):
    path = copy / "manifest.json"
    text = path.read_text()
    path.write_text(text[:-2] + " " * MAX_MANIFEST_BYTES + text[-2:])  # valid JSON, padded
    with pytest.raises(ValueError, match=r"manifest\.json is larger than 4 MB"):
        open_corpus(copy)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"rows": 1' + b"0" * 5000 + b"}", "is not valid JSON"),  # past int's digit limit
        (b'{"format": "\xff"}', "is not valid JSON: not UTF-8"),
        (b"[1, 2]", "is not the manifest of an explorer corpus store"),
        (b'{"format": "explorer-corpus-store", "format_version": true}', "no valid format"),
    ],
)
def test_undecodable_or_foreign_manifests_are_value_errors(copy, content, message):
    (copy / "manifest.json").write_bytes(content)
    with pytest.raises(ValueError, match=message):
        read_manifest(copy)


def test_a_million_row_store_manifest_fits_the_cap_with_room(copy):
    """The manifest of a million rows in shards of 256 (the smallest default) is read."""
    manifest = read_manifest(copy)
    shards = [
        {"dir": shard_dir(i), "rows": 256, "files": ["rows.parquet"], "engine": "local"}
        for i in range(1_000_000 // 256)
    ]
    write_manifest(copy, {**manifest, "rows": 256 * len(shards), "shards": shards})
    size = (copy / "manifest.json").stat().st_size
    assert size < MAX_MANIFEST_BYTES / 8, size
    assert len(read_manifest(copy)["shards"]) == len(shards)


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("model", "bert", "model must be an object"),
        ("rows", "forty", "rows must be an integer"),
        ("rows", None, "rows must be an integer"),
        ("shards.0.rows", None, "shards[0].rows must be an integer"),
        ("projections", [{"method": "pca", "pooling": "mean"}], "projections[0] lacks layers"),
    ],
)
def test_info_on_a_malformed_manifest_prints_one_line_and_exits_2(copy, key, value, named, capsys):
    path = copy / "manifest.json"
    manifest = json.loads(path.read_text())
    _set(key, value)(manifest)
    path.write_text(json.dumps(manifest))
    assert main(["info", str(copy)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("explorer info: error: ") and err.count("\n") == 1, err
    assert named in err


def test_info_on_a_deeply_nested_manifest_prints_one_line_and_exits_2(copy, capsys):
    (copy / "manifest.json").write_text("[" * 200_000 + "]" * 200_000)
    assert main(["info", str(copy)]) == 2
    err = capsys.readouterr().err
    assert "nests deeper" in err and err.count("\n") == 1, err
