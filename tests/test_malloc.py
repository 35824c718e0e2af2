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
from explorer.malloc import return_freed_memory
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
