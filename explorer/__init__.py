"""Contextual Embedding Explorer: a small library to look inside BERT-family encoders.

Load a model, tokenize, take hidden states of every layer, and turn them into word and
sentence vectors under named layer and pooling strategies::

    import explorer
    model = explorer.load_model()  # the bundled all-MiniLM-L6-v2, offline
    occurrences, vectors = explorer.word_vectors(model, sentences, "bank", layers="last")
    explorer.cosine_similarity(vectors)
"""

from __future__ import annotations

from explorer.embeddings import CorpusEmbeddings, embed_corpus, sentence_embeddings
from explorer.layers import LAYER_STRATEGIES, combine_layers, layer_indices
from explorer.model import DEFAULT_MODEL, Model, Tokenization, estimate_parameters, load_model
from explorer.neighbors import Neighbors, neighbors
from explorer.pooling import POOLINGS
from explorer.similarity import cosine_similarity
from explorer.words import (
    SUBWORD_MODES,
    Occurrence,
    find_occurrences,
    token_vectors,
    word_layer_vectors,
    word_vectors,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "LAYER_STRATEGIES",
    "POOLINGS",
    "SUBWORD_MODES",
    "CorpusEmbeddings",
    "Model",
    "Neighbors",
    "Occurrence",
    "Tokenization",
    "combine_layers",
    "cosine_similarity",
    "embed_corpus",
    "estimate_parameters",
    "find_occurrences",
    "layer_indices",
    "load_model",
    "neighbors",
    "sentence_embeddings",
    "token_vectors",
    "word_layer_vectors",
    "word_vectors",
]
