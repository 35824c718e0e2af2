"""Real English sentences for the benchmarks: docstrings of Python and of pinned packages.

A fresh clone has no large text corpus and no network, but every installation has Python's
standard library as source, and ``requirements.txt`` pins numpy, scipy, scikit-learn, pandas
and Streamlit, whose docstrings are written prose too. The files are parsed with :mod:`ast`
(nothing is imported), docstrings are split into sentences, and a sentence is kept when it
reads like prose: 5 to 60 words, a capital letter first, a full stop (or ``!``/``?``) last,
no code symbols, no doctest or indented block. Case-insensitive duplicates are dropped.

Sources are read in the order of :data:`SOURCES` until there are enough sentences: the
standard library alone (Python 3.11) gives about 9,000, all sources together about 29,000,
12 words long on average. The same Python and pinned versions give the same sentences.
"""

from __future__ import annotations

import ast
import importlib.util
import random
import re
import sysconfig
from pathlib import Path

SOURCES = ("stdlib", "numpy", "scipy", "sklearn", "pandas", "streamlit")
"""Where sentences come from, in reading order (``stdlib`` = Python's standard library)."""

_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_CODE = re.compile(r"[=<>{}\[\]|\\`#@$*_~^]|\(\)|::|\.\.\.|https?:")
_SKIPPED_DIRS = {"test", "tests", "testing", "site-packages", "idlelib", "lib2to3"}
_pool: list[str] = []
_seen: set[str] = set()
_read: list[str] = []


def source_folder(source: str) -> Path | None:
    """The folder of one of :data:`SOURCES`, or ``None`` if that package is not installed."""
    if source == "stdlib":
        return Path(sysconfig.get_paths()["stdlib"])
    spec = importlib.util.find_spec(source)
    return Path(spec.origin).parent if spec is not None and spec.origin else None


def sentence_pool(min_size: int = 0) -> tuple[list[str], list[str]]:
    """Distinct prose sentences, reading :data:`SOURCES` in order until ``min_size`` are found.

    Returns ``(sentences, sources_read)``; fewer than ``min_size`` sentences when every
    source is exhausted. Results are kept for the life of the process.
    """
    for source in SOURCES:
        if len(_pool) >= max(min_size, 1):
            break
        if source in _read:
            continue
        _read.append(source)
        folder = source_folder(source)
        if folder is not None:
            _read_folder(folder)
    return list(_pool), list(_read)


def _read_folder(root: Path) -> None:
    files = sorted(
        p for p in root.rglob("*.py") if not _SKIPPED_DIRS & set(p.relative_to(root).parts)
    )
    for path in files:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            continue
        for node in ast.walk(tree):
            if not isinstance(
                node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
            ):
                continue
            for sentence in _prose(ast.get_docstring(node) or ""):
                key = sentence.lower()
                if key not in _seen:
                    _seen.add(key)
                    _pool.append(sentence)


def _prose(docstring: str) -> list[str]:
    """Sentences of the prose paragraphs of one docstring (code examples and tables skipped)."""
    found = []
    for paragraph in re.split(r"\n\s*\n", docstring):
        if ">>>" in paragraph or re.search(r"^\s{2,}", paragraph, re.MULTILINE):
            continue
        for sentence in _SPLIT.split(" ".join(paragraph.split())):
            words = sentence.split()
            if not 5 <= len(words) <= 60 or not sentence[0].isupper():
                continue
            if sentence[-1] in ".!?" and not _CODE.search(sentence):
                found.append(sentence)
    return found


def sample_sentences(n: int, seed: int = 0) -> tuple[list[str], dict[str, object]]:
    """``n`` distinct sentences drawn at random (fixed ``seed``) from :func:`sentence_pool`.

    Returns ``(sentences, info)`` with ``info = {"distinct", "pool", "sources"}``. If the
    sources hold fewer than ``n`` sentences, the pool is repeated (each copy shuffled) and
    ``distinct`` says how many differ.
    """
    pool, sources = sentence_pool(n)
    if not pool:
        raise ValueError("Found no docstring sentences in Python's standard library.")
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        copy = pool[:]
        rng.shuffle(copy)
        out.extend(copy[: n - len(out)])
    return out, {"distinct": min(n, len(pool)), "pool": len(pool), "sources": sources}
