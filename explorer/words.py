"""Words in context: find every occurrence of a word and take its contextual vectors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from explorer.backend import Model, Tokenization
from explorer.layers import LayerStrategy, combine_layers, validate_strategy

SUBWORD_MODES = ("first", "last", "mean", "max", "sum")
SubwordMode = Literal["first", "last", "mean", "max", "sum"]


@dataclass(frozen=True)
class Occurrence:
    """One whole-word occurrence of a word in ``texts[text_index]``.

    Tokens ``token_start`` to ``token_end`` (exclusive) are positions in
    ``model.tokenize(texts[text_index])``; ``char_start``/``char_end`` index into the text and
    ``surface`` is the text as written there.
    """

    text_index: int
    token_start: int
    token_end: int
    char_start: int
    char_end: int
    surface: str

    @property
    def num_tokens(self) -> int:
        return self.token_end - self.token_start


def _as_list(texts: str | Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        return [texts]
    texts = list(texts)
    if not texts:
        raise ValueError("No texts given: pass at least one sentence.")
    return texts


def _target_words(model: Model, word: str) -> list[str]:
    """The normalized words of ``word`` as the tokenizer splits them (one for "bank")."""
    if not isinstance(word, str) or not word.strip():
        raise ValueError("The word to look for is empty: type a word such as 'bank'.")
    tokenization = model.tokenize(word.strip())
    keys = [model.normalize(tokenization.text[a:b]) for _, _, a, b in tokenization.words()]
    if not keys:
        raise ValueError(f"{word!r} has no tokens the model can read.")
    return keys


def _word_keys(model: Model, tokenization: Tokenization):
    return [
        (model.normalize(tokenization.text[a:b]), start, end, a, b)
        for start, end, a, b in tokenization.words()
    ]


def find_occurrences(model: Model, texts: str | Sequence[str], word: str) -> list[Occurrence]:
    """Every whole-word occurrence of ``word`` in ``texts``, in text order.

    Matching uses the tokenizer's own normalization, so it is case-insensitive for uncased
    models; ``word`` may be split into subwords ("embeddings") or be several words
    ("river bank"). "bank" does not match "banks" or "bank's" stem. Returns ``[]`` when the
    word does not occur; raises ``ValueError`` for an empty word or empty texts.
    """
    target = _target_words(model, word)
    found = []
    for index, text in enumerate(_as_list(texts)):
        tokenization = model.tokenize(text)
        keys = _word_keys(model, tokenization)
        for i in range(len(keys) - len(target) + 1):
            window = keys[i : i + len(target)]
            if [k[0] for k in window] == target:
                start, end = window[0][3], window[-1][4]
                found.append(
                    Occurrence(
                        index, window[0][1], window[-1][2], start, end, tokenization.text[start:end]
                    )
                )
    return found


def words_in(model: Model, texts: str | Sequence[str], limit: int = 40) -> list[str]:
    """Distinct normalized words of ``texts`` in order of appearance (for "did you mean")."""
    seen: dict[str, None] = {}
    for text in _as_list(texts):
        for key, *_ in _word_keys(model, model.tokenize(text)):
            if any(ch.isalnum() for ch in key):
                seen.setdefault(key, None)
    return list(seen)[:limit]


def aggregate_subwords(vectors: np.ndarray, mode: str = "mean") -> np.ndarray:
    """One vector from a word's subword vectors: ``(k, dim)`` in, ``(dim,)`` float32 out."""
    if mode not in SUBWORD_MODES:
        raise ValueError(f"Unknown subword mode {mode!r}; choose one of {SUBWORD_MODES}")
    if mode == "first":
        return vectors[0].astype(np.float32)
    if mode == "last":
        return vectors[-1].astype(np.float32)
    reduce = {"mean": np.mean, "max": np.max, "sum": np.sum}[mode]
    return reduce(vectors, axis=0).astype(np.float32)


def token_vectors(model: Model, text: str, strategy: LayerStrategy = "sum_last4") -> np.ndarray:
    """Contextual vector of every token of ``text``: ``(num_tokens, dim)`` float32."""
    validate_strategy(strategy, model.num_layers)
    return combine_layers(model.hidden_states(text), strategy)


def word_layer_vectors(
    model: Model, texts: str | Sequence[str], word: str, subwords: str = "mean"
) -> tuple[list[Occurrence], np.ndarray]:
    """Vectors of every occurrence of ``word`` at every layer.

    Returns ``(occurrences, array)`` with array ``(num_layers + 1, n_occurrences, hidden)``;
    subwords of one occurrence are combined with ``subwords``. Raises ``ValueError`` naming
    the words that are there when ``word`` does not occur.
    """
    if subwords not in SUBWORD_MODES:
        raise ValueError(f"Unknown subword mode {subwords!r}; choose one of {SUBWORD_MODES}")
    texts = _as_list(texts)
    occurrences = find_occurrences(model, texts, word)
    if not occurrences:
        present = ", ".join(words_in(model, texts))
        raise ValueError(f"{word.strip()!r} does not occur in the text. Words there: {present}")
    used = sorted({o.text_index for o in occurrences})
    states = dict(zip(used, model.hidden_states_batch([texts[i] for i in used]), strict=True))
    vectors = np.stack(
        [
            np.stack(
                [
                    aggregate_subwords(layer[o.token_start : o.token_end], subwords)
                    for layer in states[o.text_index]
                ]
            )
            for o in occurrences
        ],
        axis=1,
    )
    return occurrences, vectors


def word_vectors(
    model: Model,
    texts: str | Sequence[str],
    word: str,
    strategy: LayerStrategy = "sum_last4",
    subwords: str = "mean",
) -> tuple[list[Occurrence], np.ndarray]:
    """Contextual vectors of every occurrence of ``word`` in ``texts``.

    Returns ``(occurrences, array)``, array ``(n_occurrences, dim)`` float32: subwords are
    combined per layer with ``subwords`` (first, last, mean, max, sum), then layers with
    ``strategy``. Raises ``ValueError`` for an unknown mode or a word that does not occur.
    """
    validate_strategy(strategy, model.num_layers)
    occurrences, per_layer = word_layer_vectors(model, texts, word, subwords)
    return occurrences, combine_layers(per_layer, strategy)
