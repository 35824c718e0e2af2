"""Layers across two models: linear CKA of every layer of one with every layer of the other,
over the words both read (:mod:`explorer.compare._words`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.compare._words import Progress, Span, WordAlignment, align_words, word_states
from explorer.model import Model

MAX_WORDS = 1000
"""Words :func:`cross_cka` compares at most (the first ones, text by text): one word x word
Gram matrix per layer, 4 MB each at 1,000 words."""


def _unit_grams(states: np.ndarray) -> np.ndarray:
    """Each layer's centred Gram matrix, flattened and scaled to unit norm: ``(L+1, n*n)``
    float32 (a constant layer gives zeros)."""
    grams = []
    for layer in states:
        x = np.asarray(layer, dtype=np.float64)
        x = x - x.mean(axis=0)
        gram = x @ x.T
        norm = np.linalg.norm(gram)
        grams.append((gram / norm if norm > 0 else gram).astype(np.float32).ravel())
    return np.stack(grams)


def cross_cka_matrix(states_a: np.ndarray, states_b: np.ndarray) -> np.ndarray:
    """Linear CKA of every layer of ``states_a`` ``(La+1, n, Ha)`` with every layer of
    ``states_b`` ``(Lb+1, n, Hb)`` (the same ``n`` examples): ``(La+1, Lb+1)`` float64 in
    [0, 1]. Equals :func:`explorer.explain.linear_cka` of each pair of layers (its Gram
    form ``<K, L> / (|K| |L|)``, each layer's Gram matrix made once)."""
    states_a, states_b = np.asarray(states_a), np.asarray(states_b)
    for name, states in (("states_a", states_a), ("states_b", states_b)):
        if states.ndim != 3:
            raise ValueError(
                f"{name} must have shape (layers + 1, examples, hidden); got {states.shape}."
            )
    if states_a.shape[1] != states_b.shape[1]:
        raise ValueError(
            f"states_a has {states_a.shape[1]} examples and states_b {states_b.shape[1]}: "
            "CKA compares the same ones."
        )
    if states_a.shape[1] < 2:
        raise ValueError(f"CKA needs at least 2 examples; got {states_a.shape[1]}.")
    grams_a = _unit_grams(states_a)
    matrix = np.empty((len(states_a), len(states_b)))
    for j, layer in enumerate(states_b):
        matrix[:, j] = grams_a @ _unit_grams(layer[None])[0]
    return np.clip(matrix, 0.0, 1.0)


def cross_cka(
    model_a: Model,
    model_b: Model,
    texts: Sequence[str],
    max_words: int = MAX_WORDS,
    *,
    alignment: WordAlignment | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """Linear CKA (Kornblith et al. 2019) between every layer of ``model_a`` and every layer
    of ``model_b`` over the words of ``texts``: ``(A's layers + 1, B's layers + 1)`` float64,
    index 0 the embedding output.

    A word's vector is the mean of its pieces (special tokens left out), so models with
    different tokenizers compare the same words; words the two tokenizers cut differently are
    left out (:func:`explorer.compare.align_words` says how many; pass its result as
    ``alignment`` to skip tokenizing again). At most ``max_words`` words, the first ones.
    With ``model_b`` = ``model_a`` the matrix is symmetric with ones on the diagonal, and
    over texts whose every word is one token it equals :func:`explorer.explain.layer_cka`.
    ``progress(done, total)`` counts texts through both models.
    """
    if max_words < 2:
        raise ValueError(f"max_words must be at least 2, not {max_words}.")
    texts = [texts] if isinstance(texts, str) else list(texts)
    alignment = alignment or align_words(model_a, model_b, texts)
    spans = list(cka_spans(alignment, max_words))
    check_words(spans)
    used = [i for i, s in enumerate(spans) if s]
    texts, spans = [texts[i] for i in used], [spans[i] for i in used]
    total = 2 * len(texts)

    def report(offset: int):
        return None if progress is None else (lambda done, _: progress(offset + done, total))

    states_a = word_states(model_a, texts, spans, report(0))
    states_b = word_states(model_b, texts, spans, report(len(texts)))
    return cross_cka_matrix(states_a, states_b)


def cka_spans(alignment: WordAlignment, max_words: int) -> tuple[tuple[Span, ...], ...]:
    """The spans of ``alignment`` that :func:`explorer.compare.cross_cka` compares: the first
    ``max_words`` words, text by text (texts past them get none)."""
    spans, kept = [], 0
    for text_spans in alignment.spans:
        take = tuple(text_spans[: max(0, max_words - kept)])
        spans.append(take)
        kept += len(take)
    return tuple(spans)


def check_words(spans: Sequence[Sequence[Span]]) -> None:
    """``ValueError`` when ``spans`` (each text's words) hold fewer than the 2 words CKA needs."""
    kept = sum(len(s) for s in spans)
    if kept < 2:
        raise ValueError(
            "Comparing layers needs at least 2 words that both tokenizers read alike; "
            f"these texts have {kept}."
        )


def best_matches(matrix: np.ndarray) -> np.ndarray:
    """For each layer of A (row), the layer of B (column) with the highest CKA: ``(La+1,)``
    int (the lowest layer on ties)."""
    return np.argmax(np.asarray(matrix), axis=1)
