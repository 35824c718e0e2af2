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

DEFAULT_WORD = "bank"
DEFAULT_SENSES = ("finance",) * 3 + ("river",) * 3
"""The sense of each default sentence, as in :mod:`explorer.corpora`'s ``senses.csv``."""
DEFAULT_SENTENCES = (
    "She paid her first pay cheque into the bank on Monday morning.",
    "The bank approved their mortgage after weeks of paperwork.",
    "My grandfather never trusted a bank and kept his savings in a biscuit tin.",
    "We spread a blanket on the grassy bank and watched the ducks drift by.",
    "The canoe scraped against the muddy bank as we pulled it ashore.",
    "After days of heavy rain, the river burst its bank near the old mill.",
)
"""The default: one "bank" per sentence, the first three of each sense in ``senses.csv``."""

TUTORIAL_SENTENCES = (
    "After stealing money from the bank vault, the bank robber was seen fishing on the "
    "Mississippi river bank.",
    "The man was accused of robbing a bank.",
    "The man went fishing by the bank of the river.",
)
"""The tutorial's three sentences (three "bank"s in the first): same-sentence pairs."""

SENSE_SEPARATORS = ("\t", "|")
"""What separates an optional sense from its sentence on a line: ``finance | The bank ...``."""

MAX_SENSE_LENGTH = 40
"""A longer text before the separator is part of the sentence, not a sense."""

SMALL_GAP = 0.05
"""A same-sense minus different-sense gap below this is called small."""

PAIR_KINDS = ("same sense", "different senses", "same sentence", "unlabelled")
"""What :func:`pair_kinds` calls a pair of occurrences."""


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


def split_sense(line: str) -> tuple[str | None, str]:
    """``"finance | The bank ..."`` -> ``("finance", "The bank ...")``; a line without a
    sense (no separator, nothing before it, or more than :data:`MAX_SENSE_LENGTH` characters
    before it) -> ``(None, line)``. A tab or the first ``|`` separates."""
    for separator in SENSE_SEPARATORS:
        sense, found, sentence = line.partition(separator)
        if found and sense.strip() and sentence.strip() and len(sense) <= MAX_SENSE_LENGTH:
            return sense.strip(), sentence.strip()
    return None, line.strip()


def parse_labelled_sentences(text: str | None) -> tuple[list[str], list[str | None]]:
    """Sentences and their senses from lines ``"sense | sentence"`` or plain ``"sentence"``.

    One sentence per non-blank line (:func:`parse_sentences`, same limits); a line may start
    with its sense and a ``|`` or a tab (:func:`split_sense`). Returns ``(sentences, senses)``
    of equal length, ``None`` for a line without a sense.
    """
    split = [split_sense(line) for line in parse_sentences(text)]
    return [sentence for _, sentence in split], [sense for sense, _ in split]


def labelled_lines(sentences: Sequence[str], senses: Sequence[str | None]) -> str:
    """The text box's content for ``sentences``: ``"sense | sentence"`` lines (plain lines
    where the sense is ``None``); the inverse of :func:`parse_labelled_sentences`."""
    if len(sentences) != len(senses):
        raise ValueError(f"Got {len(senses)} senses for {len(sentences)} sentences.")
    return "\n".join(
        sentence if sense is None else f"{sense} | {sentence}"
        for sentence, sense in zip(sentences, senses, strict=True)
    )


DEFAULT_TEXT = labelled_lines(DEFAULT_SENTENCES, DEFAULT_SENSES)
"""The page's default text box: the default sentences with their senses."""


def labelled_examples(word: str, per_sense: int = 3) -> str:
    """:func:`sense_examples` of ``word`` as ``"sense | sentence"`` lines, sense by sense."""
    if per_sense < 1:
        raise ValueError(f"per_sense must be at least 1, not {per_sense}.")
    senses = corpora.load_senses(word).groupby("sense", sort=False).head(per_sense)
    return labelled_lines(senses["text"].tolist(), senses["sense"].tolist())


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


def _sense(senses: Sequence[str | None] | None, occurrence: Occurrence) -> str | None:
    return None if senses is None else senses[occurrence.text_index]


def occurrence_labels(
    occurrences: Sequence[Occurrence],
    texts: Sequence[str],
    words: int = 3,
    senses: Sequence[str | None] | None = None,
) -> list[str]:
    """One label per occurrence: ``"#1 bank (s1: …from the bank vault, the…)"``, or with
    ``senses`` (one per text, ``None`` for none) ``"#1 bank (finance) (s1: …)"``."""
    labels = []
    for i, o in enumerate(occurrences):
        sense = _sense(senses, o)
        name = o.surface if sense is None else f"{o.surface} ({sense})"
        window = context_window(texts[o.text_index], o.char_start, o.char_end, words)
        labels.append(f"#{i + 1} {name} (s{o.text_index + 1}: {window})")
    return labels


def short_labels(
    occurrences: Sequence[Occurrence],
    texts: Sequence[str],
    senses: Sequence[str | None] | None = None,
) -> list[str]:
    """Compact axis labels: ``"#1 the bank vault,"`` (one word either side), or
    ``"#1 bank (finance)"`` for an occurrence whose text has a sense in ``senses``."""
    labels = []
    for i, o in enumerate(occurrences):
        sense = _sense(senses, o)
        if sense is None:
            text = context_window(texts[o.text_index], o.char_start, o.char_end, 1, "")
        else:
            text = f"{o.surface} ({sense})"
        labels.append(f"#{i + 1} {text}")
    return labels


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


# -- senses: the gap between same-sense and different-sense pairs --------------------------


def pair_kinds(
    occurrences: Sequence[Occurrence], senses: Sequence[str | None] | None = None
) -> list[str]:
    """What each pair of occurrences is, in the order of :func:`pair_indices`: ``"same
    sentence"`` (both in one text, whatever the senses), else ``"same sense"`` or
    ``"different senses"`` by the ``senses`` of their texts, else ``"unlabelled"``."""
    kinds = []
    for i, j in pair_indices(len(occurrences)):
        first, second = occurrences[i], occurrences[j]
        a, b = _sense(senses, first), _sense(senses, second)
        if first.text_index == second.text_index:
            kinds.append("same sentence")
        elif a is None or b is None:
            kinds.append("unlabelled")
        else:
            kinds.append("same sense" if a.casefold() == b.casefold() else "different senses")
    return kinds


def sense_gap(similarities: np.ndarray, kinds: Sequence[str]) -> pd.DataFrame:
    """Mean similarity of same-sense and of different-sense pairs at every layer, and the gap.

    ``similarities`` ``(L+1, n_pairs)`` from :func:`pair_similarities`; ``kinds`` from
    :func:`pair_kinds`. Pairs from the same sentence and unlabelled pairs are left out.
    Returns a table indexed by layer (0..L) with columns ``"same sense"``, ``"different
    senses"`` and ``"gap"`` (their difference), float64. ``ValueError`` when there is no
    pair of one of the two kinds.
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    kinds = np.asarray(kinds, dtype=object)
    if similarities.ndim != 2 or similarities.shape[1] != len(kinds):
        raise ValueError(
            f"Similarities of shape {similarities.shape} do not match {len(kinds)} pairs."
        )
    same, different = kinds == "same sense", kinds == "different senses"
    if not same.any() or not different.any():
        raise ValueError(
            "Comparing senses needs two sentences of the same sense and two of different "
            "senses: start lines with their sense, like 'river | We sat on the bank.'"
        )
    table = pd.DataFrame(
        {
            "same sense": similarities[:, same].mean(axis=1),
            "different senses": similarities[:, different].mean(axis=1),
        },
        index=pd.RangeIndex(similarities.shape[0], name="layer"),
    )
    table["gap"] = table["same sense"] - table["different senses"]
    return table


def what_to_notice(
    word: str,
    similarities: np.ndarray,
    kinds: Sequence[str],
    pairs: Sequence[str] | None = None,
) -> str:
    """The page's opening sentence, from the numbers it shows (plain text; escape to show).

    ``similarities`` ``(L+1, n_pairs)`` and ``kinds`` as for :func:`sense_gap`; ``pairs`` the
    pair labels (default :func:`pair_labels`). With senses: the mean same-sense and
    different-sense similarity at the last layer, the gap there and where it is widest; without:
    the most and least similar pair. Then what the same-sentence pairs score, when there are any.
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    last = similarities.shape[0] - 1
    pairs = list(pairs) if pairs is not None else pair_labels(_pair_count_to_n(len(kinds)))
    word = word.strip()
    try:
        gap = sense_gap(similarities, kinds)
    except ValueError:
        gap = None
    if gap is not None:
        same, different, width = gap.iloc[-1]
        widest = int(gap["gap"].idxmax())
        if width > 0:
            text = (
                f"At the last layer (layer {last}), two “{word}”s of the same sense score "
                f"{same:.2f} on average and two of different senses {different:.2f}: the "
                f"model {'barely ' if width < SMALL_GAP else ''}tells the senses apart "
                f"(a gap of {width:.2f}"
            )
            if widest != last:
                text += f"; widest at layer {widest}: {gap['gap'].iloc[widest]:.2f}"
            text += f"). At layer 0, before any context, the gap is {gap['gap'].iloc[0]:.2f}."
        else:
            text = (
                f"At the last layer (layer {last}), two “{word}”s of different senses score "
                f"{different:.2f} on average, as high as or higher than two of the same "
                f"sense ({same:.2f}): on these sentences the model does not separate the "
                "senses."
            )
    else:
        final = similarities[-1]
        high, low = int(final.argmax()), int(final.argmin())
        text = (
            f"At the last layer the most similar “{word}”s are {pairs[high]} "
            f"({final[high]:.2f}) and the least similar {pairs[low]} ({final[low]:.2f}). "
            "Start lines with their sense ('river | …') to compare senses."
        )
    together = np.asarray(kinds, dtype=object) == "same sentence"
    if together.any() and (~together).any():
        inside, outside = similarities[-1, together].mean(), similarities[-1, ~together].mean()
        count = int(together.sum())
        text += (
            f" The {count} pair{'s' if count > 1 else ''} from one sentence score {inside:.2f} "
            f"against {outside:.2f} for the others: they share all their context."
        )
    return text


def _pair_count_to_n(pairs: int) -> int:
    """The number of items ``n`` with ``n(n-1)/2 == pairs``."""
    n = int(round((1 + (1 + 8 * pairs) ** 0.5) / 2))
    if n * (n - 1) // 2 != pairs:
        raise ValueError(f"{pairs} is not a number of pairs n(n-1)/2.")
    return n


def layer_zero_note(similarities: np.ndarray, word: str) -> str:
    """Why layer 0 is not 1.00: the range of the pairs' cosines at layer 0 and its cause.

    ``similarities`` ``(L+1, n_pairs)``. Plain text (escape to show).
    """
    first = np.asarray(similarities, dtype=np.float64)[0]
    low, high = float(first.min()), float(first.max())
    digits = 3 if round(high, 2) >= 1.0 else 2
    span = f"{low:.{digits}f}–{high:.{digits}f}" if high - low >= 0.005 else f"{low:.{digits}f}"
    text = (
        f"At layer 0 the pairs score {span}{'' if high > 0.9999 else ', not 1.00,'} although "
        "no attention has mixed in any context yet: a token's layer-0 vector is its word "
        "embedding plus a position embedding and a segment embedding (then normalised), so "
        "the same "
        f"“{word.strip()}” at different positions already differs slightly."
    )
    if high > 0.9999:
        text += " Two occurrences at the same position (and with the same pieces) score 1.00."
    return text


def projections_link(word: str) -> dict[str, str]:
    """Query parameters of the Projections page showing every occurrence of ``word`` as a
    point (its words level), from the built-in sense sentences (the word's own when it is one
    of :data:`explorer.corpora.SENSE_WORDS`)."""
    return {
        "projections.level": "words",
        "projections.word": word.strip(),
        "projections.source": "builtin",
        "projections.word_dataset": corpora.DATASET_NAMES[0],
    }
