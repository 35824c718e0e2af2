"""explorer.data.store: shards are sized by time, so an interruption keeps most of the work (issue
27, item 3)."""

from __future__ import annotations

import pytest

from explorer.data.store import Settings, embed_to_store, slicing
from explorer.data.store.format import read_manifest
from explorer.data.store.slicing import COMMIT_SECONDS, FIRST_SHARD_ROWS, ShardSizer
from tests.store_helpers import TEXTS, write_csv


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_first_shard_is_small_and_the_next_take_a_few_seconds():
    clock = Clock()
    sizer = ShardSizer(cap=4096, clock=clock)
    assert sizer.next_rows() == FIRST_SHARD_ROWS
    clock.now += 1.0
    sizer.embedded(200)  # 200 texts/s
    assert sizer.next_rows() == int(200 * COMMIT_SECONDS)
    clock.now += 99.0
    sizer.embedded(20_000)  # a long run commits every tenth of its time so far (10 s) ...
    assert sizer.next_rows() == 2000
    clock.now += 900.0
    sizer.embedded(200_000)  # ... under the memory cap
    assert sizer.next_rows() == 4096
    assert ShardSizer(cap=100, clock=clock).next_rows() == 100


def test_a_given_shard_size_is_kept():
    sizer = ShardSizer(cap=4, by_time=False)
    assert [sizer.next_rows() for _ in range(3)] == [4, 4, 4]


def test_an_engine_reading_ahead_before_any_text_is_embedded_gets_full_shards():
    clock = Clock()
    sizer = ShardSizer(cap=4096, clock=clock)
    sizer.next_rows()
    clock.now += 0.5
    assert sizer.next_rows() == 4096


def test_an_interrupted_small_corpus_keeps_most_of_its_rows(tiny, tmp_path, monkeypatch):
    # issue 27: 3,000 texts, default shards of 4,096 rows, Ctrl-C at 46%: nothing was kept.
    # Here: a corpus smaller than a default shard, a slow run (a sleep per batch), shards
    # sized by time (a commit every 0.2 s), interrupted at 80% of the texts.
    import time

    monkeypatch.setattr(slicing, "COMMIT_SECONDS", 0.2)
    monkeypatch.setattr(slicing, "FIRST_SHARD_ROWS", 8)
    rows = [{**TEXTS[i % len(TEXTS)], "text": f"{TEXTS[i % len(TEXTS)]['text']} {i}"}
            for i in range(200)]  # fmt: skip
    source = write_csv(tmp_path / "in.csv", rows)

    def slow(state) -> None:
        time.sleep(0.01)
        if state.rows >= 160:
            raise KeyboardInterrupt

    settings = Settings(poolings=("mean",), layers="last")
    with pytest.raises(KeyboardInterrupt):
        embed_to_store(tiny, source, tmp_path / "s", settings, progress=slow, batch_tokens=64)
    manifest = read_manifest(tmp_path / "s")
    assert manifest["shard_rows"] >= 200  # one default shard would have held every text
    assert 0.5 * 160 <= manifest["rows"] < 160 and len(manifest["shards"]) >= 3
    done = embed_to_store(tiny, source, tmp_path / "s", settings)
    assert done["rows"] == 200 and done["complete"]
