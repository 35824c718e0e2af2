"""explorer.data.store: one `explorer embed` per store at a time, and a resume keeps only rows that
are where they were committed (issue 23, finding 3)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from explorer.data.store import Settings, embed_to_store, open_corpus
from explorer.data.store.format import NPY_HEADER_BYTES
from explorer.data.store.lock import LOCK_FILE, lock_store
from tests.store_helpers import TEXTS, Killed, kill_after, write_csv

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = Settings(poolings=("cls", "mean"), layers="all", shard_rows=4)


def test_a_second_run_on_the_same_out_is_refused_while_the_first_runs(tiny, tmp_path):
    # the scenario: two runs on one --out; the second starts while the first writes
    source = write_csv(tmp_path / "in.csv", TEXTS)
    refused = []

    def second_run(index: int) -> None:
        if index == 1:
            with pytest.raises(ValueError) as error:
                embed_to_store(tiny, source, tmp_path / "s", SETTINGS)
            refused.append(str(error.value))

    embed_to_store(tiny, source, tmp_path / "s", SETTINGS, on_shard=second_run)
    assert len(refused) == 1
    assert f"process {os.getpid()}" in refused[0] and "being written by another" in refused[0]
    assert "Wait for it to finish" in refused[0]
    embed_to_store(tiny, source, tmp_path / "clean", SETTINGS)
    stored, clean = open_corpus(tmp_path / "s"), open_corpus(tmp_path / "clean")
    assert stored.texts == clean.texts
    for layer in stored.layers:
        np.testing.assert_array_equal(stored.vectors("mean", layer), clean.vectors("mean", layer))
    assert not (tmp_path / "s" / LOCK_FILE).exists()


def _holder(folder: Path) -> subprocess.Popen:
    code = (
        "import sys; from pathlib import Path; from explorer.data.store.lock import lock_store\n"
        f"with lock_store(Path({str(folder)!r})):\n"
        "    print('held', flush=True); sys.stdin.read()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert child.stdout.readline().strip() == "held"
    return child


def test_a_lock_held_by_another_process_is_refused_then_taken_over_when_it_dies(tiny, tmp_path):
    source = write_csv(tmp_path / "in.csv", TEXTS[:5])
    (tmp_path / "s").mkdir()
    child = _holder(tmp_path / "s")
    try:
        with pytest.raises(ValueError, match=f"process {child.pid} .since"):
            embed_to_store(tiny, source, tmp_path / "s", SETTINGS)
    finally:
        child.send_signal(signal.SIGKILL)  # dies holding it: the lock file stays behind
        child.communicate()  # reaped, its pipes closed
    assert json.loads((tmp_path / "s" / LOCK_FILE).read_text())["pid"] == child.pid
    with lock_store(tmp_path / "s") as previous:
        assert previous["pid"] == child.pid
    manifest = embed_to_store(tiny, source, tmp_path / "s", SETTINGS)
    assert manifest["complete"] and manifest["rows"] == 5
    assert not (tmp_path / "s" / LOCK_FILE).exists()


def test_racing_threads_never_hold_the_lock_together(tmp_path):
    holders, most, wins, refusals = [0], [0], [0], [0]
    guard = threading.Lock()

    def contend(barrier: threading.Barrier) -> None:
        barrier.wait()
        try:
            with lock_store(tmp_path):
                with guard:
                    holders[0] += 1
                    wins[0] += 1
                    most[0] = max(most[0], holders[0])
                with guard:
                    holders[0] -= 1
        except ValueError:
            with guard:
                refusals[0] += 1

    for _ in range(40):
        barrier = threading.Barrier(4)
        threads = [threading.Thread(target=contend, args=(barrier,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert most[0] == 1 and wins[0] >= 40 and wins[0] + refusals[0] == 160


@pytest.mark.parametrize("stop", [Killed, KeyboardInterrupt])
def test_the_lock_is_released_on_error_and_interrupt(tiny, tmp_path, stop):
    source = write_csv(tmp_path / "in.csv", TEXTS)

    def interrupt(index: int) -> None:
        raise stop

    with pytest.raises(stop):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS, on_shard=interrupt)
    assert not (tmp_path / "s" / LOCK_FILE).exists()
    assert embed_to_store(tiny, source, tmp_path / "s", SETTINGS)["rows"] == len(TEXTS)


def _killed_store(tiny, tmp_path) -> Path:
    source = write_csv(tmp_path / "in.csv", TEXTS)
    with pytest.raises(Killed):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS, on_shard=kill_after(1))
    return source


def test_resume_refuses_vector_rows_out_of_place(tiny, tmp_path):
    # what a second writer leaves: at a kept shard's place, the rows of other texts (each
    # writer appends a row's vector and its norm alike)
    source = _killed_store(tiny, tmp_path)
    for name, width in (("layer_02.npy", 32), ("layer_02.norms.npy", 1)):
        file = tmp_path / "s/vectors/mean" / name
        rows = np.fromfile(file, dtype=np.float32, offset=NPY_HEADER_BYTES).reshape(-1, width)
        rows[[1, 5]] = rows[[5, 1]]
        with open(file, "r+b") as handle:
            handle.seek(NPY_HEADER_BYTES)
            handle.write(rows.tobytes())
    with pytest.raises(ValueError, match="shards/00000's vectors are not those it was committed"):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS)


def test_resume_refuses_a_kept_shard_whose_rows_file_changed(tiny, tmp_path):
    source = _killed_store(tiny, tmp_path)
    first, second = (tmp_path / f"s/shards/0000{i}/rows.parquet" for i in (0, 1))
    data = first.read_bytes()
    first.write_bytes(second.read_bytes())
    second.write_bytes(data)
    with pytest.raises(ValueError, match="shards/00000 does not hold the rows it was committed"):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS)


def test_resume_refuses_an_input_whose_kept_texts_changed_in_place(tiny, tmp_path):
    # same name, size and modification time (what the manifest compares), other texts
    source = _killed_store(tiny, tmp_path)
    stat = source.stat()
    rows = [dict(row) for row in TEXTS]
    rows[5]["text"], rows[6]["text"] = TEXTS[6]["text"], TEXTS[5]["text"]
    rows[5]["text"] = rows[5]["text"][: len(TEXTS[5]["text"])].ljust(len(TEXTS[5]["text"]), "x")
    rows[6]["text"] = rows[6]["text"][: len(TEXTS[6]["text"])].ljust(len(TEXTS[6]["text"]), "x")
    write_csv(source, rows)
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert source.stat().st_size == stat.st_size
    with pytest.raises(ValueError, match="input's texts differ from the rows its shards/00001"):
        embed_to_store(tiny, source, tmp_path / "s", SETTINGS)


def _plant(kind: str, at: Path, precious: Path) -> None:
    if kind == "symlink":
        at.symlink_to(precious)
    elif kind == "hard link":
        os.link(precious, at)
    elif kind == "foreign file":
        at.write_text("not a lock record\n")
    else:
        os.mkfifo(at)


@pytest.mark.parametrize("kind", ["symlink", "hard link", "foreign file", "fifo"])
def test_a_planted_lock_path_is_refused_and_left_untouched(
    tiny, tiny_bert_path, tmp_path, kind, capsys
):
    # issue 32, finding 3: `ln -s $PWD/precious.txt out/.embed.lock` made `explorer embed`
    # write its lock record into precious.txt
    from explorer.cli import main

    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    (tmp_path / "out").mkdir()
    lock = tmp_path / "out" / LOCK_FILE
    _plant(kind, lock, precious)
    before = lock.lstat()
    with pytest.raises(ValueError, match="is not a lock file of `explorer embed`"):
        with lock_store(tmp_path / "out"):
            pass
    source = write_csv(tmp_path / "in.csv", TEXTS[:2])
    with pytest.raises(ValueError, match="left untouched and nothing was written"):
        embed_to_store(tiny, source, tmp_path / "out", SETTINGS)
    argv = ["embed", str(source), "--out", str(tmp_path / "out"), "--model", tiny_bert_path]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "is not a lock file" in err and "Traceback" not in err
    assert precious.read_text() == "keep me\n"
    after = lock.lstat()
    assert (after.st_ino, after.st_mode, after.st_size) == (
        before.st_ino,
        before.st_mode,
        before.st_size,
    )
    if kind == "foreign file":
        assert lock.read_text() == "not a lock record\n"
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_an_empty_or_stale_lock_file_of_ours_is_taken_over(tmp_path):
    (tmp_path / LOCK_FILE).write_text("")  # a run killed between creating and writing it
    with lock_store(tmp_path) as previous:
        assert previous is None
    stale = {"pid": 2**22 + 12345, "host": "elsewhere-" + os.uname().nodename, "since": "x"}
    (tmp_path / LOCK_FILE).write_text(json.dumps(stale))
    with lock_store(tmp_path) as previous:  # flock decides on a local file system
        assert previous == stale
    assert not (tmp_path / LOCK_FILE).exists()
