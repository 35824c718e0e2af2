"""Vectors a person brings: precomputed sentence vectors with their texts, read and checked.

Two formats: a ``.npy`` file (one float row per text, shape ``(texts, dimensions)``) with a
CSV of the same rows (a text column and, optionally, a label column), or one Parquet file
with a text column and a vector column (``list<float>`` or ``fixed_size_list<float>``).
Nothing here runs a model. Everything that can go wrong (a pickle, an object or integer
array, a 1-D or 3-D array, NaN, row counts that differ, no text or vector column, a file
over :data:`MAX_BYTES`) raises ``ValueError`` with a message that says what to do, so a page can
show it as is. More rows than ``max_rows`` (default
:data:`explorer.data.sampling.MAX_POINTS`; the app passes its own cap) are sampled with
:func:`explorer.data.sampling.sample_points`, with a note, as the Projections page samples a
saved corpus.

``read_vectors`` does it in one call; ``read_table`` then ``VectorTable.select`` let a page
offer the columns between the two steps.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from explorer.data import uploads
from explorer.data.sampling import MAX_POINTS, sample_points

VECTOR_NAMES = ("vector", "vectors", "embedding", "embeddings", "emb", "embeds")
"""Names a Parquet vector column is guessed by (else the first column of float lists)."""

MAX_BYTES = 20_000_000
"""Largest vector file (and its texts CSV) accepted: 20 MB, the same number and unit as
``server.maxUploadSize = 20`` in ``.streamlit/config.toml`` (Streamlit counts megabytes of
10**6 bytes there), the server's ceiling for every upload. Texts alone have a smaller limit
(:data:`explorer.data.uploads.MAX_BYTES`)."""

MAX_UPLOAD_MB = MAX_BYTES // 10**6
""":data:`MAX_BYTES` in the unit of ``st.file_uploader(max_upload_size=...)``."""

GUESS = "(guess)"
"""``label_column`` value asking :meth:`VectorTable.select` to guess the label column."""


@dataclass(frozen=True)
class UploadedVectors:
    """Vectors read from files: ``texts`` and ``labels`` (or None), one per row of ``vectors``
    ``(n, d)`` float32 (read-only). Equal (and hashed) by ``digest``, a hash of the files and
    the choices made, never by the array, so it can key a cache."""

    texts: tuple[str, ...]
    labels: tuple[str, ...] | None
    vectors: np.ndarray = field(compare=False, repr=False)
    digest: str = ""
    format: str = "npy"
    """``"npy"`` (a ``.npy`` and a texts CSV) or ``"parquet"``."""
    text_column: str = "text"
    label_column: str | None = None
    vector_column: str | None = None
    """The Parquet column holding the vectors (None for ``.npy``)."""
    total: int = 0
    """Rows in the files."""
    dropped: int = 0
    """Rows left out because their text cell was empty."""
    max_rows: int = MAX_POINTS
    seed: int = 0
    note: str | None = None
    """Says when a random sample of the rows was kept."""
    columns: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The table's other columns as ``(name, cells)``, one cell (a string) per row kept."""

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def dims(self) -> int:
        """Width of each vector."""
        return int(self.vectors.shape[1])

    @property
    def label_title(self) -> str:
        """What the labels are called (the label column's name, else ``"Label"``)."""
        return self.label_column or "Label"

    @property
    def sampled(self) -> bool:
        """Whether a random sample of the rows (with text) was kept."""
        return self.note is not None


@dataclass(frozen=True)
class VectorTable:
    """An uploaded table before its columns are chosen: ``frame`` (one row per vector; every
    cell a string, the candidates for texts and labels), ``vectors`` ``(n, d)`` float32 and
    ``text_columns`` (the columns that may hold the texts, best guess first)."""

    frame: pd.DataFrame = field(compare=False, repr=False)
    vectors: np.ndarray = field(compare=False, repr=False)
    text_columns: tuple[str, ...]
    digest: str
    format: str = "npy"
    vector_column: str | None = None
    vector_columns: tuple[str, ...] = ()
    """Every Parquet column of float lists (a page may offer them)."""

    def guess_label_column(self, text_column: str) -> str | None:
        """:func:`explorer.data.uploads.guess_label_column` over the table's other columns."""
        return uploads.guess_label_column(self.frame, text_column)

    def select(
        self,
        text_column: str | None = None,
        label_column: str | None = GUESS,
        max_rows: int = MAX_POINTS,
        seed: int = 0,
    ) -> UploadedVectors:
        """The texts of ``text_column`` (None: the best guess) with their vectors, and the
        labels of ``label_column`` (:data:`GUESS`: guessed; None: no labels).

        Rows with an empty text are left out with their vectors; beyond ``max_rows`` rows a
        random sample (``seed``) is kept, with a note. Raises ``ValueError`` for a column that
        is not there or when no row has text."""
        text_column = self.text_columns[0] if text_column is None else text_column
        if text_column not in self.text_columns:
            raise ValueError(
                f"There is no text column {text_column!r}; the text columns are: "
                f"{list(self.text_columns)}."
            )
        if label_column == GUESS:
            label_column = self.guess_label_column(text_column)
        chosen = uploads.labelled_texts(self.frame, text_column, label_column)
        keep = self.frame[text_column].astype(str).str.strip().to_numpy() != ""
        vectors = self.vectors if keep.all() else self.vectors[keep]
        texts, labels, columns = chosen.texts, chosen.labels, chosen.columns
        rows, note = sample_points(len(texts), max_rows, seed)
        if note is not None:
            vectors = vectors[rows]
            texts = tuple(texts[i] for i in rows)
            labels = None if labels is None else tuple(labels[i] for i in rows)
            columns = tuple((name, tuple(cells[i] for i in rows)) for name, cells in columns)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        vectors.flags.writeable = False
        choice = repr((self.digest, text_column, label_column, max_rows, seed))
        return UploadedVectors(
            texts=texts,
            labels=labels,
            vectors=vectors,
            digest=hashlib.sha256(choice.encode()).hexdigest(),
            format=self.format,
            text_column=text_column,
            label_column=label_column,
            vector_column=self.vector_column,
            total=len(self.frame),
            dropped=chosen.dropped,
            max_rows=max_rows,
            seed=seed,
            note=note,
            columns=columns,
        )


def read_vectors(
    vectors: bytes,
    texts: bytes | None = None,
    *,
    text_column: str | None = None,
    label_column: str | None = GUESS,
    vector_column: str | None = None,
    max_rows: int = MAX_POINTS,
    seed: int = 0,
) -> UploadedVectors:
    """Uploaded vectors in one call: ``vectors`` the bytes of a ``.npy`` file with ``texts``
    the bytes of its CSV, or (``texts`` None) the bytes of a Parquet file.

    Columns as in :meth:`VectorTable.select` (``text_column`` None and ``label_column``
    :data:`GUESS` guess them; ``vector_column`` None picks the Parquet vector column).
    Returns :class:`UploadedVectors` with ``vectors`` ``(n, d)`` float32. Raises
    ``ValueError`` for any bad input, with what to do."""
    table = read_table(vectors, texts, vector_column)
    return table.select(text_column, label_column, max_rows, seed)


def read_table(
    vectors: bytes, texts: bytes | None = None, vector_column: str | None = None
) -> VectorTable:
    """The :class:`VectorTable` of a ``.npy`` with its texts CSV, or of a Parquet file
    (``texts`` None). Raises ``ValueError`` like :func:`read_vectors`."""
    digest = hashlib.sha256(vectors)
    if texts is None:
        table = _read_parquet(vectors, vector_column)
    else:
        array = load_npy(vectors)
        _check_size(texts, "The texts CSV")
        frame = uploads.read_csv(texts, max_rows=MAX_BYTES, max_bytes=MAX_BYTES)
        if len(frame) != len(array):
            raise ValueError(
                f"The CSV has {len(frame):,} rows but the .npy file has {len(array):,} vectors: "
                "they must match row for row (the CSV's header row does not count)."
            )
        table = VectorTable(frame, array, _text_columns(frame, list(frame.columns)), "")
        digest.update(b"\0csv\0" + texts)
    digest.update(repr(table.vector_column).encode())
    return VectorTable(
        table.frame,
        table.vectors,
        table.text_columns,
        digest.hexdigest(),
        "npy" if texts is not None else "parquet",
        table.vector_column,
        table.vector_columns,
    )


def load_npy(data: bytes) -> np.ndarray:
    """The ``(n, d)`` float32 array of a ``.npy`` file's bytes (never unpickled; read-only).

    The header is checked before anything is allocated: a float array of two dimensions whose
    data is all there. Raises ``ValueError`` for a file over :data:`MAX_BYTES`,
    anything that is not a ``.npy`` file (a pickle, an ``.npz`` archive), object, string,
    integer or structured arrays, 1-D or 3-D arrays, no rows, and NaN or infinite values."""
    _check_size(data, "The .npy file")
    if data[:6] != b"\x93NUMPY":
        kind = "an .npz archive" if data[:2] == b"PK" else "not a .npy file"
        raise ValueError(
            f"This is {kind}: save one array with numpy.save('vectors.npy', vectors) "
            "(shape: texts x dimensions) and upload that."
        )
    fp = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
        else:
            raise ValueError(f"unsupported .npy format version {version}")
    except ValueError as error:
        raise ValueError(f"The .npy file is damaged or unsupported: {error}.") from None
    _check_dtype(dtype, "The .npy array")
    _check_shape(shape)
    expected = int(np.prod(shape)) * dtype.itemsize
    if len(data) - fp.tell() < expected:
        raise ValueError(
            f"The .npy file is cut short: its header says {shape[0]:,} x {shape[1]:,} {dtype} "
            f"({expected:,} bytes) but only {len(data) - fp.tell():,} bytes follow. Save it "
            "again and upload the whole file."
        )
    fp.seek(0)
    array = np.load(fp, allow_pickle=False)
    return _finite(array)


def _check_size(data: bytes, what: str) -> None:
    if len(data) > MAX_BYTES:
        raise ValueError(
            f"{what} is {len(data) / 10**6:.1f} MB; the limit is "
            f"{MAX_BYTES // 10**6} MB. Upload fewer rows (or float16 vectors)."
        )
    if not data:
        raise ValueError(f"{what} is empty.")


def _check_dtype(dtype: np.dtype, what: str) -> None:
    if dtype.kind != "f":
        hint = {
            "O": "Python objects (it would need unpickling, which is never done here)",
            "V": "records (a structured array)",
            "U": "strings",
            "S": "bytes",
        }.get(dtype.kind, f"{dtype} values")
        raise ValueError(
            f"{what} holds {hint}; upload float vectors, e.g. "
            "numpy.save('vectors.npy', vectors.astype('float32'))."
        )


def _check_shape(shape: tuple[int, ...]) -> None:
    if len(shape) == 1:
        raise ValueError(
            f"The array is 1-D ({shape[0]:,} values): save one row per text, shape "
            "(texts, dimensions), e.g. vectors.reshape(len(texts), -1)."
        )
    if len(shape) != 2:
        raise ValueError(
            f"The array has {len(shape)} dimensions {tuple(shape)}: save one vector per "
            "text, shape (texts, dimensions) (for per-layer vectors, save one layer)."
        )
    if shape[0] == 0:
        raise ValueError("The array has no rows: save one vector per text.")
    if shape[1] == 0:
        raise ValueError(f"The array's {shape[0]:,} rows are empty (0 dimensions).")


def _finite(array: np.ndarray) -> np.ndarray:
    """``array`` as C-ordered float32 (read-only); ``ValueError`` naming the first bad row."""
    with np.errstate(over="ignore"):  # too large for float32: inf, refused just below
        vectors = np.ascontiguousarray(array, dtype=np.float32)
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise ValueError(
            f"{len(bad):,} vector(s) hold NaN or infinite values (or values too large for "
            f"float32), the first in row {bad[0] + 1:,}: remove or fix those rows."
        )
    vectors.flags.writeable = False
    return vectors


def _text_columns(frame: pd.DataFrame, candidates: list[str]) -> tuple[str, ...]:
    """``candidates`` (columns of strings) with the best guess for texts first."""
    if not candidates:
        raise ValueError(
            f"There is no text column: the columns are {list(frame.columns)}. Add a column "
            "of texts (strings), one per vector."
        )
    best = uploads.guess_text_column(frame[candidates])
    return (best, *(c for c in candidates if c != best))


def _read_parquet(data: bytes, vector_column: str | None) -> VectorTable:
    import pyarrow as pa
    import pyarrow.compute as pc

    from explorer.data.parquetfile import open_parquet, read_columns, written_type

    _check_size(data, "The Parquet file")
    file = open_parquet(data)
    schema = file.schema_arrow
    if file.metadata.num_rows == 0:
        raise ValueError("The Parquet file has no rows: add one row per text.")
    lists = [
        f.name
        for f in schema
        if pa.types.is_list(f.type)
        or pa.types.is_large_list(f.type)
        or pa.types.is_fixed_size_list(f.type)
    ]
    floats = [n for n in lists if pa.types.is_floating(schema.field(n).type.value_type)]
    described = ", ".join(f"{f.name} ({written_type(f.type)})" for f in schema)
    if not floats:
        raise ValueError(
            "The Parquet file has no column of float lists"
            + (f" ({', '.join(lists)} hold other values)" if lists else "")
            + f"; its columns are: {described}. Store each vector as a list<float> or "
            "fixed_size_list<float> cell, one per text."
        )
    if vector_column is None:
        named = [n for n in floats if n.strip().lower() in VECTOR_NAMES]
        vector_column = (named or floats)[0]
    if vector_column not in floats:
        raise ValueError(
            f"There is no column of float lists {vector_column!r}; those are: {floats}."
        )
    # Other nested columns (structs, lists of other values) can hold neither texts nor
    # labels: they are never decoded.
    scalars = [f.name for f in schema if not pa.types.is_nested(f.type)]
    table = read_columns(file, [*scalars, vector_column])
    if table.num_rows == 0:
        raise ValueError("The Parquet file has no rows: add one row per text.")
    column = table.column(vector_column).combine_chunks()
    if column.null_count:
        raise ValueError(f"{column.null_count:,} row(s) have no vector in {vector_column!r}.")
    lengths = pc.list_value_length(column).to_numpy(zero_copy_only=False)
    if lengths.min() != lengths.max():
        first = int(np.flatnonzero(lengths != lengths[0])[0])
        raise ValueError(
            f"The vectors in {vector_column!r} differ in length: row 1 has {lengths[0]:,} "
            f"values, row {first + 1:,} has {lengths[first]:,}. Every vector needs one width."
        )
    values = column.flatten() if not pa.types.is_fixed_size_list(column.type) else column.values
    if values.null_count:
        raise ValueError(f"Some vectors in {vector_column!r} hold empty (null) values.")
    width = int(lengths[0])
    _check_shape((len(column), width))
    array = values.to_numpy(zero_copy_only=False).reshape(len(column), width)
    frame = pd.DataFrame(
        {
            name: table.column(name).to_pandas().astype(object).where(lambda s: s.notna(), "")
            for name in scalars
        }
    )
    frame = frame.astype(str).apply(lambda c: c.str.strip()) if scalars else frame
    kinds = [written_type(schema.field(n).type) for n in scalars]
    strings = [
        n
        for n, k in zip(scalars, kinds, strict=True)
        if pa.types.is_string(k) or pa.types.is_large_string(k)
    ]
    return VectorTable(
        frame.reset_index(drop=True),
        _finite(array),
        _text_columns(frame, strings),
        "",
        "parquet",
        vector_column,
        tuple(floats),
    )
