"""The explorer command line: embed -> info -> project -> search, and its exit codes."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer.cli import main
from explorer.data.store import open_corpus
from tests.store_helpers import TEXTS, write_csv

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def store(tiny_bert_path, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    source = write_csv(folder / "in.csv", TEXTS[:10])
    code = main(
        [
            "embed", str(source), "--out", str(folder / "store"), "--model", tiny_bert_path,
            "--pooling", "mean,cls,max", "--shard-rows", "4", "--quiet",
        ]
    )  # fmt: skip
    assert code == 0
    return folder / "store"


def test_embed_round_trip_equals_embed_corpus(store, tiny):
    corpus = open_corpus(store)
    reference = explorer.embed_corpus(tiny, corpus.texts)
    for pooling in explorer.POOLINGS:
        for layers in (*explorer.LAYER_CHOICES, 0, 2, -1):
            np.testing.assert_allclose(
                corpus.sentence(pooling, layers), reference.sentence(pooling, layers), atol=1e-5
            )


def test_summary_line_and_resume_message(tiny_bert_path, tmp_path, capsys):
    source = write_csv(tmp_path / "in.csv", TEXTS[:3])
    args = ["embed", str(source), "--out", str(tmp_path / "s"), "--model", tiny_bert_path]
    assert main([*args, "--layers", "last"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("Embedded 3 texts in ") and "texts/s" in out.out
    assert "texts/s" in out.err  # the progress bar
    assert main([*args, "--layers", "0,2", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "explorer embed: error:" in err and "cannot be resumed" in err
    assert "Traceback" not in err


def test_info_project_search(store, capsys):
    assert main(["info", str(store)]) == 0
    out = capsys.readouterr().out
    assert "10 in 3 shards" in out and "poolings cls, mean, max" in out
    assert main(["project", str(store), "--method", "pca", "--layer", "2"]) == 0
    out = capsys.readouterr().out
    assert "Projected 10 of 10 rows with pca" in out
    # issue 27.7: how to see the map it saved
    parent, name = store.resolve().parent, store.name
    assert f"EXPLORER_CORPORA={parent} streamlit run app.py" in out
    assert f"Projections > Saved corpus > {name}" in out
    coords, rows = open_corpus(store).projection("pca", explorer.VectorChoice("mean", 2))
    assert coords.shape == (10, 2) and rows is None
    assert main(["search", str(store), TEXTS[4]["text"], "-k", "3"]) == 0
    header, *lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and "#4" in lines[0] and TEXTS[4]["text"] in lines[0]
    # issue 27.7: the label of each text, and which pooling and layers were used
    assert f"  {TEXTS[4]['label']}  " in lines[0]
    assert (
        header == "3 nearest of 10 texts by cosine similarity, mean pooling, last layer (layer 4):"
    )
    assert (
        main(["search", str(store), "q", "-k", "1", "--pooling", "cls", "--layer", "sum_last4"])
        == 0
    )
    header = capsys.readouterr().out.splitlines()[0]
    assert "cls pooling, sum of last four layers (layers 4, 3, 2, 1)" in header


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["embed", "missing.csv", "--out", "x"], "No such input file"),
        (["embed", "{csv}", "--out", "{out}", "--pooling", "mean_max"], "computed from mean"),
        (["embed", "{csv}", "--out", "{out}", "--ray-actors", "2"], "go with --engine ray"),
        (["embed", "{csv}", "--out", "{out}", "--text-column", "body"], "no column 'body'"),
        (["info", "{out}"], "not a corpus store"),
        (["search", "{store}", "q", "--pooling", "mean", "--layer", "nine"], "Unknown layer"),
        (["project", "{store}", "--pooling", "avg"], "Unknown pooling 'avg'"),
    ],
)
def test_errors_exit_2_with_one_line(args, message, store, tmp_path, capsys):
    source = write_csv(tmp_path / "in.csv", TEXTS[:2])
    (tmp_path / "out").mkdir()
    args = [a.format(csv=source, out=tmp_path / "out", store=store) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_engine_ray_without_ray_says_how_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    source = write_csv(tmp_path / "in.csv", TEXTS[:2])
    assert main(["embed", str(source), "--out", str(tmp_path / "s"), "--engine", "ray"]) == 2
    err = capsys.readouterr().err
    assert "pip install -r requirements-ray.txt" in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()  # refused before anything was written


def test_precisions_agree_with_the_library():
    from explorer.cli import PRECISIONS
    from explorer.model.precision import PRECISIONS as LIBRARY

    assert tuple(PRECISIONS) == tuple(LIBRARY)


def test_python_m_explorer_runs(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "info", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("explorer info: error:") and "Traceback" not in done.stderr
    usage = subprocess.run(
        [sys.executable, "-m", "explorer", "embed"], cwd=ROOT, capture_output=True, text=True
    )
    assert usage.returncode == 2 and "--out" in usage.stderr


def _interrupt_when(check):
    """Patch the progress bar to raise KeyboardInterrupt (Ctrl-C) once ``check(state)``."""
    from explorer.cli import _embed as cli

    update = cli.Bar.update

    def patched(self, state) -> None:
        update(self, state)
        if check(state):
            raise KeyboardInterrupt

    return patched


def test_ctrl_c_says_how_many_texts_are_kept_and_the_rerun_resumes(
    tiny_bert_path, tmp_path, capsys, monkeypatch
):
    from explorer.cli import _embed as cli

    source = write_csv(tmp_path / "in.csv", TEXTS[:10])
    args = ["embed", str(source), "--out", str(tmp_path / "s"), "--model", tiny_bert_path,
            "--layers", "last", "--shard-rows", "4"]  # fmt: skip
    with monkeypatch.context() as patch:
        patch.setattr(cli.Bar, "update", _interrupt_when(lambda state: state.shards == 2))
        assert main(args) == 130
    err = capsys.readouterr().err
    assert "interrupted; 8 texts are kept in" in err and "resume from text 9" in err
    assert "Embedding" in err and "8 saved" in err and not re.search(r"shard \d", err)
    assert main(args) == 0
    out = capsys.readouterr()
    assert f"Resuming {tmp_path / 's'}: 8 texts were kept from an earlier run" in out.err
    assert out.out.startswith("Embedded 10 texts, resumed after 8 in ")
    assert "10 saved" in out.err and not re.search(r"shard \d", out.err)
    assert main(args) == 0
    assert "is already complete: 10 texts" in capsys.readouterr().out


def test_ctrl_c_before_any_shard_is_complete_says_nothing_is_kept(
    tiny_bert_path, tmp_path, capsys, monkeypatch
):
    from explorer.cli import _embed as cli

    source = write_csv(tmp_path / "in.csv", TEXTS[:6])
    args = ["embed", str(source), "--out", str(tmp_path / "s"), "--model", tiny_bert_path,
            "--layers", "last", "--shard-rows", "4", "--batch-tokens", "16"]  # fmt: skip
    with monkeypatch.context() as patch:
        patch.setattr(cli.Bar, "update", _interrupt_when(lambda state: state.rows > 0))
        assert main(args) == 130
    assert "interrupted; no texts were kept in" in capsys.readouterr().err
    assert main(args) == 0
    err = capsys.readouterr().err
    assert f"Starting {tmp_path / 's'} over: the earlier run kept no texts" in err


def test_the_summary_counts_truncated_texts(tiny_bert_path, tmp_path, capsys):
    from explorer.model.tokenization import MAX_CHARS

    long = "bank " * (MAX_CHARS // 5 + 1)
    rows = [TEXTS[0], {**TEXTS[1], "text": long}, {**TEXTS[2], "text": "goal " * 600}]
    source = write_csv(tmp_path / "in.csv", rows)
    args = ["embed", str(source), "--out", str(tmp_path / "s"), "--model", tiny_bert_path]
    assert main([*args, "--layers", "last"]) == 0
    out = capsys.readouterr().out
    assert "Truncated to 512 tokens (all the model reads): 2 texts, 1 of them over 100,000 " in out


HOSTILE = ("\x1b]52;c;cm0gLXJmIH4K\x07", "\x1b[2J", "\x1b]0;owned\x07", "\x9b31m", "\u202e", "\r")
"""OSC 52 (write the clipboard), clear screen, window title, a C1 CSI, a bidi override, CR."""


def _no_control(text: str) -> None:
    for sequence in HOSTILE:
        assert sequence not in text, repr(sequence)
    assert not any(c in text for c in "\x1b\x07\x9b\u202e\r"), repr(text)


def test_texts_labels_and_column_names_are_printed_without_control_characters(
    tiny_bert_path, tmp_path, capsys
):
    # issue 32, finding 11: search, info and the column-listing error printed them raw
    rows = [
        {"text": f"{HOSTILE[i % 6]}bank text {i}", "label": f"{HOSTILE[(i + 1) % 6]}L", "n": i}
        for i in range(6)
    ]
    source = tmp_path / "in.csv"
    frame = pd.DataFrame(rows).rename(columns={"n": f"col{HOSTILE[0]}{HOSTILE[1]}"})
    frame.to_csv(source, index=False, quoting=csv.QUOTE_ALL)  # a CR inside quotes
    out = str(tmp_path / "s")
    assert main(["embed", str(source), "--out", out, "--model", tiny_bert_path, "--quiet"]) == 0
    assert main(["info", out]) == 0
    printed = capsys.readouterr().out
    _no_control(printed)
    assert "col\\x1b]52;c;cm0gLXJmIH4K\\x07\\x1b[2J" in printed  # escaped, still readable
    assert main(["search", out, "bank text", "-k", "6", "--model", tiny_bert_path]) == 0
    printed = capsys.readouterr().out
    _no_control(printed)
    lines = printed.splitlines()[1:]
    assert len(lines) == 6 and "\\x1b[2J" in printed and "\\u202e" in printed
    # the labels are escaped before they are padded: the texts start in one column
    found = [re.match(r"^ +\d  \S+  #\d +(?P<label>\S+L) *  (?P<text>\S.*)$", x) for x in lines]
    assert all(found) and len({m.start("text") for m in found}) == 1, lines
    assert main(["embed", str(source), "--out", out, "--text-column", "body"]) == 2
    err = capsys.readouterr().err
    _no_control(err)
    assert "no column 'body' (columns: text, label, col\\x1b]52;" in err
