"""Cached projections of sentence vectors and word occurrences (PCA, UMAP, t-SNE)."""

from __future__ import annotations

from explorer.layers import combine_layers
from explorer.projection import ProjectionParams, Projector
from explorer.ui.compute import cached, embed_corpus, word_layer_vectors


def sentence_projection(
    model_name: str,
    texts: tuple[str, ...],
    pooling: str,
    layers: str | int,
    params: ProjectionParams,
) -> Projector:
    """Fitted projector of the sentence vectors of ``texts`` (``pooling`` then ``layers``);
    reuses :func:`~explorer.ui.compute.embed_corpus`, so it runs no forward pass once the corpus
    is embedded. ``embedding_`` is ``(texts, n_components)``."""

    def compute() -> Projector:
        vectors = embed_corpus(model_name, texts).sentence(pooling, layers)
        return params.projector().fit(vectors)

    return cached("projections", ("sentences", model_name, texts, pooling, layers, params), compute)


def word_projection(
    model_name: str,
    texts: tuple[str, ...],
    word: str,
    layers: str | int,
    params: ProjectionParams,
    subwords: str = "mean",
):
    """``(occurrences, fitted projector, note)`` for the occurrences of ``word`` in ``texts``
    (subwords combined with ``subwords``, then ``layers``; ``note`` says when a cap left some
    out); reuses the cached word vectors."""

    def compute():
        occurrences, per_layer, note = word_layer_vectors(model_name, texts, word, subwords)
        return occurrences, params.projector().fit(combine_layers(per_layer, layers)), note

    key = ("words", model_name, texts, word, layers, params, subwords)
    return cached("projections", key, compute)
