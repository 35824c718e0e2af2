"""The classic measurements, reproduced on the model in use.

Ethayarajh (2019), "How Contextual are Contextualized Word Representations?", layer by layer:

* **self-similarity** of a word: the mean cosine between its vectors in different sentences;
* **intra-sentence similarity** of a sentence: the mean cosine between each of its tokens
  (all but the special ones, punctuation and subwords included) and the sentence's mean
  token vector;
* **maximum explainable variance** (MEV) of a word: ``sigma_1^2 / sum_i sigma_i^2`` over the
  singular values of its occurrence matrix (uncentred, as in the paper): how much of its
  vectors one static vector could explain.

Each is adjusted for anisotropy as the paper does, by subtracting a baseline of the same
layer: for the two similarities, the mean cosine between random tokens of different
sentences; for MEV, the MEV of as many random tokens as the word has occurrences.

Coenen et al. (2019), "Visualizing and Measuring the Geometry of BERT": word senses by
nearest centroid, layer by layer (:func:`sense_accuracy`).

Words here are tokens: a word the tokenizer keeps whole (no subword split), compared by its
normalised text; one occurrence per sentence. The built-in sentences are the sense sentences
of :mod:`explorer.data.corpora` (written for this project).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from explorer.context.baseline import BASELINE_PAIRS, sample_pairs
from explorer.data import corpora
from explorer.explain._isoscore import isoscore
from explorer.model import Model
from explorer.subwords import aggregate_subwords
from explorer.words import Occurrence, find_occurrences, word_layer_vectors


@dataclass(frozen=True)
class Reference:
    """What a paper reports for BERT-base, to put beside the model in use: a ``finding`` in
    words, its ``source`` (paper and place), and a ``value`` only where the paper states one
    (``bound`` says how to read it: ``"below"`` = the paper's figures are all below it)."""

    finding: str
    source: str
    value: float | None = None
    bound: str | None = None


REFERENCES = {
    "anisotropy": Reference(
        "Contextual representations are anisotropic in every layer: two random words' vectors "
        "have a clearly positive mean cosine.",
        "Ethayarajh (2019), abstract",
    ),
    "self_similarity": Reference(
        "A word's vectors in different contexts are more alike than two different words' "
        "vectors, but much less alike in the upper layers: upper layers are more "
        "context-specific.",
        "Ethayarajh (2019), abstract",
    ),
    "mev": Reference(
        "In every layer of BERT (and ELMo, GPT-2), on average less than 5% of the variance "
        "of a word's contextual vectors is explained by one static vector for it (their "
        "first principal component).",
        "Ethayarajh (2019), abstract",
        value=0.05,
        bound="below",
    ),
    "sense": Reference(
        "BERT-base's vectors of an ambiguous word fall into regions by sense, finely enough "
        "that a nearest-neighbour classifier on them was competitive with the word-sense "
        "disambiguation methods of the time.",
        "Coenen et al. (2019), the word-sense section",
    ),
}
"""The papers' findings on BERT-base, in words (numbers only where the source states one)."""

MIN_CONTEXTS = 5
"""A word counts when it occurs in at least this many sentences (the paper's threshold)."""

MAX_CONTEXTS = 30
"""Occurrences kept per word (the first ones): frequent words ("the") would dominate."""

Progress = Callable[[int, int], None]
"""``progress(sentences_done, total)``, called as the model reads the sentences."""


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-12)


def self_similarity(occurrences: np.ndarray) -> np.ndarray:
    """Mean cosine between the ``n`` occurrences of one word, distinct pairs only:
    ``(L+1, n, H)`` -> ``(L+1,)`` float64. ``ValueError`` for fewer than 2 occurrences."""
    occurrences = np.asarray(occurrences, dtype=np.float64)
    n = occurrences.shape[1]
    if n < 2:
        raise ValueError("Self-similarity needs a word in at least 2 sentences.")
    unit = _unit(occurrences)
    sums = unit.sum(axis=1)
    # sum over i != j of u_i . u_j = |sum u|^2 - sum |u_i|^2
    off = (sums**2).sum(axis=1) - (unit**2).sum(axis=(1, 2))
    return off / (n * (n - 1))


def intra_sentence_similarity(tokens: np.ndarray) -> np.ndarray:
    """Mean cosine between each token of a sentence and the sentence's mean token vector:
    ``(L+1, T, H)`` -> ``(L+1,)`` float64."""
    tokens = np.asarray(tokens, dtype=np.float64)
    mean = _unit(tokens.mean(axis=1))
    return np.einsum("lth,lh->lt", _unit(tokens), mean).mean(axis=1)


def max_explainable_variance(occurrences: np.ndarray) -> np.ndarray:
    """``sigma_1^2 / sum_i sigma_i^2`` of each layer's ``(n, H)`` occurrence matrix (not
    centred): ``(L+1, n, H)`` -> ``(L+1,)`` float64 in (0, 1]."""
    occurrences = np.asarray(occurrences, dtype=np.float64)
    values = np.linalg.svd(occurrences, compute_uv=False) ** 2  # (L+1, min(n, H))
    return values[:, 0] / np.maximum(values.sum(axis=1), 1e-300)


def _word_tokens(model: Model, sentences: Sequence[str]) -> dict[str, list[tuple[int, int]]]:
    """Normalised word -> ``(sentence, token)`` of its first whole-token occurrence in each
    sentence, for alphabetic words that the tokenizer does not split."""
    found: dict[str, list[tuple[int, int]]] = {}
    for s, sentence in enumerate(sentences):
        tokenization = model.tokenize(sentence)
        seen = set()
        for start, end, a, b in tokenization.words():
            word = model.normalize(tokenization.text[a:b])
            if end - start == 1 and word.isalpha() and word not in seen:
                seen.add(word)
                found.setdefault(word, []).append((s, start))
    return found


def classic_measures(
    model: Model,
    sentences: Sequence[str] | None = None,
    *,
    min_contexts: int = MIN_CONTEXTS,
    max_contexts: int = MAX_CONTEXTS,
    max_pairs: int = BASELINE_PAIRS,
    seed: int = 0,
    progress: Progress | None = None,
    states: Sequence[np.ndarray] | None = None,
) -> pd.DataFrame:
    """Ethayarajh (2019)'s three measurements on ``sentences`` (default: the built-in sense
    sentences), every layer.

    Returns a table indexed by layer (0 = embedding output) with columns
    ``self_similarity``, ``intra_sentence_similarity``, ``mev`` (means over words or
    sentences), ``baseline_cosine`` (random tokens of different sentences), ``baseline_mev``
    and the anisotropy-adjusted ``*_adjusted`` columns (measure minus its baseline), and
    ``isoscore``: :func:`explorer.isoscore` of all the sentences' tokens (Rudman et al. 2022),
    how evenly they use the layer's dimensions, beside the average cosine's anisotropy.
    ``attrs``: ``words`` (the words measured), ``sentences``, ``pairs`` (baseline pairs),
    ``tokens`` and ``dimensions`` (of the clouds IsoScore measures) and ``special_tokens``
    (those left out of them, as the model writes them: ``("[CLS]", "[SEP]")``).
    ``progress(sentences_done, total)`` is called after each batch of the forward pass.
    ``states``: the sentences' hidden states when another measure already read them (one
    ``(L+1, tokens, H)`` array each, as :meth:`explorer.model.Model.hidden_states_batch`
    gives); then no forward pass runs. ``ValueError`` when no word occurs in
    ``min_contexts`` sentences.
    """
    sentences = list(corpora.load_senses()["text"] if sentences is None else sentences)
    if states is None:
        states = model.hidden_states_batch(sentences, progress=progress)
    elif len(states) != len(sentences):
        raise ValueError(f"Got {len(sentences)} sentences but hidden states for {len(states)}.")
    return _measures(model, sentences, states, min_contexts, max_contexts, max_pairs, seed)


def _measures(
    model: Model,
    sentences: Sequence[str],
    states: Sequence[np.ndarray],
    min_contexts: int = MIN_CONTEXTS,
    max_contexts: int = MAX_CONTEXTS,
    max_pairs: int = BASELINE_PAIRS,
    seed: int = 0,
) -> pd.DataFrame:
    """:func:`classic_measures` of ``sentences`` from their hidden ``states`` (one ``(L+1,
    tokens, H)`` array each, as :meth:`explorer.model.Model.hidden_states_batch` gives)."""
    words = {
        word: places[:max_contexts]
        for word, places in _word_tokens(model, sentences).items()
        if len(places) >= min_contexts
    }
    if not words:
        raise ValueError(
            f"No word occurs in {min_contexts} or more of the {len(sentences)} sentences: "
            "give more sentences that share words."
        )
    tokenized = [model.tokenize(s) for s in sentences]
    specials = [np.asarray(t.special, dtype=bool) for t in tokenized]
    content = [stack[:, ~special] for stack, special in zip(states, specials, strict=True)]
    pooled = np.concatenate(content, axis=1)  # (L+1, all tokens, H)
    owner = np.concatenate([np.full(c.shape[1], i) for i, c in enumerate(content)])

    rng = np.random.default_rng(seed)
    self_sim, mev, baseline_mev = [], [], []
    for places in words.values():
        occurrences = np.stack([states[s][:, t] for s, t in places], axis=1)
        self_sim.append(self_similarity(occurrences))
        mev.append(max_explainable_variance(occurrences))
        random_tokens = pooled[:, rng.choice(pooled.shape[1], len(places), replace=False)]
        baseline_mev.append(max_explainable_variance(random_tokens))
    intra = [intra_sentence_similarity(c) for c in content if c.shape[1] >= 2]

    pairs = sample_pairs(pooled.shape[1], max_pairs, seed)
    pairs = pairs[owner[pairs[:, 0]] != owner[pairs[:, 1]]]
    # One layer at a time: every layer's pairs at once in float64 were 2 x 25 x 2,000 x 1,024
    # x 8 bytes = 0.8 GB for BERT-large, and took a one-visitor server past its 3 GB.
    baseline_cosine = np.empty((pooled.shape[0], len(pairs)))
    for layer, vectors in enumerate(pooled):
        unit = _unit(vectors.astype(np.float64))
        baseline_cosine[layer] = np.einsum("ph,ph->p", unit[pairs[:, 0]], unit[pairs[:, 1]])

    table = pd.DataFrame(
        {
            "self_similarity": np.mean(self_sim, axis=0),
            "intra_sentence_similarity": np.mean(intra, axis=0),
            "mev": np.mean(mev, axis=0),
            "baseline_cosine": baseline_cosine.mean(axis=1),
            "baseline_mev": np.mean(baseline_mev, axis=0),
            "isoscore": [isoscore(vectors) for vectors in pooled],
        },
        index=pd.RangeIndex(model.num_layers + 1, name="layer"),
    )
    table["self_similarity_adjusted"] = table["self_similarity"] - table["baseline_cosine"]
    table["intra_sentence_similarity_adjusted"] = (
        table["intra_sentence_similarity"] - table["baseline_cosine"]
    )
    table["mev_adjusted"] = table["mev"] - table["baseline_mev"]
    table.attrs.update(
        words=tuple(words),
        sentences=len(sentences),
        pairs=len(pairs),
        tokens=pooled.shape[1],
        dimensions=pooled.shape[2],
        special_tokens=tuple(dict.fromkeys(n for t in tokenized for n in t.special_tokens)),
    )
    return table


def nearest_centroid_accuracy(vectors: np.ndarray, labels: Sequence[str]) -> np.ndarray:
    """Leave-one-out nearest-centroid accuracy at every layer: ``vectors`` ``(L+1, n, H)``,
    ``labels`` ``(n,)``. Each occurrence is compared (by cosine) with the centroid of every
    label computed without it, and counts as right when its own label's centroid is the
    closest. Returns ``(L+1,)`` float64. A label with one occurrence has no centroid without
    it: that occurrence counts as wrong. ``ValueError`` for fewer than 2 labels."""
    vectors = np.asarray(vectors, dtype=np.float64)
    cells = np.empty(len(labels), dtype=object)  # never a fixed-width string array
    cells[:] = [str(label) for label in labels]
    index, names = pd.factorize(cells)
    if len(names) < 2:
        raise ValueError("Nearest-centroid accuracy needs at least 2 senses.")
    onehot = np.eye(len(names))[index]  # (n, k)
    counts = onehot.sum(axis=0)[None, :] - onehot  # (n, k): sizes without the occurrence
    result = np.empty(vectors.shape[0])
    for layer, x in enumerate(vectors):
        sums = onehot.T @ x  # (k, H)
        without = sums[None, :, :] - onehot[:, :, None] * x[:, None, :]  # (n, k, H)
        centroids = without / np.maximum(counts, 1)[:, :, None]
        cosines = np.einsum("nkh,nh->nk", _unit(centroids), _unit(x))
        cosines[counts == 0] = -np.inf
        result[layer] = np.mean(cosines.argmax(axis=1) == index)
    return result


def sense_accuracy(
    model: Model,
    words: Sequence[str] | None = None,
    subwords: str = "mean",
    *,
    frame: pd.DataFrame | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Coenen et al. (2019)'s nearest-centroid word-sense test, every layer.

    ``frame`` holds the labelled sentences (columns ``word``, ``sense``, ``text``; default:
    the built-in ones, :func:`explorer.data.corpora.load_senses`). For each word of ``words``
    (default: the frame's words, in order), its vectors in its sentences
    (:func:`explorer.word_layer_vectors`, subwords combined with ``subwords``) are classified
    by :func:`nearest_centroid_accuracy`. Returns a table indexed by layer with one column per
    word, ``accuracy`` (over all occurrences) and ``chance`` (the mean of 1 / number of
    senses of each occurrence's word). ``progress(sentences_done, total)`` is called after
    each word.
    """
    frame = corpora.load_senses() if frame is None else frame

    def vectors_of(word: str, own: pd.DataFrame) -> tuple[list[Occurrence], np.ndarray]:
        return word_layer_vectors(model, own["text"].tolist(), word, subwords)

    return _senses(model, frame, words, vectors_of, progress)


def _senses(
    model: Model,
    frame: pd.DataFrame,
    words: Sequence[str] | None,
    vectors_of: Callable[[str, pd.DataFrame], tuple[list[Occurrence], np.ndarray]],
    progress: Progress | None = None,
) -> pd.DataFrame:
    """:func:`sense_accuracy`, each word's occurrences and vectors ``(L+1, n, H)`` in its rows
    of ``frame`` given by ``vectors_of(word, rows)``."""
    words = list(dict.fromkeys(frame["word"]) if words is None else words)
    if not words:
        raise ValueError("No sense words given.")
    keys = frame["word"].str.strip().str.lower()
    rows = {word: frame[keys == word.strip().lower()] for word in words}
    missing = [word for word, own in rows.items() if own.empty]
    if missing:
        raise ValueError(
            f"No sentences for {', '.join(map(repr, missing))}; the words with sentences are: "
            f"{', '.join(dict.fromkeys(keys))}."
        )
    total, done = sum(len(own) for own in rows.values()), 0
    columns, weights, chance = {}, [], []
    for word, own in rows.items():
        occurrences, vectors = vectors_of(word, own)
        labels = [own["sense"].iloc[o.text_index] for o in occurrences]
        columns[word] = nearest_centroid_accuracy(vectors, labels)
        weights.append(len(labels))
        chance += [1 / len(set(labels))] * len(labels)
        done += len(own)
        if progress is not None:
            progress(done, total)
    table = pd.DataFrame(columns, index=pd.RangeIndex(model.num_layers + 1, name="layer"))
    table["accuracy"] = np.average(table[words].to_numpy(), axis=1, weights=weights)
    table["chance"] = float(np.mean(chance))
    table.attrs.update(occurrences=int(sum(weights)))
    return table


def classic_lesson(
    model: Model, frame: pd.DataFrame | None = None, progress: Progress | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(classic_measures, sense_accuracy)`` of the labelled sentences ``frame`` (columns
    ``word``, ``sense``, ``text``; default the built-in ones), each sentence read once: the
    two papers' measurements share one forward pass (they had read every sentence twice:
    21 s for How contextual? with BERT-base). Equal to calling the two functions.
    ``progress(sentences_done, total)`` follows the forward pass."""
    frame = (corpora.load_senses() if frame is None else frame).reset_index(drop=True)
    sentences = frame["text"].tolist()
    states = model.hidden_states_batch(sentences, progress=progress)
    measures = _measures(model, sentences, states)

    def vectors_of(word: str, own: pd.DataFrame) -> tuple[list[Occurrence], np.ndarray]:
        occurrences = find_occurrences(model, own["text"].tolist(), word)
        if not occurrences:
            raise ValueError(f"{word.strip()!r} does not occur in its sentences.")
        vectors = np.stack(
            [
                aggregate_subwords(
                    states[own.index[o.text_index]][:, o.token_start : o.token_end], "mean"
                )
                for o in occurrences
            ],
            axis=1,
        )
        return occurrences, vectors

    return measures, _senses(model, frame, None, vectors_of)


def word_measures(vectors: np.ndarray, labels: Sequence[str]) -> pd.DataFrame:
    """One word's measurements before any anisotropy adjustment, from its vectors ``(L+1, n,
    H)`` in ``n`` sentences whose senses are ``labels``: a table indexed by layer with
    ``self_similarity``, ``mev`` and ``sense_accuracy`` (leave-one-out nearest centroid), what
    :func:`explorer.codegen.explain.classic_snippet` prints."""
    return pd.DataFrame(
        {
            "self_similarity": self_similarity(vectors),
            "mev": max_explainable_variance(vectors),
            "sense_accuracy": nearest_centroid_accuracy(vectors, labels),
        },
        index=pd.RangeIndex(np.shape(vectors)[0], name="layer"),
    )
