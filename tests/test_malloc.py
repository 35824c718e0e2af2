"""The allocator settings of a long-running server."""

from __future__ import annotations

import ctypes.util
import subprocess
import sys

import pytest


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not ctypes.util.find_library("c"),
    reason="glibc settings",
)
def test_freed_large_arrays_go_back_to_the_system():
    # In a fresh process: 40 blocks of 4 MB, each followed by a small long-lived object, freed
    # twice; with the settings the 160 MB go back, without them glibc's raised threshold puts
    # the second round in its heap, where the small objects keep it from shrinking.
    script = """
import sys
import numpy as np
from explorer.server.malloc import return_freed_memory
if sys.argv[1] == "on":
    assert return_freed_memory() and return_freed_memory()
def rss():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) // 1024
keep = []
for _ in range(2):
    blocks = []
    for _ in range(40):
        blocks.append(np.ones(2**20, np.float32))
        keep.append(bytearray(4096))  # small, long-lived: pins the heap above each block
    del blocks
print(rss())
"""
    found = {}
    for mode in ("off", "on"):
        out = subprocess.run(
            [sys.executable, "-c", script, mode], capture_output=True, text=True, check=True
        )
        found[mode] = int(out.stdout.split()[-1])
    assert found["on"] < found["off"] - 100, found


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not ctypes.util.find_library("c"),
    reason="glibc malloc_trim",
)
def test_trim_gives_the_free_heap_back():
    # Many small objects fill the heap; all but one in a hundred are freed, and the survivors
    # keep the heap from shrinking at its top: only malloc_trim hands the free pages back.
    script = """
import gc
from explorer.server.malloc import trim
def rss():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) // 1024
objects = [bytearray(2000) for _ in range(100_000)]
keep = objects[::100]
del objects
gc.collect()
before = rss()
trim()
print(before, rss())
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    before, after = int(out[-2]), int(out[-1])
    assert after < before - 100, (before, after)


def test_trim_soon_runs_at_most_once_in_a_while(monkeypatch):
    from explorer.server import malloc

    calls = []
    monkeypatch.setattr(malloc, "_last_trim", float("-inf"))
    monkeypatch.setattr(malloc, "trim", lambda: calls.append(1) or True)
    assert malloc.trim_soon() is (malloc._malloc_trim() is not None)
    assert malloc.trim_soon() is False  # within TRIM_EVERY_S of the first
    monkeypatch.setattr(malloc, "_last_trim", float("-inf"))
    assert malloc.trim_soon() is (malloc._malloc_trim() is not None)
