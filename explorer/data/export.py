"""Bytes for download buttons: vectors as ``.npy`` and tables as spreadsheet-safe ``.csv``.

A CSV cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return may be
run as a formula when the file is opened in a spreadsheet (CSV injection); such text cells
get a leading single quote. Numbers are written as numbers.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Sequence

import numpy as np
import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def to_npy_bytes(array: np.ndarray) -> bytes:
    """The ``.npy`` file of ``array`` (no pickled objects): ``np.load(BytesIO(b))`` reads it."""
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def from_npy_bytes(data: bytes) -> np.ndarray:
    """Read back :func:`to_npy_bytes` (pickles refused)."""
    return np.load(io.BytesIO(data), allow_pickle=False)


def safe_cell(value: object) -> object:
    """``value`` with a leading ``'`` if it is text a spreadsheet could take for a formula,
    also after Unicode normalisation (a full-width ``＝`` is read as ``=`` by some)."""
    if isinstance(value, str) and unicodedata.normalize("NFKC", value).startswith(FORMULA_STARTS):
        return "'" + value
    return value


def to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of ``frame`` (no index): text cells and column names quoted and made
    formula-safe, numbers written as numbers."""
    safe = frame.copy()
    safe.columns = [safe_cell(str(c)) for c in safe.columns]
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]) and not pd.api.types.is_bool_dtype(
            safe[column]
        ):
            safe[column] = safe[column].map(safe_cell)
    # Quote every text cell: a bare carriage return inside a cell would otherwise end the row
    # (minimal quoting only reacts to the newline character).
    return safe.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC).encode("utf-8")


def vectors_frame(
    vectors: np.ndarray,
    texts: Sequence[str],
    labels: Sequence[object] | None = None,
    words: Sequence[str] | None = None,
    prefix: str = "dim_",
) -> pd.DataFrame:
    """One row per vector: ``text`` (, ``word``) (, ``label``), then ``dim_0`` … ``dim_{d-1}``.

    ``vectors`` is ``(n, d)``; ``texts``, ``labels`` and ``words`` have ``n`` entries. Raises
    ``ValueError`` when the lengths differ. Also fits projection coordinates (``prefix="x"``).
    """
    vectors = np.asarray(vectors)
    if vectors.ndim != 2:
        raise ValueError(f"Expected an (n, d) array of vectors, got shape {vectors.shape}.")
    columns: dict[str, object] = {"text": list(texts)}
    if words is not None:
        columns["word"] = list(words)
    if labels is not None:
        columns["label"] = list(labels)
    for name, values in columns.items():
        if len(values) != len(vectors):  # type: ignore[arg-type]
            raise ValueError(f"Got {len(vectors)} vectors but {len(values)} {name}s.")  # type: ignore[arg-type]
    info = pd.DataFrame(columns)
    numbers = pd.DataFrame(vectors, columns=[f"{prefix}{i}" for i in range(vectors.shape[1])])
    return pd.concat([info, numbers], axis=1)
