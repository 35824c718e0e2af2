"""Words in context: find every occurrence of a word and take its contextual vectors.

The one owner of word vectors: finding occurrences (:func:`find_occurrences`,
:func:`first_occurrences`) and taking every layer's vectors of given occurrences in one
batched forward pass (:func:`occurrence_layer_vectors`), an occurrence's subwords combined by
:func:`explorer.subwords.aggregate_subwords`. The contexts page, the projections page and the
probe's word features (:mod:`explorer.probing.features`) all come through here.

Naming: ``subwords`` is how an occurrence's subword vectors become one
(:data:`explorer.subwords.SUBWORD_MODES`), ``layers`` how the layers become one
(:data:`explorer.layers.LAYER_CHOICES`); :func:`word_vectors` takes both in one
:class:`explorer.VectorChoice`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch

from explorer.choice import VectorChoice
from explorer.layers import Layers, combine_layers, validate_layers
from explorer.model import Batch, Model, Tokenization
from explorer.model.forward import forward_batches
from explorer.subwords import SUBWORD_MODES, aggregate_subwords, validate_subwords

Progress = Callable[[int, int], None]


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


def words_per_text(texts: Sequence[str], word: str | Sequence[str]) -> list[str]:
    """One word per text: ``word`` repeated, or the given list when its length matches."""
    if isinstance(word, str):
        return [word] * len(texts)
    words = [str(w) for w in word]
    if len(words) != len(texts):
        raise ValueError(f"Got {len(texts)} texts but {len(words)} words.")
    return words


def first_occurrences(
    model: Model, texts: Sequence[str], word: str | Sequence[str]
) -> list[Occurrence]:
    """The first whole-word occurrence of each text's word (one word for all, or one per text).

    Returns one :class:`Occurrence` per text, ``text_index`` ``i`` for text ``i``. Raises
    ``ValueError`` saying how many texts (and which rows) lack their word: a result over
    silently dropped rows would answer a different question.
    """
    texts = list(texts)
    words = words_per_text(texts, word)
    found: list[Occurrence | None] = [None] * len(texts)
    for target in dict.fromkeys(w.strip() for w in words):
        rows = [i for i, w in enumerate(words) if w.strip() == target]
        for occurrence in find_occurrences(model, [texts[i] for i in rows], target):
            row = rows[occurrence.text_index]
            if found[row] is None:
                found[row] = replace(occurrence, text_index=row)
    missing = [i for i, o in enumerate(found) if o is None]
    if missing:
        shown = "; ".join(f"row {i + 1}: {words[i]!r} in {texts[i][:50]!r}" for i in missing[:3])
        raise ValueError(
            f"{len(missing)} of {len(texts)} texts do not contain their word as a whole word "
            f"({shown}{'; …' if len(missing) > 3 else ''}). Fix or remove those rows."
        )
    return found  # type: ignore[return-value]


def occurrence_layer_vectors(
    model: Model,
    texts: Sequence[str],
    occurrences: Sequence[Occurrence],
    subwords: Sequence[str] = SUBWORD_MODES,
    progress: Progress | None = None,
    *,
    precision: str = "float32",
    workers: int | None = None,
) -> dict[str, np.ndarray]:
    """Every layer's vector of each occurrence, under every subword mode, in one forward pass.

    ``occurrences[j].text_index`` indexes ``texts``; only texts holding an occurrence run
    through the model, batched by :func:`explorer.model.forward.forward_batches` (``progress``,
    ``precision`` and ``workers`` go there; ``progress(texts_done, texts_total)``). Returns
    ``{mode: (num_layers + 1, len(occurrences), hidden)}`` float32 for every mode in
    ``subwords``. Memory grows with the occurrences, not with the texts' tokens.
    """
    subwords = tuple(validate_subwords(mode) for mode in subwords)
    texts = list(texts)
    by_text: dict[int, list[int]] = {}
    for j, occurrence in enumerate(occurrences):
        if not 0 <= occurrence.text_index < len(texts):
            raise ValueError(
                f"Occurrence {j} points at text {occurrence.text_index}, "
                f"but there are {len(texts)} texts."
            )
        by_text.setdefault(occurrence.text_index, []).append(j)
    used = sorted(by_text)
    shape = (model.num_layers + 1, len(occurrences), model.hidden_size)
    vectors = {mode: np.empty(shape, dtype=np.float32) for mode in subwords}
    if not used:
        return vectors
    encoded = model.encode_batch([texts[i] for i in used])

    def take(batch: Batch, states: list[torch.Tensor]) -> None:
        for b, row in enumerate(batch.indices):
            for j in by_text[used[row]]:
                o = occurrences[j]
                span = np.stack([state[b, o.token_start : o.token_end].numpy() for state in states])
                for mode in subwords:
                    vectors[mode][:, j] = aggregate_subwords(span, mode)

    forward_batches(model, list(model.batches(encoded)), take, precision, progress, workers)
    return vectors


def token_vectors(
    model: Model,
    text: str,
    layers: Layers = "sum_last4",
) -> np.ndarray:
    """Contextual vector of every token of ``text``: ``(num_tokens, dim)`` float32.

    ``layers`` is a named layer choice or a layer number.
    """
    validate_layers(layers, model.num_layers)
    return combine_layers(model.hidden_states(text), layers)


def word_layer_vectors(
    model: Model, texts: str | Sequence[str], word: str, subwords: str = "mean"
) -> tuple[list[Occurrence], np.ndarray]:
    """Vectors of every occurrence of ``word`` at every layer.

    Returns ``(occurrences, array)`` with array ``(num_layers + 1, n_occurrences, hidden)``;
    subwords of one occurrence are combined with ``subwords``. Raises ``ValueError`` naming
    the words that are there when ``word`` does not occur.
    """
    validate_subwords(subwords)
    texts = _as_list(texts)
    occurrences = find_occurrences(model, texts, word)
    if not occurrences:
        present = ", ".join(words_in(model, texts))
        raise ValueError(f"{word.strip()!r} does not occur in the text. Words there: {present}")
    vectors = occurrence_layer_vectors(model, texts, occurrences, (subwords,))[subwords]
    return occurrences, vectors


def word_vectors(
    model: Model,
    texts: str | Sequence[str],
    word: str,
    layers: VectorChoice | Layers = "sum_last4",
    subwords: str | None = None,
) -> tuple[list[Occurrence], np.ndarray]:
    """Contextual vectors of every occurrence of ``word`` in ``texts``.

    Returns ``(occurrences, array)``, array ``(n_occurrences, dim)`` float32: subwords are
    combined per layer by the choice's ``subwords`` (first, last, mean, max, sum), then the
    layers by its ``layers``. ``layers`` is a :class:`explorer.VectorChoice` (its pooling does
    not apply: a word is its own subwords) or a layer choice or number, with ``subwords``
    beside it (``"mean"`` when left out). Raises ``ValueError`` for an unknown mode, a
    choice with ``subwords`` beside it, a layer this model lacks or a word that does not occur.
    """
    choice = _word_choice(layers, subwords)
    choice.indices(model.num_layers)
    occurrences, per_layer = word_layer_vectors(model, texts, word, choice.subwords)
    return occurrences, combine_layers(per_layer, choice.layers)


def _word_choice(layers: VectorChoice | Layers, subwords: str | None) -> VectorChoice:
    if isinstance(layers, VectorChoice):
        if subwords is not None:
            raise ValueError(
                f"Give a VectorChoice or a layer choice with subwords, not both: "
                f"{layers!r} with subwords={subwords!r}."
            )
        return layers
    return VectorChoice(layers=layers, subwords="mean" if subwords is None else subwords)


def occurrence_points(
    occurrences: Sequence[Occurrence],
    texts: Sequence[str],
    labels: Sequence[str] | None = None,
) -> tuple[list[str], list[tuple[int, int]], list[str]]:
    """One map point per occurrence of a word in ``texts``: ``(texts, spans, labels)``, each a
    list as long as ``occurrences``. A point's text is its sentence, its span the word's
    characters in it, and its label the sentence's label in ``labels`` (one per text), or
    ``"Sentence i"`` (1-based) when ``labels`` is None."""
    point_texts = [texts[o.text_index] for o in occurrences]
    spans = [(o.char_start, o.char_end) for o in occurrences]
    if labels is None:
        point_labels = [f"Sentence {o.text_index + 1}" for o in occurrences]
    else:
        point_labels = [labels[o.text_index] for o in occurrences]
    return point_texts, spans, point_labels
