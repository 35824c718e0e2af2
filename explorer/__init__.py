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

from explorer._lazy import lazy_dir, lazy_getattr, lazy_homes

# Names are imported on first use (PEP 562), so that ``import explorer.ui.pages`` or
# ``explorer.server.settings`` does not import torch: a fresh server draws its first page before the
# model stack is loaded.
if TYPE_CHECKING:
    from explorer.choice import VectorChoice as VectorChoice
    from explorer.compare import align_map as align_map
    from explorer.compare import cross_cka as cross_cka
    from explorer.compare import neighbour_agreement as neighbour_agreement
    from explorer.compare import token_stats as token_stats
    from explorer.data.store.corpus import open_corpus as open_corpus
    from explorer.embeddings import CorpusEmbeddings as CorpusEmbeddings
    from explorer.embeddings import embed_corpus as embed_corpus
    from explorer.embeddings import sentence_embeddings as sentence_embeddings
    from explorer.explain import explain_similarity as explain_similarity
    from explorer.explain import isoscore as isoscore
    from explorer.explain import linear_cka as linear_cka
    from explorer.explain import postprocess as postprocess
    from explorer.layers import LAYER_CHOICES as LAYER_CHOICES
    from explorer.layers import combine_layers as combine_layers
    from explorer.layers import layer_indices as layer_indices
    from explorer.model import Model as Model
    from explorer.model import Tokenization as Tokenization
    from explorer.model import estimate_parameters as estimate_parameters
    from explorer.model import load_model as load_model
    from explorer.model.ablation import ablate_heads as ablate_heads
    from explorer.model.hub import DEFAULT_MODEL as DEFAULT_MODEL
    from explorer.pooling import POOLINGS as POOLINGS
    from explorer.similarity import Neighbors as Neighbors
    from explorer.similarity import cosine_similarity as cosine_similarity
    from explorer.similarity import neighbors as neighbors
    from explorer.subwords import SUBWORD_MODES as SUBWORD_MODES
    from explorer.words import Occurrence as Occurrence
    from explorer.words import find_occurrences as find_occurrences
    from explorer.words import token_vectors as token_vectors
    from explorer.words import word_layer_vectors as word_layer_vectors
    from explorer.words import word_vectors as word_vectors

_HOMES = lazy_homes(__file__)
__getattr__ = lazy_getattr(__name__, _HOMES)
__dir__ = lazy_dir(__name__, _HOMES)
__all__ = list(_HOMES)

__version__ = "0.1.0"
