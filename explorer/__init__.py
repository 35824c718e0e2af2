"""Contextual Embedding Explorer: a small library to look inside BERT-family encoders.

Load a model, tokenize, take hidden states of every layer, and turn them into word and
sentence vectors under named layer and pooling strategies::

    import explorer
    model = explorer.load_model()  # the bundled all-MiniLM-L6-v2, offline
    occurrences, vectors = explorer.word_vectors(model, sentences, "bank", layers="last")
    explorer.cosine_similarity(vectors)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer._lazy import lazy_dir, lazy_getattr

# Names are imported on first use (PEP 562), so that ``import explorer.ui.pages`` or
# ``explorer.server.settings`` does not import torch: a fresh server draws its first page before the
# model stack is loaded.
_HOMES = {
    "ablate_heads": "explorer.model.ablation",
    "CorpusEmbeddings": "explorer.embeddings",
    "embed_corpus": "explorer.embeddings",
    "sentence_embeddings": "explorer.embeddings",
    "LAYER_CHOICES": "explorer.layers",
    "combine_layers": "explorer.layers",
    "layer_indices": "explorer.layers",
    "DEFAULT_MODEL": "explorer.model.hub",
    "Model": "explorer.model",
    "Tokenization": "explorer.model",
    "estimate_parameters": "explorer.model",
    "load_model": "explorer.model",
    "Neighbors": "explorer.similarity._nearest",
    "neighbors": "explorer.similarity._nearest",
    "POOLINGS": "explorer.pooling",
    "cosine_similarity": "explorer.similarity._cosine",
    "SUBWORD_MODES": "explorer.words",
    "Occurrence": "explorer.words",
    "find_occurrences": "explorer.words",
    "token_vectors": "explorer.words",
    "word_layer_vectors": "explorer.words",
    "word_vectors": "explorer.words",
    "open_corpus": "explorer.data.store.corpus",
    "explain_similarity": "explorer.explain",
    "postprocess": "explorer.explain",
    "linear_cka": "explorer.explain",
    "isoscore": "explorer.explain",
    "align_map": "explorer.compare",
    "cross_cka": "explorer.compare",
    "neighbour_agreement": "explorer.compare",
    "token_stats": "explorer.compare",
}

if TYPE_CHECKING:
    from explorer.compare import align_map, cross_cka, neighbour_agreement, token_stats
    from explorer.data.store.corpus import open_corpus
    from explorer.embeddings import CorpusEmbeddings, embed_corpus, sentence_embeddings
    from explorer.explain import explain_similarity, isoscore, linear_cka, postprocess
    from explorer.layers import LAYER_CHOICES, combine_layers, layer_indices
    from explorer.model import Model, Tokenization, estimate_parameters, load_model
    from explorer.model.ablation import ablate_heads
    from explorer.model.hub import DEFAULT_MODEL
    from explorer.pooling import POOLINGS
    from explorer.similarity._cosine import cosine_similarity
    from explorer.similarity._nearest import Neighbors, neighbors
    from explorer.words import (
        SUBWORD_MODES,
        Occurrence,
        find_occurrences,
        token_vectors,
        word_layer_vectors,
        word_vectors,
    )


__getattr__ = lazy_getattr(__name__, _HOMES)
__dir__ = lazy_dir(__name__, _HOMES)


__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "LAYER_CHOICES",
    "POOLINGS",
    "SUBWORD_MODES",
    "CorpusEmbeddings",
    "Model",
    "Neighbors",
    "Occurrence",
    "Tokenization",
    "ablate_heads",
    "align_map",
    "combine_layers",
    "cosine_similarity",
    "cross_cka",
    "embed_corpus",
    "explain_similarity",
    "estimate_parameters",
    "find_occurrences",
    "isoscore",
    "layer_indices",
    "linear_cka",
    "load_model",
    "neighbors",
    "neighbour_agreement",
    "open_corpus",
    "postprocess",
    "sentence_embeddings",
    "token_stats",
    "token_vectors",
    "word_layer_vectors",
    "word_vectors",
]
