"""The corpus of ``python -m bench.bigmap`` without a browser: a valid store with clustered
unit vectors and a label column, which explorer.open_corpus reads."""

from __future__ import annotations

import numpy as np
import pytest

from bench.bigmap import Measure, table
from bench.pageclock import Timing
from bench.store import synthetic_store


def test_a_clustered_store_has_labels_unit_vectors_and_the_given_texts(tmp_path):
    import explorer

    texts = ["The first sentence.", "A second one, longer than the first."]
    synthetic_store(tmp_path / "s", 250, dim=16, shard_rows=100, clusters=5, texts=texts)
    corpus = explorer.open_corpus(tmp_path / "s")
    assert len(corpus) == 250 and corpus.hidden_size == 16
    assert corpus.label_column == "label"
    assert corpus.texts == [texts[i % 2] for i in range(250)]
    assert set(corpus.labels) == {f"cluster {c:02d}" for c in range(1, 6)}
    vectors = np.asarray(corpus.sentence("mean", 6))
    assert vectors.shape == (250, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    # structure: a point's nearest neighbour is almost always in its own cluster
    labels = np.array(corpus.labels)
    found = explorer.neighbors(vectors, np.arange(250), 1).indices[:, 0]
    assert (labels[found] == labels).mean() > 0.9


def test_the_default_store_is_unchanged(tmp_path):
    import explorer

    synthetic_store(tmp_path / "s", 30, dim=8)
    corpus = explorer.open_corpus(tmp_path / "s")
    assert corpus.label_column is None and corpus.texts == [f"text {i}" for i in range(30)]
    expected = np.random.default_rng(0).standard_normal((30, 8), dtype=np.float32)
    np.testing.assert_array_equal(corpus.sentence("mean", 6), expected)


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="clusters"):
        synthetic_store(tmp_path / "a", 10, clusters=-1)
    with pytest.raises(ValueError, match="texts"):
        synthetic_store(tmp_path / "b", 10, texts=[])


def test_the_table_marks_a_missed_target():
    measure = Measure("rerun", 20_000, [Timing(1.5, 0.1, 1.2, 0.2, 0.9)], target=1.0)
    assert measure.median() == 1.5 and measure.met is False
    assert "**no**" in table([measure]).splitlines()[1]


def test_a_bench_server_logs_its_runs(tmp_path):
    """bench.runclock: the server's sitecustomize wraps Streamlit's script runs, and the log
    it writes is read back from a given moment on."""
    import os
    import subprocess
    import sys

    from bench import runclock

    env = {**os.environ, **runclock.server_env(tmp_path / "clock")}
    probe = "from streamlit.runtime.scriptrunner import script_runner as r; " + (
        "print(r.ScriptRunner._run_script.__name__)"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "_timed_run"
    (tmp_path / "clock" / "runs.log").write_text("10.0 10.5\n12.0 12.25\n")
    assert runclock.runs_since(tmp_path / "clock", 11.0) == [(12.0, 12.25)]
    assert runclock.runs_since(tmp_path / "nothing", 0.0) == []
