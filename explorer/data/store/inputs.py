"""Reading a corpus file in chunks: CSV, TSV, JSON Lines, Parquet or plain text.

:func:`read_chunks` yields ``pyarrow.Table`` chunks of a few thousand rows, whatever the size
of the file, so memory does not grow with the corpus. CSV and TSV go through pyarrow's
streaming CSV reader with the column types :func:`csv_types` found in a first pass over the
file (so a column whose first block looks numeric cannot fail on a later row, and a column of
whole numbers is stored as integers, not text), JSON Lines through pyarrow's streaming JSON reader,
Parquet row group by row group, and a plain text file line by line (one text a line, with
its line number kept in a ``line`` column).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".txt": "text",
    ".text": "text",
}
"""File name endings and the format read from them."""

CHUNK_ROWS = 8192
_BLOCK_BYTES = 1 << 22
MAX_ROW_BYTES = _BLOCK_BYTES
"""The most one row may take: pyarrow's CSV and JSON readers refuse a row that does not fit in
their block, and a plain text file's line is held to the same (in characters)."""
_SCAN_BYTES = 1 << 20


@dataclass(frozen=True)
class InputInfo:
    """What was found in an input file: its format, its columns and which hold text and label."""

    path: Path
    format: str
    columns: tuple[str, ...]
    text_column: str
    label_column: str | None

    def identity(self) -> dict:
        """What identifies the file in a manifest: name, size and modification time."""
        stat = self.path.stat()
        return {
            "name": self.path.name,
            "format": self.format,
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "text_column": self.text_column,
            "label_column": self.label_column,
            "columns": list(self.columns),
        }


def input_format(path: str | os.PathLike) -> str:
    """The format of ``path`` from its ending; ``ValueError`` listing the known endings."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"Cannot tell the format of {Path(path).name!r} from its ending; use one of "
            f"{', '.join(FORMATS)} (plain text: one text a line)."
        )
    return FORMATS[suffix]


def inspect_input(
    path: str | os.PathLike, text_column: str | None = None, label_column: str | None = None
) -> InputInfo:
    """Check ``path`` and choose its text and label columns.

    The text column is ``text_column``, else a column named ``text``, else the only column;
    the label column is ``label_column``, else a column named ``label`` if there is one.
    Raises ``ValueError`` for a missing file, an unknown format or a column that is not there
    (naming the columns found).
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"No such input file: {path}")
    fmt = input_format(path)
    if fmt != "parquet":
        check_text_file(path, fmt)
    if fmt == "text":
        if label_column is not None:
            raise ValueError("A plain text file has no columns: --label-column needs CSV, TSV, ...")
        if text_column not in (None, "text"):
            raise ValueError("A plain text file has one column, 'text' (one text a line).")
        return InputInfo(path, fmt, ("text", "line"), "text", None)
    columns = tuple(_first_chunk(path, fmt).column_names)
    if text_column is None:
        if "text" in columns:
            text_column = "text"
        elif len(columns) == 1:
            text_column = columns[0]
        else:
            raise ValueError(
                f"{path.name} has no column named 'text'; say which column holds the texts "
                f"with --text-column (columns: {_listed(columns)})."
            )
    if text_column not in columns:
        raise ValueError(
            f"{path.name} has no column {text_column!r} (columns: {_listed(columns)})."
        )
    if label_column is None and "label" in columns and text_column != "label":
        label_column = "label"
    if label_column is not None and label_column not in columns:
        raise ValueError(
            f"{path.name} has no column {label_column!r} (columns: {_listed(columns)})."
        )
    if label_column == text_column:
        raise ValueError("The label column must differ from the text column.")
    return InputInfo(path, fmt, columns, text_column, label_column)


def _listed(columns: tuple[str, ...], most: int = 20) -> str:
    """The column names for a message: each made :func:`printable` and cut to 60 characters,
    at most ``most`` of them."""
    names = ", ".join(printable(name, 60) for name in columns[:most])
    return names + (f" and {len(columns) - most:,} more" if len(columns) > most else "")


def check_text_file(path: Path, fmt: str) -> None:
    """Refuse a text input (CSV, TSV, JSON Lines, plain text) that holds a NUL byte anywhere,
    or, for plain text, a line longer than :data:`MAX_ROW_BYTES` bytes: a ``ValueError`` naming
    where. Reads the file once, a block at a time (memory does not grow with the file or its
    lines); a sparse file's first hole (read as NUL bytes) is found without reading past it."""
    with open(path, "rb") as data:
        hole = _first_hole(data.fileno())  # nothing after it needs reading
        line, start, offset, after_cr = 1, 0, 0, False  # start: where the current line began
        while block := data.read(_SCAN_BYTES if hole is None else min(_SCAN_BYTES, hole - offset)):
            nul = block.find(b"\x00")
            seen = block if nul < 0 else block[:nul]
            breaks = _breaks(seen, after_cr)
            if fmt == "text":
                if b"\r" in seen:
                    first = min(
                        i for i in (seen.find(b"\n"), seen.find(b"\r"), len(seen)) if i >= 0
                    )
                    last = max(seen.rfind(b"\n"), seen.rfind(b"\r"))
                else:  # the usual case: one search each way
                    first, last = seen.find(b"\n"), seen.rfind(b"\n")
                if last >= 0:
                    if offset + first - start > MAX_ROW_BYTES:
                        raise ValueError(_too_long(path, line))
                    start = offset + last + 1
                if offset + len(seen) - start > MAX_ROW_BYTES:
                    raise ValueError(_too_long(path, line + breaks))
            line += breaks
            if nul >= 0:
                raise ValueError(_binary(path, fmt, f"at byte {offset + nul:,}, line {line:,}"))
            after_cr = block.endswith(b"\r")
            offset += len(block)
        if hole is not None:
            raise ValueError(_binary(path, fmt, f"from byte {hole:,} on, line {line:,}"))


def _breaks(block: bytes, after_cr: bool) -> int:
    """Line breaks in ``block`` (``\\n``, ``\\r\\n`` or a lone ``\\r``, as Python reads text);
    ``after_cr``: the block before ended with ``\\r``."""
    breaks = block.count(b"\n") - (after_cr and block.startswith(b"\n"))
    if b"\r" in block:
        breaks += block.count(b"\r") - block.count(b"\r\n")
    return breaks


def _first_hole(fd: int) -> int | None:
    """Where the file's first hole begins (a sparse file's unwritten part, read as NUL bytes),
    ``None`` when it has none before its end or the system cannot tell."""
    size = os.fstat(fd).st_size
    try:
        hole = os.lseek(fd, 0, os.SEEK_HOLE)
    except (AttributeError, OSError):
        return None
    finally:
        os.lseek(fd, 0, os.SEEK_SET)
    return hole if hole < size else None


def _binary(path: Path, fmt: str, where: str) -> str:
    return (
        f"{path.name} looks like a binary file (it holds NUL bytes, {where}), not "
        f"{'plain' if fmt == 'text' else fmt} text: "
        "give a UTF-8 text file (or a .parquet file)."
    )


def _too_long(path: Path, line: int) -> str:
    return (
        f"Line {line:,} of {path.name} is longer than {MAX_ROW_BYTES >> 20} MB, the most one text "
        "may take (as one row of a CSV or JSON Lines file): the file is refused, nothing was "
        "read into the store. Split that text into lines, or cut it."
    )


def estimate_rows(info: InputInfo) -> int | None:
    """Rows in the file: exact for Parquet, the number of lines (minus a CSV header)
    otherwise (texts spanning lines make it an overestimate). For a progress bar."""
    if info.format == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(info.path).metadata.num_rows
    lines = 0
    with open(info.path, "rb") as data:
        while block := data.read(1 << 24):
            lines += block.count(b"\n")
    return max(0, lines - (1 if info.format in ("csv", "tsv") else 0))


def read_chunks(info: InputInfo, chunk_rows: int = CHUNK_ROWS) -> Iterator[pa.Table]:
    """The rows of the input, a chunk of at most about ``chunk_rows`` rows at a time.

    Columns as read; the text column is cast to strings. Raises ``ValueError`` naming the
    file when it cannot be parsed.
    """
    try:
        for table in _tables(info, chunk_rows):
            if table.num_rows == 0:
                continue
            column = table.column(info.text_column)
            if not pa.types.is_string(column.type) and not pa.types.is_large_string(column.type):
                table = table.set_column(
                    table.column_names.index(info.text_column),
                    info.text_column,
                    pc.cast(column, pa.string()),
                )
            yield table
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError) as error:
        raise ValueError(_unreadable(info.path, error)) from None


def _unreadable(path: Path, error: Exception) -> str:
    if "straddles two block boundaries" in str(error):  # pyarrow: a row larger than a block
        return (
            f"Could not read {path}: one of its rows is too long (one row may take about "
            f"{MAX_ROW_BYTES >> 20} MB at most): the file is refused. Split or cut that row."
        )
    return f"Could not read {path}: {printable(str(error))}"


def printable(text: str, limit: int = 200) -> str:
    """``text`` safe to print on a terminal: control and other unprintable characters
    escaped (``\\x1b``), at most ``limit`` characters kept."""
    cut = len(text) > limit
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])
    return text + (" ..." if cut else "")


_NOTHING_TO_READ = r"^[\s\p{Cc}\p{Cf}\x{FFFD}]*$"
"""A text of only spaces, control and format characters (and U+FFFD): the tokenizer drops
them all, so there is nothing to embed."""


def keep_texts(table: pa.Table, text_column: str) -> tuple[pa.Table, int]:
    """``(rows whose text has something to read, how many were dropped)``: empty texts and
    those of only spaces, control or format characters are dropped (counted as blank)."""
    column = table.column(text_column)
    blank = pc.fill_null(pc.match_substring_regex(column, _NOTHING_TO_READ), True)
    if not pc.any(blank).as_py():
        return table, 0
    kept = table.filter(pc.invert(blank))
    return kept, table.num_rows - kept.num_rows


def _first_chunk(path: Path, fmt: str) -> pa.Table:
    info = InputInfo(path, fmt, (), "", None)
    try:
        for table in _tables(info, 16, typed=False):
            return table
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError) as error:
        raise ValueError(_unreadable(path, error)) from None
    raise ValueError(f"{path} holds no rows.")


def _tables(info: InputInfo, chunk_rows: int, typed: bool = True) -> Iterator[pa.Table]:
    path, fmt = info.path, info.format
    if fmt == "text":
        yield from _text_lines(path, chunk_rows)
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        for batch in pq.ParquetFile(path).iter_batches(batch_size=chunk_rows):
            yield pa.Table.from_batches([batch])
    elif fmt in ("csv", "tsv"):
        from pyarrow import csv

        parse = csv.ParseOptions(delimiter="\t" if fmt == "tsv" else ",", newlines_in_values=True)
        read = csv.ReadOptions(block_size=_BLOCK_BYTES)
        if typed:
            types = csv_types(path, fmt, info.text_column, info.label_column)
        else:  # only the column names are wanted
            types = _csv_types(path, fmt, "", None, None, scan=False)
        convert = csv.ConvertOptions(column_types=types)
        with csv.open_csv(
            path, read_options=read, parse_options=parse, convert_options=convert
        ) as reader:
            for batch in reader:
                yield pa.Table.from_batches([batch])
    else:
        from pyarrow import json

        options = json.ReadOptions(block_size=_BLOCK_BYTES)
        with json.open_json(path, read_options=options) as reader:
            for batch in reader:
                yield pa.Table.from_batches([batch])


def _text_lines(path: Path, chunk_rows: int) -> Iterator[pa.Table]:
    texts: list[str] = []
    lines: list[int] = []
    with open(path, encoding="utf-8", errors="strict", newline=None) as data:
        # readline with a limit holds at most that much of a line (a file that changed since
        # check_text_file is refused here too, as it streams)
        for number, line in enumerate(iter(lambda: data.readline(MAX_ROW_BYTES + 1), ""), 1):
            if len(line) > MAX_ROW_BYTES and not line.endswith("\n"):
                raise ValueError(_too_long(path, number))
            if "\x00" in line:
                raise ValueError(_binary(path, "text", f"line {number:,}"))
            texts.append(line.rstrip("\n"))
            lines.append(number)
            if len(texts) >= chunk_rows:
                yield pa.table({"text": texts, "line": pa.array(lines, pa.int64())})
                texts, lines = [], []
    if texts:
        yield pa.table({"text": texts, "line": pa.array(lines, pa.int64())})


_INTEGER = r"^-?(0|[1-9][0-9]{0,17})$"
_DECIMAL = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$"


@functools.lru_cache(maxsize=8)
def _csv_types(
    path: Path, fmt: str, text: str, label: str | None, stamp: tuple | None, scan: bool = True
) -> dict:
    from pyarrow import csv

    parse = csv.ParseOptions(delimiter="\t" if fmt == "tsv" else ",", newlines_in_values=True)
    read = csv.ReadOptions(block_size=_BLOCK_BYTES)
    with csv.open_csv(path, read_options=read, parse_options=parse) as probe:
        names = probe.schema.names
    types = dict.fromkeys(names, pa.string())
    if not scan:
        return types
    convert = csv.ConvertOptions(column_types=types)
    # per column: can every value so far be an integer / a decimal number; any value seen
    can = {n: [True, True, False] for n in names if n not in (text, label)}
    with csv.open_csv(
        path, read_options=read, parse_options=parse, convert_options=convert
    ) as rows:
        for batch in rows:
            for name, state in can.items():
                column = pc.drop_null(batch.column(name))
                column = column.filter(pc.not_equal(column, ""))
                if not len(column):
                    continue
                state[2] = True
                for slot, pattern in ((0, _INTEGER), (1, _DECIMAL)):
                    if state[slot]:
                        state[slot] = pc.all(pc.match_substring_regex(column, pattern)).as_py()
    types = dict(types)
    for name, (integer, decimal, seen) in can.items():
        if seen and (integer or decimal):
            types[name] = pa.int64() if integer else pa.float64()
    return types


def csv_types(path: Path, fmt: str, text: str, label: str | None) -> dict:
    """The type of each column of a CSV or TSV file: ``int64`` for a column whose every value
    is a whole number (no leading zeros: ``007`` stays text), ``float64`` for decimal numbers,
    text otherwise and for the text and label columns; found by reading the whole file once
    (remembered while the file does not change). Empty values are missing values."""
    stat = path.stat()
    return _csv_types(path, fmt, text, label, (stat.st_size, stat.st_mtime_ns))
