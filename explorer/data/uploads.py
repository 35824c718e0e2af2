"""Texts a person brings: pasted lines and uploaded CSV files, parsed and checked.

Everything that can go wrong with an upload (too big, not UTF-8, empty, too many rows, a
missing column, empty cells) raises ``ValueError`` with a message that says what to do, so
a page can show it as is. Cells are always read as strings: a cell such as ``=SUM(A1:A9)``
stays that text (nothing is evaluated, numbers are not converted).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from explorer._markup import shorten

MAX_ROWS = 5000
"""Most texts a projection takes from an upload or a paste."""

MAX_BYTES = 5_000_000
"""Largest CSV of texts accepted: 5 MB (megabytes of 10**6 bytes, as Streamlit counts them).

Every text uploader passes it to Streamlit as ``max_upload_size`` (:data:`MAX_UPLOAD_MB`), so
the browser refuses a larger file before sending it, and :func:`read_csv` refuses one that
arrives anyway. 5,000 rows of 1,000 characters fit; no page uses more than about 0.5 MB of a
CSV, and Streamlit keeps each session's uploaded files in server memory. Precomputed vectors
have their own, larger limit (:data:`explorer.data.vectorfiles.MAX_BYTES`, the server's)."""

MAX_UPLOAD_MB = MAX_BYTES // 10**6
""":data:`MAX_BYTES` in the unit of ``st.file_uploader(max_upload_size=...)``."""

NO_LABEL = "(no label)"
"""Label given to rows whose label cell is empty."""

_TEXT_NAMES = ("text", "texts", "sentence", "sentences", "document", "review", "content")


@dataclass(frozen=True)
class LabelledTexts:
    """Texts to embed, with optional labels (one per text) and how many rows were dropped.

    ``columns`` holds the data's other columns as ``(name, cells)`` pairs, one cell (a string)
    per text, so a map can be coloured by any of them; a tuple, so the texts stay hashable."""

    texts: tuple[str, ...]
    labels: tuple[str, ...] | None = None
    dropped: int = 0
    columns: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __len__(self) -> int:
        return len(self.texts)

    def head(self, n: int) -> LabelledTexts:
        """The first ``n`` texts with their labels and column cells."""
        return replace(
            self,
            texts=self.texts[:n],
            labels=None if self.labels is None else self.labels[:n],
            columns=tuple((name, cells[:n]) for name, cells in self.columns),
        )


def texts_from_lines(text: str | None, max_rows: int | None = MAX_ROWS) -> list[str]:
    """One text per non-blank line of ``text`` (surrounding spaces stripped), in order.

    The one parser of pasted or typed lines: every page's text box goes through it, each with
    its own limit (``max_rows``; ``None`` for none, when the caller caps the texts itself).
    Raises ``ValueError`` when no line has text or there are more than ``max_rows`` lines.
    """
    lines = [line.strip() for line in str(text or "").splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise ValueError("No sentences: type or paste one sentence per line.")
    if max_rows is not None and len(lines) > max_rows:
        raise ValueError(
            f"{len(lines):,} lines is too many: use at most {max_rows:,} (one sentence per line)."
        )
    return lines


def labelled_lines(text: str, max_rows: int | None = MAX_ROWS) -> LabelledTexts:
    """Pasted lines as texts, each optionally labelled as ``label<TAB>text``.

    Lines without a tab are texts without a label: when some lines carry one, those get
    :data:`NO_LABEL`; when none does, ``labels`` is None. Raises ``ValueError`` like
    :func:`texts_from_lines`."""
    lines = texts_from_lines(text, max_rows)
    split = [line.split("\t", 1) if "\t" in line else [None, line] for line in lines]
    if all(label is None for label, _ in split):
        return LabelledTexts(tuple(lines))
    # Lines are stripped, so a tab always has text after it.
    texts = tuple(body.strip() for _, body in split)
    labels = tuple((label or "").strip() or NO_LABEL for label, _ in split)
    return LabelledTexts(texts, labels)


_LABEL_NAMES = ("label", "labels", "class", "category", "topic", "sentiment", "sense", "tag")


def guess_label_column(frame: pd.DataFrame, text_column: str) -> str | None:
    """The column most likely to hold labels, besides ``text_column``: one named like
    ``label`` (``class``, ``topic``, ...), else the column with the fewest distinct values if it
    has at most 20 and fewer than half the rows; None when nothing looks like labels."""
    others = [c for c in frame.columns if c != text_column]
    for column in others:
        if column.strip().lower() in _LABEL_NAMES:
            return column
    counts = {c: frame[c].nunique() for c in others}
    candidates = [c for c, k in counts.items() if 1 < k <= 20 and k < len(frame) / 2]
    return min(candidates, key=lambda c: counts[c]) if candidates else None


def decode(data: bytes) -> str:
    """``data`` as text: UTF-8, with or without a byte-order mark; else ``ValueError``."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad = data[error.start : error.start + 1].hex()
        raise ValueError(
            f"The file is not UTF-8 text (byte 0x{bad} at position {error.start:,} cannot be "
            "decoded). Save it as 'CSV UTF-8' (Excel: Save As > CSV UTF-8; LibreOffice: "
            "character set Unicode (UTF-8)) and upload it again."
        ) from None


def _delimiter(text: str) -> str:
    """The delimiter of a CSV text, judged from its header line: comma, else ``;`` or tab."""
    header = text.lstrip().split("\n", 1)[0]
    if "," in header:
        return ","
    counts = {d: header.count(d) for d in (";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def read_csv(data: bytes, max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES) -> pd.DataFrame:
    """Parse an uploaded CSV file into a DataFrame of strings (header row required).

    Accepts comma, semicolon or tab separated UTF-8 (a byte-order mark is fine). All cells
    are strings with surrounding spaces stripped; empty cells are ``""``. Raises
    ``ValueError`` for a file larger than ``max_bytes``, an empty file, text that is
    not UTF-8, a malformed CSV, a header that repeats a name (once spaces around names are
    stripped), a header without rows, or more than ``max_rows`` rows.
    """
    if len(data) > max_bytes:
        raise ValueError(
            f"The file is {len(data) / 10**6:.1f} MB; the limit is "
            f"{max_bytes // 10**6} MB. Upload a smaller sample."
        )
    if not data.strip():
        raise ValueError("The file is empty: upload a CSV with a header row and some rows.")
    text = decode(data)
    if not text.strip():
        raise ValueError("The file is empty: upload a CSV with a header row and some rows.")
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=_delimiter(text),
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            skipinitialspace=True,
            nrows=max_rows + 1,
        )
    except pd.errors.EmptyDataError:
        raise ValueError(
            "The file is empty: upload a CSV with a header row and some rows."
        ) from None
    except (pd.errors.ParserError, csv.Error) as error:
        raise ValueError(f"This is not a readable CSV file: {error}") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    repeated = frame.columns[frame.columns.duplicated()].unique()
    if len(repeated):
        names = ", ".join(repr(shorten(name)) for name in repeated)
        raise ValueError(
            f"The header names {names} more than once (spaces around a name do not count): "
            "give every column its own name and upload the file again."
        )
    frame = frame.apply(lambda column: column.str.strip())
    if frame.empty:
        raise ValueError(
            "The file has a header but no rows: add one row per text under the header."
        )
    if len(frame) > max_rows:
        raise ValueError(
            f"The file has more than {max_rows:,} rows; the limit is {max_rows:,}, so that "
            f"embedding stays quick on a CPU. Upload a sample of at most {max_rows:,} rows."
        )
    return frame.reset_index(drop=True)


def guess_text_column(frame: pd.DataFrame) -> str:
    """The column most likely to hold the texts: one named like ``text``, else the longest."""
    for column in frame.columns:
        if column.strip().lower() in _TEXT_NAMES:
            return column
    lengths = {column: frame[column].str.len().mean() for column in frame.columns}
    return max(lengths, key=lambda column: lengths[column])


def labelled_texts(
    frame: pd.DataFrame, text_column: str, label_column: str | None = None
) -> LabelledTexts:
    """Texts (and labels) from two columns of ``frame``; rows with an empty text are dropped.

    Empty label cells become :data:`NO_LABEL`; the other columns' cells go into ``columns``.
    ``dropped`` counts the rows left out. Raises
    ``ValueError`` for a missing column or when no row has text.
    """
    columns = list(frame.columns)
    for column in (text_column, label_column):
        if column is not None and column not in columns:
            raise ValueError(f"There is no column {column!r}; the columns are: {columns}.")
    texts = frame[text_column].astype(str).str.strip()
    keep = texts != ""
    if not keep.any():
        raise ValueError(f"The column {text_column!r} has no text in any row.")
    labels = None
    if label_column is not None:
        cells = frame.loc[keep, label_column].astype(str).str.strip()
        labels = tuple(cell or NO_LABEL for cell in cells)
    others = tuple(
        (str(name), tuple(frame.loc[keep, name].astype(str).str.strip()))
        for name in columns
        if name not in (text_column, label_column)
    )
    return LabelledTexts(
        texts=tuple(texts[keep]), labels=labels, dropped=int((~keep).sum()), columns=others
    )


def from_lists(
    texts: Sequence[str],
    labels: Sequence[str] | None = None,
    columns: Mapping[str, Sequence] | None = None,
) -> LabelledTexts:
    """:class:`LabelledTexts` from plain lists (for built-in datasets and pasted lines), with
    other ``columns`` (name -> one cell per text) if any."""
    if labels is not None and len(labels) != len(texts):
        raise ValueError(f"Got {len(texts)} texts but {len(labels)} labels.")
    others = tuple((str(name), tuple(map(str, cells))) for name, cells in (columns or {}).items())
    for name, cells in others:
        if len(cells) != len(texts):
            raise ValueError(f"Got {len(texts)} texts but {len(cells)} cells in {name!r}.")
    return LabelledTexts(
        texts=tuple(texts),
        labels=None if labels is None else tuple(map(str, labels)),
        columns=others,
    )
