"""explorer.data.store: an interrupted run resumes to the same store; other settings are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.data.store import Settings, embed_to_store, open_corpus
from explorer.data.store.format import read_manifest
from tests.store_helpers import TEXTS, Killed, kill_after, write_csv

SETTINGS = Settings(poolings=("cls", "mean"), layers="all", shard_rows=4)


def _same_store(a, b) -> None:
    assert a.texts == b.texts and a.labels == b.labels
    assert a.metadata.equals(b.metadata)
    for pooling in a.poolings:
        for layer in a.layers:
            np.testing.assert_array_equal(a.vectors(pooling, layer), b.vectors(pooling, layer))
            np.testing.assert_array_equal(a.norms(pooling, layer), b.norms(pooling, layer))
    np.testing.assert_array_equal(a.num_tokens, b.num_tokens)


def test_resume_after_a_kill_equals_one_clean_run(tiny, tmp_path):
    source = write_csv(tmp_path / "in.csv", TEXTS)
    embed_to_store(tiny, source, tmp_path / "clean", SETTINGS)

    with pytest.raises(Killed):
        embed_to_store(tiny, source, tmp_path / "resumed", SETTINGS, on_shard=kill_after(1))
    manifest = read_manifest(tmp_path / "resumed")
    assert not manifest["complete"] and manifest["rows"] == 8 and len(manifest["shards"]) == 2
    with pytest.raises(ValueError, match="unfinished.*Rerun the same"):
        open_corpus(tmp_path / "resumed")
    # a shard that was being written when the process died: a temp folder, and a renamed
    # folder the manifest never listed; neither may be read
    (tmp_path / "resumed/shards/.tmp-00002").mkdir()
    (tmp_path / "resumed/shards/.tmp-00002/cls.npy").write_bytes(b"half")
    (tmp_path / "resumed/shards/00002").mkdir()
    (tmp_path / "resumed/shards/00002/rows.parquet").write_bytes(b"junk")

    shards_seen = []
    embed_to_store(tiny, source, tmp_path / "resumed", SETTINGS, on_shard=shards_seen.append)
    assert shards_seen == [2, 3]  # the first two shards were not embedded again
    clean, resumed = open_corpus(tmp_path / "clean"), open_corpus(tmp_path / "resumed")
    assert len(resumed) == len(TEXTS)
    _same_store(clean, resumed)
    assert not (tmp_path / "resumed/shards/.tmp-00002").exists()


def test_vectors_of_a_shard_whose_commit_was_cut_short_are_dropped(tiny, tmp_path):
    # a killed run can leave rows appended to the vector files that the manifest never listed
    source = write_csv(tmp_path / "in.csv", TEXTS)
    embed_to_store(tiny, source, tmp_path / "clean", SETTINGS)
    with pytest.raises(Killed):
        embed_to_store(tiny, source, tmp_path / "resumed", SETTINGS, on_shard=kill_after(0))
    for file in (tmp_path / "resumed/vectors").rglob("*.npy"):
        with open(file, "ab") as handle:
            handle.write(b"\x01" * 3000)  # more than a shard's rows, not a whole row
    embed_to_store(tiny, source, tmp_path / "resumed", SETTINGS)
    _same_store(open_corpus(tmp_path / "clean"), open_corpus(tmp_path / "resumed"))


@pytest.mark.parametrize("damage", ["shorter", "missing"])
def test_a_vector_file_with_fewer_rows_than_its_manifest_is_refused(tiny, tmp_path, damage):
    source = write_csv(tmp_path / "in.csv", TEXTS)
    with pytest.raises(Killed):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS, on_shard=kill_after(1))
    file = tmp_path / "s/vectors/mean/layer_01.npy"
    if damage == "missing":
        file.unlink()
        message = "layer_01.npy is missing, but the store's manifest lists 8 rows"
    else:
        with open(file, "r+b") as handle:
            handle.truncate(file.stat().st_size - 10)
        message = "layer_01.npy holds 7 rows, but the store's manifest lists 8"
    with pytest.raises(ValueError, match=message):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS)


def test_an_unfinished_store_of_an_earlier_version_is_refused(tiny, tmp_path):
    source = write_csv(tmp_path / "in.csv", TEXTS)
    with pytest.raises(Killed):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS, on_shard=kill_after(0))
    manifest = json.loads((tmp_path / "s/manifest.json").read_text())
    manifest["shards"][0]["files"] = ["rows.parquet", "cls.npy", "mean.npy"]
    (tmp_path / "s/manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="earlier version of `explorer embed`.*new --out"):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS)


def test_a_complete_store_is_returned_as_it_is(tiny, tmp_path):
    source = write_csv(tmp_path / "in.csv", TEXTS[:5])
    first = embed_to_store(tiny, source, tmp_path / "s", SETTINGS)
    again = embed_to_store(tiny, source, tmp_path / "s", SETTINGS, on_shard=kill_after(0))
    assert again["finished"] == first["finished"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"poolings": ("mean",)}, "poolings"),
        ({"layers": "last"}, "layers"),
        ({"dtype": "float16"}, "dtype"),
        ({"precision": "bfloat16"}, "precision"),
        ({"limit": 3}, "limit"),
    ],
)
def test_resuming_with_other_settings_is_refused(tiny, tmp_path, change, message):
    source = write_csv(tmp_path / "in.csv", TEXTS[:9])
    with pytest.raises(Killed):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS, on_shard=kill_after(0))
    other = Settings(**{**SETTINGS.__dict__, **change})
    with pytest.raises(ValueError, match=f"made with {message}.*cannot be resumed"):
        embed_to_store(tiny, source, tmp_path / "s", other)


def test_resuming_with_another_model_or_input_is_refused(tiny, bundled, tmp_path):
    source = write_csv(tmp_path / "in.csv", TEXTS[:9])
    with pytest.raises(Killed):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS, on_shard=kill_after(0))
    with pytest.raises(ValueError, match="made with model .*cannot be resumed"):
        embed_to_store(bundled, source, tmp_path / "s", SETTINGS)
    write_csv(source, TEXTS[:10])
    with pytest.raises(ValueError, match="made with input 'in.csv' .differs in size"):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS)


def test_out_must_be_a_store_or_empty(tiny, tmp_path):
    source = write_csv(tmp_path / "in.csv", TEXTS[:3])
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy/notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a corpus store"):
        embed_to_store(tiny, source, tmp_path / "busy", SETTINGS)


def test_limit_and_blank_texts(tiny, tmp_path):
    rows = [*TEXTS[:3], {**TEXTS[3], "text": "   "}, *TEXTS[4:8]]
    source = write_csv(tmp_path / "in.csv", rows)
    manifest = embed_to_store(tiny, source, tmp_path / "s", Settings(shard_rows=2, limit=5))
    corpus = open_corpus(tmp_path / "s")
    assert corpus.texts == [r["text"] for r in rows if r["text"].strip()][:5]
    assert manifest["skipped"] == 1
    stored = json.loads((tmp_path / "s/manifest.json").read_text())
    assert stored["rows"] == 5 and stored["complete"]
