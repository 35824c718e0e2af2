"""What a Projections map draws, as hashable keys of the caches: texts or word occurrences
embedded by the explorer (:class:`Points`), rows of a saved corpus (:class:`StorePoints`) and
uploaded vectors (:class:`VectorPoints`). Each gives its full-space vectors and, where it can,
its vectors at every layer."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from explorer.choice import VectorChoice
from explorer.model.ref import ModelRef
from explorer.ui.compute import cached, embed_corpus, open_store, word_layer_vectors, word_vectors


@dataclass(frozen=True)
class Points:
    """What a map draws: every text of ``texts`` (``word`` None: sentence vectors under
    ``choice``) or every occurrence of ``word`` (its subwords and layers combined by
    ``choice``, whose pooling does not apply); vectors of the model ``ref``, post-processed by
    the choice's ``post`` (:func:`explorer.explain.postprocess`, the points their own
    reference: the statistics of the texts on the map)."""

    ref: ModelRef
    texts: tuple[str, ...]
    choice: VectorChoice = VectorChoice()
    word: str | None = None

    def vectors(self) -> np.ndarray:
        """The points' full-space vectors ``(n, dim)`` (cached forward passes), post-processed
        (cached too: all-but-the-top's SVD of 5,000 vectors would run at every click)."""
        post = self.choice.post
        if post == "none":
            return self.raw_vectors()
        from explorer.explain import postprocess

        return cached("corpora", ("post", self), lambda: postprocess(self.raw_vectors(), post))

    def raw_vectors(self) -> np.ndarray:
        """The points' vectors before post-processing ``(n, dim)``."""
        if self.word is None:
            return embed_corpus(self.ref, self.texts).sentence(self.choice)
        return self.occurrences()[1]

    def occurrences(self):
        """For a word map: ``(occurrences, vectors (n, dim) under the layer choice, note)``,
        cached without every layer (:func:`explorer.ui.compute.word_vectors`)."""
        return word_vectors(self.ref, self.texts, self.word, self.choice)

    def per_layer(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The points (those of ``rows``, default all) at every layer ``(L + 1, n, dim)``
        (layer choice ignored), each layer post-processed on its own."""
        if self.word is None:
            stack = embed_corpus(self.ref, self.texts).per_layer(self.choice)
        else:
            stack = word_layer_vectors(self.ref, self.texts, self.word, self.choice.subwords)[1]
        if self.choice.post != "none":
            from explorer.explain import postprocess_layers

            stack = postprocess_layers(stack, self.choice.post)
        return stack if rows is None else stack[:, rows]


@dataclass(frozen=True)
class StorePoints:
    """Rows ``rows`` of the saved corpus at ``path``, as sentence vectors under ``choice`` read
    from the store (no forward pass; a saved corpus is drawn as it was saved, so the choice
    has no post-processing)."""

    path: str
    rows: tuple[int, ...]
    choice: VectorChoice = VectorChoice()
    word: None = None
    saved: str | None = None
    """The method of the store's saved map these rows come from (drawn, not fitted), if any."""

    def vectors(self) -> np.ndarray:
        """``(len(rows), dim)`` float32 vectors of the rows, read once per server while they
        stay in the "corpora" memo (a click on the map asks for them again: reading 20,000
        rows from the store took 80 ms of its 0.2 s)."""
        choice = self.choice
        return cached(
            "corpora",
            ("store vectors", self.path, self.rows, choice),
            lambda: open_store(self.path).sentence(choice, rows=np.array(self.rows)),
        )

    def per_layer(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The rows (those of ``rows``, positions in :attr:`rows`, default all) at every stored
        layer ``(L + 1, n, dim)`` (needs every layer stored); only those rows are read."""
        corpus = open_store(self.path)
        rows = np.array(self.rows) if rows is None else np.array(self.rows)[rows]
        if len(corpus.layers) != corpus.num_layers + 1:
            raise ValueError("Layers in motion need every layer: embed with --layers all.")
        return np.stack(
            [
                corpus.sentence(self.choice.replace(layers=layer), rows=rows)
                for layer in range(corpus.num_layers + 1)
            ]
        )


@dataclass(frozen=True)
class VectorPoints:
    """Uploaded vectors (:class:`explorer.data.vectorfiles.UploadedVectors`, no model and no forward
    pass), keyed by the upload's ``digest``.

    The memos keep their keys after the page's run, so the key holds the vectors by a weak
    reference only: a strong one would keep every visitor's upload in memory outside the memos'
    byte budgets. The page holds the upload while it draws."""

    digest: str
    source: weakref.ref = field(compare=False, repr=False)
    choice: None = None
    word: None = None

    @classmethod
    def of(cls, data) -> VectorPoints:
        """The points of ``data`` (an :class:`~explorer.data.vectorfiles.UploadedVectors`)."""
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
