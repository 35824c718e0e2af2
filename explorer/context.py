"""Word in context: how similar are the vectors of one word in different sentences?

The "Word in context" page compares every occurrence of a word (the three "bank"s of the
tutorial sentence, a river bank and a savings bank, ...) by cosine similarity, under each
layer choice and layer by layer. Two things make raw cosines hard to read, and this module
offers a remedy for each:

* **Anisotropy.** Contextual vectors share a large common direction, so even two unrelated
  tokens have a high cosine (Ethayarajh, 2019). :func:`anisotropy_baseline` measures it: the
  mean cosine of random token pairs of the same sentences, layer by layer.
* **Mean-centring.** Subtracting, per layer, the mean token vector of the given sentences
  (:func:`layer_means`) removes that common direction; what is left is far more telling.
  Under a layer choice the per-layer means are combined the *same* way, which is the same
  as centring each layer first because every layer choice is linear (select, sum, mean or
  concatenate layers): ``combine(v) - combine(m) == combine(v - m)``.

Plain Python and NumPy; no Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from explorer import corpora
from explorer.layers import (
    LAYER_STRATEGIES,
    Layers,
    combine_layers,
    layer_choices,
    layers_label,
    validate_layers,
)
from explorer.markup import escape_markdown
from explorer.model import Model
from explorer.similarity import cosine_similarity
from explorer.uploads import texts_from_lines
from explorer.words import Occurrence

MAX_SENTENCES = 100
"""Most sentences the page compares at once (one per line)."""

BASELINE_PAIRS = 2000
"""Random token pairs the anisotropy baseline averages over when there are more pairs."""

DEFAULT_SENTENCES = (
    "After stealing money from the bank vault, the bank robber was seen fishing on the "
    "Mississippi river bank.",
    "The man was accused of robbing a bank.",
    "The man went fishing by the bank of the river.",
)
DEFAULT_WORD = "bank"


def parse_sentences(text: str | None) -> list[str]:
    """One sentence per non-blank line of ``text``, stripped, at most :data:`MAX_SENTENCES`.

    :func:`explorer.uploads.texts_from_lines` with this page's limit; ``ValueError`` when
    there is no sentence or too many.
    """
    return texts_from_lines(text, MAX_SENTENCES)


def sense_examples(word: str, per_sense: int = 3) -> list[str]:
    """The first ``per_sense`` built-in sentences of every sense of ``word``, sense by sense.

    ``word`` is one of :data:`explorer.corpora.SENSE_WORDS` (``ValueError`` otherwise).
    """
    if per_sense < 1:
        raise ValueError(f"per_sense must be at least 1, not {per_sense}.")
    senses = corpora.load_senses(word)
    return senses.groupby("sense", sort=False).head(per_sense)["text"].tolist()


valid_strategies = layer_choices
"""Old name of :func:`explorer.layers.layer_choices`."""


# -- labels -----------------------------------------------------------------------------


def context_window(
    text: str, char_start: int, char_end: int, words: int = 3, ellipsis: str = "…"
) -> str:
    """``text[char_start:char_end]`` with up to ``words`` words either side.

    ``ellipsis`` marks where the text was cut (pass ``""`` for none).
    """
    before = text[:char_start].split()
    after = text[char_end:].split()
    left = " ".join(before[-words:]) if words else ""
    right = " ".join(after[:words]) if words else ""
    # Keep "bank vault," together when the word is glued to punctuation ("bank," or "(bank").
    glue_left = char_start > 0 and not text[char_start - 1].isspace()
    glue_right = char_end < len(text) and not text[char_end].isspace()
    middle = text[char_start:char_end]
    parts = (ellipsis if len(before) > words else "") + left
    parts += ("" if glue_left or not left else " ") + middle
    parts += ("" if glue_right or not right else " ") + right
    return parts + (ellipsis if len(after) > words else "")


def occurrence_labels(
    occurrences: Sequence[Occurrence], texts: Sequence[str], words: int = 3
) -> list[str]:
    """One label per occurrence: ``"#1 bank (s1: …from the bank vault, the…)"``."""
    return [
        f"#{i + 1} {o.surface} (s{o.text_index + 1}: "
        f"{context_window(texts[o.text_index], o.char_start, o.char_end, words)})"
        for i, o in enumerate(occurrences)
    ]


def short_labels(occurrences: Sequence[Occurrence], texts: Sequence[str]) -> list[str]:
    """Compact axis labels: ``"#1 the bank vault,"`` (one word either side)."""
    return [
        f"#{i + 1} {context_window(texts[o.text_index], o.char_start, o.char_end, 1, '')}"
        for i, o in enumerate(occurrences)
    ]


def pair_indices(n: int) -> list[tuple[int, int]]:
    """Every pair ``(i, j)`` with ``i < j`` of ``n`` items, row by row: ``n(n-1)/2`` pairs."""
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def pair_labels(n: int) -> list[str]:
    """``"#1 vs #2"``, ``"#1 vs #3"``, ... in the order of :func:`pair_indices`."""
    return [f"#{i + 1} vs #{j + 1}" for i, j in pair_indices(n)]


MAX_OCCURRENCES = 12
"""Most occurrences the page compares: n occurrences make n(n-1)/2 pairs (66 for 12)."""


def cap_occurrences(occurrences: list, per_layer: np.ndarray, limit: int = MAX_OCCURRENCES):
    """The first ``limit`` occurrences and their ``(layers + 1, limit, hidden)`` vectors."""
    return occurrences[:limit], per_layer[:, :limit]


def pair_members(labels: Sequence[str]) -> list[tuple[str, str]]:
    """``(labels[i], labels[j])`` for every pair, in the order of :func:`pair_indices`."""
    return [(labels[i], labels[j]) for i, j in pair_indices(len(labels))]


def highlight_html(text: str, char_start: int, char_end: int) -> str:
    """``text`` for ``st.markdown(..., unsafe_allow_html=True)``, the word in ``<mark>``.

    Every part of the user's text goes through :func:`escape_markdown`; only the ``<mark>``
    tags are HTML.
    """
    return (
        escape_markdown(text[:char_start])
        + "<mark><b>"
        + escape_markdown(text[char_start:char_end])
        + "</b></mark>"
        + escape_markdown(text[char_end:])
    )


# -- token vectors and the baseline -------------------------------------------------------


def content_token_states(model: Model, texts: Sequence[str]) -> np.ndarray:
    """Hidden states of every non-special token of ``texts``, all layers, one batched pass.

    Returns ``(num_layers + 1, n_tokens, hidden)`` float32, the tokens of all texts one after
    the other ([CLS], [SEP] and other special tokens left out).
    """
    texts = list(texts)
    if not texts:
        raise ValueError("No texts given: pass at least one sentence.")
    states = model.hidden_states_batch(texts)
    kept = []
    for text, stack in zip(texts, states, strict=True):
        special = np.asarray(model.tokenize(text).special, dtype=bool)
        kept.append(stack[:, ~special])
    return np.concatenate(kept, axis=1).astype(np.float32, copy=False)


def layer_means(token_states: np.ndarray) -> np.ndarray:
    """Mean token vector of every layer: ``(L+1, n_tokens, H)`` in, ``(L+1, H)`` float32 out."""
    token_states = np.asarray(token_states, dtype=np.float32)
    if token_states.ndim != 3 or token_states.shape[1] == 0:
        raise ValueError(
            f"Expected token states of shape (layers + 1, tokens, hidden) with at least one "
            f"token, got {token_states.shape}."
        )
    return token_states.mean(axis=1)


def _centred(per_layer: np.ndarray, center: np.ndarray | None) -> np.ndarray:
    per_layer = np.asarray(per_layer, dtype=np.float32)
    if per_layer.ndim != 3:
        raise ValueError(
            f"Expected vectors of shape (layers + 1, n, hidden), got {per_layer.shape}."
        )
    if center is None:
        return per_layer
    center = np.asarray(center, dtype=np.float32)
    if center.shape != (per_layer.shape[0], per_layer.shape[2]):
        raise ValueError(
            f"The centre must have shape (layers + 1, hidden) = "
            f"{(per_layer.shape[0], per_layer.shape[2])}, got {center.shape}."
        )
    return per_layer - center[:, None, :]


def baseline_pair_count(n_tokens: int, max_pairs: int = BASELINE_PAIRS) -> int:
    """How many token pairs :func:`anisotropy_baseline` averages over for ``n_tokens`` tokens."""
    return min(max_pairs, n_tokens * (n_tokens - 1) // 2)


def describe_baseline_pairs(n_tokens: int, max_pairs: int = BASELINE_PAIRS) -> str:
    """``"all 820 pairs"`` or ``"2,000 random pairs"``: what the baseline averages over."""
    count = baseline_pair_count(n_tokens, max_pairs)
    sampled = n_tokens * (n_tokens - 1) // 2 > max_pairs
    return f"{count:,} random pairs" if sampled else f"all {count:,} pairs"


def sample_pairs(n: int, max_pairs: int = BASELINE_PAIRS, seed: int = 0) -> np.ndarray:
    """Pairs of distinct items of ``n``: all ``n(n-1)/2`` if that is at most ``max_pairs``,
    else ``max_pairs`` random pairs from ``np.random.default_rng(seed)``. ``(n_pairs, 2)``.
    """
    if n < 2:
        raise ValueError(f"Need at least 2 tokens to pair up, got {n}.")
    if n * (n - 1) // 2 <= max_pairs:
        return np.array(pair_indices(n), dtype=np.int64).reshape(-1, 2)
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, size=max_pairs)
    second = (first + rng.integers(1, n, size=max_pairs)) % n  # never equal to `first`
    return np.stack([first, second], axis=1)


def anisotropy_baseline(
    token_states: np.ndarray | Sequence[np.ndarray],
    center: np.ndarray | None = None,
    max_pairs: int = BASELINE_PAIRS,
    seed: int = 0,
) -> np.ndarray:
    """Mean cosine similarity of random token pairs at every layer: the anisotropy baseline.

    ``token_states`` is ``(L+1, n_tokens, H)`` (as from :func:`content_token_states`) or a
    list of per-sentence ``(L+1, T_i, H)`` arrays, which are joined. Pairs are of two
    different tokens (all pairs when there are at most ``max_pairs``, otherwise that many
    drawn with a fixed ``seed``; the same pairs at every layer). ``center`` ``(L+1, H)`` is
    subtracted first. Returns ``(L+1,)`` float64, each value in [-1, 1].
    """
    if not isinstance(token_states, np.ndarray):
        token_states = np.concatenate([np.asarray(s) for s in token_states], axis=1)
    states = _centred(token_states, center)
    pairs = sample_pairs(states.shape[1], max_pairs, seed)
    norms = np.maximum(np.linalg.norm(states.astype(np.float64), axis=-1), 1e-12)
    unit = states / norms[..., None]
    cosines = np.einsum("lph,lph->lp", unit[:, pairs[:, 0]], unit[:, pairs[:, 1]])
    return np.clip(cosines.mean(axis=1), -1.0, 1.0)


# -- similarities of the occurrences ----------------------------------------------------


def similarity_matrix(
    per_layer: np.ndarray, layers: Layers, center: np.ndarray | None = None
) -> np.ndarray:
    """Cosine similarity of every occurrence with every other under one layer choice.

    ``per_layer`` ``(L+1, n, H)`` (from :func:`explorer.word_layer_vectors`); ``center``
    ``(L+1, H)`` per-layer means or ``None``. Centring subtracts the means before the layers
    are combined, which equals combining the means the same way and subtracting that.
    Returns ``(n, n)`` float32.
    """
    validate_layers(layers, np.shape(per_layer)[0] - 1)
    vectors = combine_layers(_centred(per_layer, center), layers)
    return np.atleast_2d(cosine_similarity(vectors))


def pair_similarities(per_layer: np.ndarray, center: np.ndarray | None = None) -> np.ndarray:
    """Cosine similarity of each pair of occurrences at each layer separately.

    ``per_layer`` ``(L+1, n, H)``, ``center`` ``(L+1, H)`` or ``None``. Returns
    ``(L+1, n(n-1)/2)`` float32, pairs in the order of :func:`pair_indices`.
    """
    vectors = _centred(per_layer, center)
    pairs = np.array(pair_indices(vectors.shape[1]), dtype=np.int64).reshape(-1, 2)
    rows, cols = pairs[:, 0], pairs[:, 1]
    return np.stack([cosine_similarity(layer)[rows, cols] for layer in vectors]).astype(np.float32)


def layers_table(
    per_layer: np.ndarray,
    choices: Sequence[Layers] = LAYER_STRATEGIES,
    center: np.ndarray | None = None,
) -> pd.DataFrame:
    """Cosine similarity of every pair under every layer choice, side by side.

    Rows are pairs (index ``"#1 vs #2"``, ... named "Pair"), columns the choices' labels
    (:func:`explorer.layers.layers_label`); values float32.
    """
    n = np.shape(per_layer)[1]
    pairs = np.array(pair_indices(n), dtype=np.int64).reshape(-1, 2)
    columns = {}
    for layers in choices:
        matrix = similarity_matrix(per_layer, layers, center)
        columns[layers_label(layers)] = matrix[pairs[:, 0], pairs[:, 1]]
    return pd.DataFrame(columns, index=pd.Index(pair_labels(n), name="Pair"))


strategy_table = layers_table
"""Old name of :func:`layers_table`."""
