"""Cached maps of sentence vectors and word occurrences (PCA, UMAP, t-SNE), and how faithful
they are point by point (the neighbour inspector, neighbourhood preservation)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from explorer import mapquality
from explorer.layers import combine_layers
from explorer.memo import checkpoint
from explorer.projection import ProjectionParams, Projector
from explorer.ui.compute import (
    cached,
    cached_from,
    cap_tokens,
    embed_corpus,
    heavy_points,
    word_layer_vectors,
)


@dataclass(frozen=True)
class Points:
    """What a map draws: every text of ``texts`` (``word`` None, sentence vectors under
    ``pooling``) or every occurrence of ``word`` (subwords combined with ``subwords``), with
    ``layers`` combined; vectors of the model ``model_name``."""

    model_name: str
    texts: tuple[str, ...]
    layers: str | int
    pooling: str | None = "mean"
    word: str | None = None
    subwords: str = "mean"

    def vectors(self) -> np.ndarray:
        """The points' full-space vectors ``(n, dim)`` (cached forward passes)."""
        if self.word is None:
            return embed_corpus(self.model_name, self.texts).sentence(self.pooling, self.layers)
        _, per_layer, _ = word_layer_vectors(self.model_name, self.texts, self.word, self.subwords)
        return combine_layers(per_layer, self.layers)

    def per_layer(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The points (those of ``rows``, default all) at every layer ``(L + 1, n, dim)``
        (layer choice ignored)."""
        if self.word is None:
            stack = embed_corpus(self.model_name, self.texts).per_layer(self.pooling)
        else:
            stack = word_layer_vectors(self.model_name, self.texts, self.word, self.subwords)[1]
        return stack if rows is None else stack[:, rows]


@dataclass(frozen=True)
class StorePoints:
    """Rows ``rows`` of the saved corpus at ``path``, as sentence vectors under ``pooling`` and
    ``layers`` read from the store (no forward pass)."""

    path: str
    rows: tuple[int, ...]
    layers: str | int
    pooling: str | None = "mean"
    word: None = None
    saved: str | None = None
    """The method of the store's saved map these rows come from (drawn, not fitted), if any."""

    def vectors(self) -> np.ndarray:
        """``(len(rows), dim)`` float32 vectors of the rows, read once per server while they
        stay in the "corpora" memo (a click on the map asks for them again: reading 20,000
        rows from the store took 80 ms of its 0.2 s)."""
        from explorer.ui.compute import open_store

        return cached(
            "corpora",
            ("store vectors", self.path, self.rows, self.layers, self.pooling),
            lambda: open_store(self.path).sentence(
                self.pooling, self.layers, rows=np.array(self.rows)
            ),
        )

    def per_layer(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The rows (those of ``rows``, positions in :attr:`rows`, default all) at every stored
        layer ``(L + 1, n, dim)`` (needs every layer stored); only those rows are read."""
        from explorer.ui.compute import open_store

        corpus = open_store(self.path)
        rows = np.array(self.rows) if rows is None else np.array(self.rows)[rows]
        if len(corpus.layers) != corpus.num_layers + 1:
            raise ValueError("Layers in motion need every layer: embed with --layers all.")
        return np.stack(
            [
                corpus.sentence(self.pooling, layer, rows=rows)
                for layer in range(corpus.num_layers + 1)
            ]
        )


@dataclass(frozen=True)
class VectorPoints:
    """Uploaded vectors (:class:`explorer.vectorfiles.UploadedVectors`, no model and no forward
    pass), keyed by the upload's ``digest``.

    The memos keep their keys after the page's run, so the key holds the vectors by a weak
    reference only: a strong one would keep every visitor's upload in memory outside the memos'
    byte budgets. The page holds the upload while it draws."""

    digest: str
    source: weakref.ref = field(compare=False, repr=False)
    layers: None = None
    pooling: None = None
    word: None = None

    @classmethod
    def of(cls, data) -> VectorPoints:
        """The points of ``data`` (an :class:`~explorer.vectorfiles.UploadedVectors`)."""
        return cls(data.digest, weakref.ref(data.vectors))

    def vectors(self) -> np.ndarray:
        """The uploaded ``(n, dim)`` float32 vectors."""
        vectors = self.source()
        if vectors is None:
            raise ValueError("The uploaded vectors are no longer in memory: upload them again.")
        return vectors

    def per_layer(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Never: uploaded vectors have one layer."""
        raise ValueError(
            "Layers in motion need texts embedded by the explorer: uploaded vectors hold one "
            "vector per text, not every layer."
        )


def source_points(
    model_name: str,
    source,
    layers,
    pooling: str | None,
    word: str | None,
    params: ProjectionParams | None = None,
):
    """What the Projections page draws of ``source`` (an :class:`explorer.ui.sources.Source`):
    ``(points, texts, labels, legend title, note)``. Uploaded vectors and saved corpora need no
    forward pass (a saved corpus's own map under ``params`` is drawn when it has one); other
    texts are capped (:func:`explorer.limits.cap_tokens`), ``note`` saying what was kept.
    Raises ``ValueError`` for texts the tokenizer cannot read."""
    if source.vectors is not None:
        data = source.vectors
        return VectorPoints.of(data), data.texts, data.labels, data.label_title, data.note
    if source.kind == "saved":
        from explorer.ui.savedmap import saved_points

        if params is None:
            return saved_points(source.store, layers, pooling)
        return saved_points(source.store, layers, pooling, params.method, params.n_components)
    kept = cap_tokens(model_name, source.data)
    texts = kept.data.texts
    points = Points(model_name, texts, layers, pooling, word)
    return points, texts, kept.data.labels, source.label_title, kept.note


def fit(points: Points | StorePoints | VectorPoints, params: ProjectionParams) -> Projector:
    """The fitted projector of ``points`` (``embedding_`` is ``(n, n_components)``): for rows
    of a saved map (``points.saved``) in its method and 2-D, the saved coordinates."""
    from explorer.ui.savedmap import saved_map_of

    found = saved_map_of(points, params)  # None: fitted (another layer choice or pooling too)
    if found is not None:
        from explorer.store.saved_maps import saved_projector

        return cached(
            "projections",
            ("saved fit", points),
            lambda: saved_projector(found, np.array(points.rows)),
        )
    return cached_from(
        "projections",
        ("fit", points, params),
        points.vectors,  # embedded in their own turn, then mapped in the map's lane
        lambda vectors: params.projector().fit(vectors, lambda done, total: checkpoint()),
        lambda vectors: heavy_points(len(vectors), params.method),
    )


def sentence_projection(
    model_name: str,
    texts: tuple[str, ...],
    pooling: str,
    layers: str | int,
    params: ProjectionParams,
) -> Projector:
    """Fitted projector of the sentence vectors of ``texts`` (``pooling`` then ``layers``)."""
    return fit(Points(model_name, texts, layers, pooling), params)


def word_projection(
    model_name: str,
    texts: tuple[str, ...],
    word: str,
    layers: str | int,
    params: ProjectionParams,
    subwords: str = "mean",
):
    """``(occurrences, fitted projector, note)`` for the occurrences of ``word`` in ``texts``
    (``note`` says when a cap left some out)."""
    occurrences, _, note = word_layer_vectors(model_name, texts, word, subwords)
    points = Points(model_name, texts, layers, None, word, subwords)
    return occurrences, fit(points, params), note


def preservation(points: Points, params: ProjectionParams, k: int) -> np.ndarray:
    """:func:`explorer.mapquality.preservation` of the map of ``points``: ``(n,)`` in 0-1."""
    return cached_from(
        "projections",
        ("preservation", points, params, k),
        lambda: (points.vectors(), fit(points, params).embedding_),
        lambda both: mapquality.preservation(*both, k),
        lambda both: heavy_points(len(both[0])),
        "Comparing every point's neighbours in the full space and on the map…",
    )


def inspect(points: Points, params: ProjectionParams, row: int, k: int) -> mapquality.Inspection:
    """:func:`explorer.mapquality.inspect_point` of point ``row`` of the map of ``points``."""
    return mapquality.inspect_point(points.vectors(), fit(points, params).embedding_, row, k)
