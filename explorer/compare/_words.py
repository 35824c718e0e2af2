"""Words two tokenizers agree on: each text's words by character span, and their vectors.

A word is what :meth:`explorer.model.Tokenization.words` gives (the tokenizer's own
pre-tokenization: its ``word_ids`` and character offsets). Two tokenizers may cut a text into
different words (one keeps "bank," whole, the other splits off the comma), so the words
compared are those whose character span is the same under both; the others are dropped and
counted (:class:`WordAlignment`). A word's vector at a layer is the mean of its pieces'
vectors; special tokens are never part of a word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from explorer.model import Model

Span = tuple[int, int]
"""A word's ``(char_start, char_end)`` in its text."""

Progress = Callable[[int, int], None]


def word_spans(model: Model, text: str) -> dict[Span, tuple[int, int]]:
    """The words of ``text`` as ``model`` reads them: ``{(char_start, char_end): (token_start,
    token_end)}`` (token positions in ``model.tokenize(text)``, end exclusive; words cut off
    by truncation are absent)."""
    return {(a, b): (start, end) for start, end, a, b in model.tokenize(text).words()}


def specials_left_out(model_a: Model, model_b: Model, text: str) -> str:
    """The special tokens the compared words of ``text`` leave out, as each model writes them,
    for a sentence: ``"[CLS], [SEP]"`` when both models add the same ones, ``"[CLS], [SEP] of
    A and <s>, </s> of B"`` when they differ (``"<s>, </s> of B"`` when A adds none),
    ``"special tokens"`` when neither adds any."""
    names = [", ".join(model.tokenize(text).special_tokens) for model in (model_a, model_b)]
    if names[0] == names[1]:
        return names[0] or "special tokens"
    return " and ".join(f"{n} of {side}" for n, side in zip(names, "AB", strict=True) if n)


@dataclass(frozen=True)
class WordAlignment:
    """The words of some texts that two models share.

    ``spans[i]`` are the character spans of text ``i``'s shared words, in text order;
    ``only_a`` and ``only_b`` count the words of one model whose span the other does not have
    (dropped). ``same_words`` is True when both models cut every text into the same words.
    """

    spans: tuple[tuple[Span, ...], ...]
    only_a: int
    only_b: int

    @property
    def shared(self) -> int:
        """Number of words both models have."""
        return sum(len(s) for s in self.spans)

    @property
    def same_words(self) -> bool:
        return self.only_a == 0 and self.only_b == 0

    def note(self) -> str | None:
        """A sentence saying how many words were dropped, or ``None`` if none were."""
        if self.same_words:
            return None
        return (
            f"The two tokenizers cut {self.only_a + self.only_b:,} words differently "
            f"({self.only_a:,} of model A's, {self.only_b:,} of model B's, e.g. a word with its "
            f"punctuation kept or split off); they are left out and the {self.shared:,} words "
            "both read alike are compared."
        )


def _texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        texts = [texts]
    texts = list(texts)
    if not texts:
        raise ValueError("No texts given: pass at least one sentence.")
    return texts


def align_words(model_a: Model, model_b: Model, texts: Sequence[str]) -> WordAlignment:
    """The words of ``texts`` that ``model_a`` and ``model_b`` both read, matched by character
    span (tokenization only, no forward pass)."""
    spans, only_a, only_b = [], 0, 0
    for text in _texts(texts):
        a, b = word_spans(model_a, text), word_spans(model_b, text)
        shared = sorted(set(a) & set(b))
        only_a += len(a) - len(shared)
        only_b += len(b) - len(shared)
        spans.append(tuple(shared))
    return WordAlignment(tuple(spans), only_a, only_b)


def word_states(
    model: Model,
    texts: Sequence[str],
    spans: Sequence[Sequence[Span]],
    progress: Progress | None = None,
) -> np.ndarray:
    """Every layer's vector of the given words: ``(num_layers + 1, n_words, hidden)`` float32,
    the words of all texts one after another (``spans[i]``: the character spans of text
    ``i``'s words, each a word of ``model``'s, e.g. from :func:`align_words`). A word's vector
    is the mean of its pieces' vectors. One batched forward pass."""
    texts = _texts(texts)
    if len(spans) != len(texts):
        raise ValueError(f"Got {len(texts)} texts but word spans for {len(spans)}.")
    states = model.hidden_states_batch(texts, progress=progress)
    words = []
    for text, stack, wanted in zip(texts, states, spans, strict=True):
        tokens = word_spans(model, text)
        for span in wanted:
            if span not in tokens:
                raise ValueError(f"{text[span[0] : span[1]]!r} is not a word of {model.name}.")
            start, end = tokens[span]
            words.append(stack[:, start:end].mean(axis=1))
    if not words:
        return np.zeros((model.num_layers + 1, 0, model.hidden_size), dtype=np.float32)
    return np.stack(words, axis=1).astype(np.float32, copy=False)
