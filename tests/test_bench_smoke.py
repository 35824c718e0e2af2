"""``python -m bench --quick`` runs every measurement and ends with a JSON line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.embedding import encoder_flops, max_cosine_deviation, median_ratio
from bench.sentences import sample_sentences

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_quick_bench_prints_a_table_and_json():
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick"],
        cwd=ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=900,  # a safety net only: 311 s under load 20 on 2 cores, about 100 s quiet
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    report = json.loads(lines[-1])
    assert report["errors"] == {}
    assert set(report["results"]) == {"throughput", "gflops", "memory", "projections", "app"}
    assert report["results"]["throughput"]["ratio"] > 0
    assert report["results"]["throughput"]["max_abs_diff_vs_sentence_transformers"] < 1e-4
    assert report["results"]["app"]["rerun"]["exceptions"] == []
    assert any(line.startswith("| Throughput vs sentence-transformers") for line in lines)


def test_only_rejects_unknown_measurements():
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--only", "nothing"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "unknown measurement" in done.stderr


def test_sentences_are_real_distinct_prose():
    texts, info = sample_sentences(500)
    assert len(texts) == 500 == info["distinct"] == len({t.lower() for t in texts})
    assert all(5 <= len(t.split()) <= 60 and t[0].isupper() and t[-1] in ".!?" for t in texts)
    assert sample_sentences(500)[0] == texts  # deterministic


def test_helpers():
    assert median_ratio([2.0, 4.0, 9.0], [1.0, 1.0, 1.0]) == 4.0
    same = {"mean": np.ones((2, 3, 4), dtype=np.float32)}
    assert max_cosine_deviation(same, same) < 1e-12

    class Config:
        hidden_size, intermediate_size, num_hidden_layers = 4, 16, 2

    # per layer: 2*B*T*(4*16 + 2*4*16) + 4*B*T*T*4, B=1, T=3; plus the pooler 2*1*16
    assert encoder_flops(Config, 1, 3) == 2 * (2 * 3 * 192 + 4 * 9 * 4) + 32


def test_the_registry_names_every_measurement_and_nothing_imports_it_back():
    """bench/run.py lists the measurements; the modules that measure never import it (they
    share bench/measure.py), so the registry stays the one place a measurement is added."""
    import ast

    from bench.run import MEASURE, QUICK_MEASUREMENTS

    assert set(QUICK_MEASUREMENTS) <= set(MEASURE)
    assert all(fn.__module__ not in ("bench.run", "bench.measure") for fn in MEASURE.values())
    importers = []
    for path in sorted((ROOT / "bench").glob("*.py")):
        if path.name in ("run.py", "__main__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if "bench.run" in names:
                importers.append(path.name)
    assert importers == []
