"""An uploaded Parquet file, decoded only as far as a budget allows.

Parquet compresses and dictionary-encodes: a 2.3 KB file can hold one 5,000-character text
repeated in 100,000 rows, 500 MB once decoded (and more as Python strings), while the
footer's sizes count the encoded pages (36 KB). So nothing is decoded whole before its
decoded size is known to fit :data:`MAX_DECODED_BYTES`:

1. the footer: at most :data:`MAX_COLUMNS` columns and :data:`MAX_CELLS` rows x columns, and
   fixed-width values (numbers, a vector's floats) times their width plus the strings'
   uncompressed pages within the budget;
2. the columns asked for, read in batches of :data:`BATCH_ROWS` rows with strings as
   dictionaries (a repeated string is held once), adding up what the rows decode to (a
   repeated string counted once per row, as a table of Python strings will hold it) and
   stopping as soon as the sum passes the budget; each batch is dropped once counted
   (pyarrow gives each batch the dictionary of every string read so far, so keeping them
   all would cost the square of the texts);
3. only then are the columns read whole, string columns still as dictionaries.

Memory while checking is one batch. Plain Python (pyarrow).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

MAX_DECODED_BYTES = 100_000_000
"""Most bytes the columns read from an upload may decode to: 100 MB, five times the 20 MB
upload limit (:data:`explorer.data.vectorfiles.MAX_BYTES`)."""

MAX_CELLS = 1_000_000
"""Most rows x columns read from an upload (each text cell becomes a Python string of some
60 bytes beyond its characters): 50,000 rows of text, label and vector, say, fit 6 times."""

MAX_COLUMNS = 1_000
"""Most columns an uploaded Parquet file may have."""

BATCH_ROWS = 1_024
"""Rows decoded at a time while adding up the decoded size."""

_WIDTHS = {"BOOLEAN": 1, "INT32": 4, "FLOAT": 4, "INT64": 8, "DOUBLE": 8, "INT96": 12}


def open_parquet(data: bytes) -> pq.ParquetFile:
    """The Parquet file in ``data``, its string columns to be read as dictionaries, after
    the footer's checks (columns, rows x columns). Raises ``ValueError`` for an unreadable
    file or one over the limits, with what to do."""
    try:
        file = pq.ParquetFile(pa.BufferReader(data))
        strings = [f.name for f in file.schema_arrow if _is_text(f.type)]
        if strings:
            file = pq.ParquetFile(pa.BufferReader(data), read_dictionary=strings)
    except (pa.ArrowException, OSError) as error:
        raise ValueError(f"This is not a readable Parquet file: {error}") from None
    columns = len(file.schema_arrow)
    if columns > MAX_COLUMNS:
        raise ValueError(
            f"The Parquet file has {columns:,} columns; the limit is {MAX_COLUMNS:,}. Upload "
            "the text, label and vector columns only."
        )
    _check_cells(file.metadata.num_rows, columns)
    return file


def read_columns(file: pq.ParquetFile, names: list[str]) -> pa.Table:
    """Columns ``names`` of ``file`` (from :func:`open_parquet`), string columns as
    dictionary arrays, once :func:`check_decoded` has found that they fit."""
    check_decoded(file, names)
    try:
        return file.read(columns=names, use_threads=False)
    except (pa.ArrowException, OSError) as error:
        raise ValueError(f"This is not a readable Parquet file: {error}") from None


def check_decoded(file: pq.ParquetFile, names: list[str]) -> int:
    """The bytes columns ``names`` of ``file`` decode to (each row's strings written out).

    Raises ``ValueError`` for rows x columns over :data:`MAX_CELLS` or more than
    :data:`MAX_DECODED_BYTES`: from the footer before anything is decoded, else as soon as
    the batches read so far pass the budget. Holds one batch at a time."""
    _check_cells(file.metadata.num_rows, len(names))
    _check_decoded(_footer_bytes(file.metadata, set(names)))
    decoded = rows = 0
    try:
        for batch in file.iter_batches(batch_size=BATCH_ROWS, columns=names, use_threads=False):
            rows += batch.num_rows
            decoded += sum(decoded_bytes(column) for column in batch.columns)
            _check_cells(rows, len(names))
            _check_decoded(decoded)
    except (pa.ArrowException, OSError) as error:
        raise ValueError(f"This is not a readable Parquet file: {error}") from None
    return decoded


def decoded_bytes(array: pa.Array) -> int:
    """Bytes ``array`` takes with every row's value written out: a dictionary array's values
    taken row by row (8 bytes a row for an offset or pointer), any other array's buffers."""
    if not pa.types.is_dictionary(array.type):
        return array.nbytes
    if not _is_text(array.type.value_type):  # a categorical of numbers, say: values' mean size
        return array.dictionary.nbytes * len(array) // max(len(array.dictionary), 1)
    lengths = pc.take(pc.binary_length(array.dictionary), array.indices)
    return int(pc.sum(lengths).as_py() or 0) + 8 * len(array)


def written_type(kind: pa.DataType) -> pa.DataType:
    """A column's type as written (:func:`open_parquet` reads strings as dictionaries)."""
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def _footer_bytes(metadata: pq.FileMetaData, names: set[str]) -> int:
    """What the footer says columns ``names`` decode to at least: fixed-width values x
    width, strings' uncompressed pages (their repetition is counted while reading)."""
    total = 0
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            chunk = row_group.column(index)
            if chunk.path_in_schema.split(".")[0] not in names:
                continue
            width = _WIDTHS.get(chunk.physical_type)
            if chunk.physical_type == "FIXED_LEN_BYTE_ARRAY":
                width = metadata.schema.column(index).length
            if width is None:
                total += max(chunk.total_uncompressed_size, 0)
            else:
                total += max(chunk.num_values, 0) * width
    return total


def _check_cells(rows: int, columns: int) -> None:
    if rows * max(columns, 1) > MAX_CELLS:
        raise ValueError(
            f"The Parquet file has {rows:,} rows x {columns:,} columns; the limit is "
            f"{MAX_CELLS:,} cells. Upload fewer rows (or only the columns you need)."
        )


def _check_decoded(decoded: int) -> None:
    if decoded > MAX_DECODED_BYTES:
        raise ValueError(
            f"The Parquet file unpacks to more than {MAX_DECODED_BYTES // 10**6} MB (its "
            "values compress or repeat that far); that is the limit. Upload fewer rows or "
            "shorter texts."
        )


def _is_text(kind: pa.DataType) -> bool:
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
    )
