"""The texts a page was given, one small type per kind: a built-in set, pasted lines, an
uploaded CSV, uploaded vectors, a saved corpus (:func:`explorer.ui.sources.text_source` makes
them). A page asks the source what it needs (its texts, the columns a map can be coloured by,
whether its vectors are there already, what to say under the choice) instead of testing which
kind it is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer._markup import shorten
from explorer.data import uploads, vectorfiles


class Source:
    """What every kind of source answers. ``data``: the texts with their labels and other
    columns (``None`` for a saved corpus, whose rows stay in its store); ``label_title``: what
    the labels are called (the legend title: ``"Label"``, ``"Sense"``, a CSV column's name);
    ``description``: the line shown under the choice (may be empty); ``store``: a saved
    corpus's folder (never shown), else ``None``; ``vectors`` and ``files``: uploaded vectors
    and the names of their files, else ``None`` and ``()``."""

    data: uploads.LabelledTexts | None = None
    label_title: str = "Label"
    description: str = ""
    store: str | None = None
    vectors: vectorfiles.UploadedVectors | None = None
    files: tuple[str, ...] = ()

    @property
    def embedded(self) -> bool:
        """Whether the source carries a model's vectors already (nothing runs the model)."""
        return False

    @property
    def ready(self) -> bool:
        """Whether there is something to draw or search (not while an upload is awaited)."""
        return True

    @property
    def uploaded_vectors(self) -> bool:
        """Whether the texts come with vectors of their own, uploaded or awaited: no pooling,
        layers or post-processing applies to them."""
        return False

    def columns(self) -> list[str]:
        """The columns a map can be coloured by, besides the texts and labels."""
        return [name for name, _ in self.data.columns] if self.data is not None else []

    def column(self, name: str, points, rows: np.ndarray) -> Sequence:
        """The cells of column ``name`` of the texts ``rows`` (indices into the source's texts;
        ``points``: what the map draws of them). Raises ``ValueError`` when there is no such
        column."""
        cells = dict(self.data.columns).get(name) if self.data is not None else None
        if cells is None:
            raise ValueError(f"The data has no column {shorten(name)!r}: choose another colouring.")
        return [cells[row] for row in rows]


@dataclass(frozen=True)
class BuiltinSet(Source):
    """A built-in example set, loaded: ``description`` says what it holds."""

    data: uploads.LabelledTexts
    label_title: str = "Label"
    description: str = ""


@dataclass(frozen=True)
class PastedLines(Source):
    """Lines a person pasted (a label and a tab before a text labels it)."""

    data: uploads.LabelledTexts


@dataclass(frozen=True)
class UploadedCsv(Source):
    """An uploaded CSV's texts, labelled by the column the person chose (``label_title``)."""

    data: uploads.LabelledTexts
    label_title: str = "Label"


@dataclass(frozen=True)
class VectorFile(Source):
    """Uploaded vectors (:mod:`explorer.ui.vectors`) with their texts and labels (``data``),
    from the files named ``files`` (a snippet reads them by these names). Make one with
    :meth:`of`."""

    data: uploads.LabelledTexts
    label_title: str
    vectors: vectorfiles.UploadedVectors
    files: tuple[str, ...] = ()

    @classmethod
    def of(cls, found: vectorfiles.UploadedVectors, files: Sequence[str]) -> VectorFile:
        """The source of the uploaded vectors ``found``, read from the files ``files``."""
        data = uploads.LabelledTexts(found.texts, found.labels, found.dropped, found.columns)
        return cls(data, found.label_title, found, tuple(files))

    @property
    def embedded(self) -> bool:
        return True

    @property
    def uploaded_vectors(self) -> bool:
        return True


@dataclass(frozen=True)
class AwaitedVectors(Source):
    """Uploaded vectors chosen, their files not uploaded yet (the upload widget says what to
    upload): nothing to draw or search until they are, and the controls are those of uploaded
    vectors."""

    @property
    def ready(self) -> bool:
        return False

    @property
    def uploaded_vectors(self) -> bool:
        return True


@dataclass(frozen=True)
class SavedCorpus(Source):
    """A corpus embedded ahead of time (``explorer embed``) in the folder ``store`` of the
    operator's (never shown): its rows and vectors stay in the store."""

    store: str
    description: str = "Embedded ahead of time with `explorer embed`: nothing runs the model."

    @property
    def embedded(self) -> bool:
        return True

    def columns(self) -> list[str]:
        from explorer.ui.compute import open_store

        try:
            corpus = open_store(self.store)
        except ValueError:  # a damaged store: the page says so when it reads the rows
            return []
        skip = (corpus.text_column, corpus.label_column)
        return [name for name in corpus.manifest["input"]["columns"] if name not in skip]

    def column(self, name: str, points, rows: np.ndarray) -> Sequence:
        """The cells of ``name`` for the rows ``rows`` of those of the store that ``points``
        (a :class:`~explorer.ui.projection_maps._points.StorePoints`) draws."""
        from explorer.ui.compute import store_rows

        frame = store_rows(points.path, points.rows)
        if name not in frame.columns:
            raise ValueError(f"The saved corpus has no column {shorten(name)!r}.")
        return frame[name].to_numpy()[rows]
