"""One model's single reading of the Compare models page's texts: the sentence vectors the maps
show and the word vectors the cross-model CKA compares, from one forward pass.

The CKA's texts are the first of the maps' texts (both are the page corpus's first texts, the
CKA's within a smaller share of the pair's budget, :mod:`explorer.compare._budget`), so each
text goes through each model once, not once per section."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from explorer.compare._words import Progress, Span, word_spans
from explorer.embeddings import CorpusEmbeddings, embed_corpus
from explorer.model import Batch, Model


@dataclass(frozen=True)
class Reading:
    """What one model gives for some texts: ``corpus``, every text's pooled vectors at every
    layer (:func:`explorer.embed_corpus`), and ``words``, ``(layers + 1, n_words, hidden)``
    float32, the vectors of the requested words (:func:`explorer.compare.word_states`)."""

    corpus: CorpusEmbeddings
    words: np.ndarray


def read_texts(
    model: Model,
    texts: Sequence[str],
    spans: Sequence[Sequence[Span]],
    progress: Progress | None = None,
) -> Reading:
    """:func:`explorer.embed_corpus` of ``texts`` and :func:`explorer.compare.word_states` of the
    words ``spans[i]`` of text ``i`` (for the first ``len(spans)`` texts), from one forward
    pass: the same numbers as those two functions (up to float rounding of other batching).
    ``ValueError`` when a span is not one of ``model``'s words."""
    texts = list(texts)
    if len(spans) > len(texts):
        raise ValueError(f"Got {len(texts)} texts but word spans for {len(spans)}.")
    tokens: list[list[tuple[int, int]]] = []
    for text, wanted in zip(texts, spans, strict=False):
        known = word_spans(model, text) if wanted else {}
        for span in wanted:
            if span not in known:
                raise ValueError(f"{text[span[0] : span[1]]!r} is not a word of {model.name}.")
        tokens.append([known[span] for span in wanted])
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in tokens], dtype=np.int64)])
    words = np.empty((model.num_layers + 1, int(offsets[-1]), model.hidden_size), np.float32)

    def gather(batch: Batch, states: list[torch.Tensor]) -> None:
        for b, (i, n) in enumerate(zip(batch.indices, batch.lengths, strict=True)):
            if i >= len(tokens) or not tokens[i]:
                continue
            stack = torch.stack([state[b, :n] for state in states]).numpy()
            for k, (start, end) in enumerate(tokens[i]):
                words[:, offsets[i] + k] = stack[:, start:end].mean(axis=1)

    corpus = embed_corpus(model, texts, progress, also=gather)
    return Reading(corpus, words)
