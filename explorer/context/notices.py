"""What the page says about its numbers (plain text; escape to show), and where it points next."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.context.pairs import pair_count_to_n, pair_labels
from explorer.context.senses import sense_gap
from explorer.data import corpora

SMALL_GAP = 0.05
"""A same-sense minus different-sense gap below this is called small."""


def what_to_notice(
    word: str,
    similarities: np.ndarray,
    kinds: Sequence[str],
    pairs: Sequence[str] | None = None,
) -> str:
    """The page's opening sentence, from the numbers it shows (plain text; escape to show).

    ``similarities`` ``(L+1, n_pairs)`` and ``kinds`` as for
    :func:`explorer.context.senses.sense_gap`; ``pairs`` the pair labels (default
    :func:`explorer.context.pairs.pair_labels`). With senses: the mean same-sense and
    different-sense similarity at the last layer, the gap there and where it is widest; without:
    the most and least similar pair. Then what the same-sentence pairs score, when there are any.
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    last = similarities.shape[0] - 1
    pairs = list(pairs) if pairs is not None else pair_labels(pair_count_to_n(len(kinds)))
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


def gap_caption(gap, left_out: int = 0) -> str:
    """The caption of the sense-gap chart (plain text): what the lines are, and how the gap
    moves from layer 0 to the last layer, read from ``gap`` (:func:`sense_gap`'s table) and
    said with the direction the numbers take. ``left_out``: pairs from one sentence or without
    a sense, not in the means."""
    same, different = int(gap.attrs.get("same", 0)), int(gap.attrs.get("different", 0))
    counts = f"{same} same-sense and {different} different-sense" if same else "the"
    start, end = float(gap["gap"].iloc[0]), float(gap["gap"].iloc[-1])
    last = len(gap) - 1
    widest = int(gap["gap"].idxmax())
    text = (
        f"Each line is the mean cosine of {counts} pairs"
        + (f" ({left_out} pairs from one sentence or without a sense left out)" if left_out else "")
        + ". The shaded band is the gap: how much more alike the model makes two uses of the "
        "word in one sense than in two. "
    )
    moves = f"{start:.2f} at layer 0, {end:.2f} at layer {last}"
    if end - start >= SMALL_GAP:
        text += f"It opens as the layers mix in the context: {moves}"
    elif start - end >= SMALL_GAP:
        text += f"It narrows through the layers: {moves}"
    else:
        text += f"It barely changes from layer to layer: {moves}"
    if widest not in (0, last):
        text += f", widest at layer {widest} ({gap['gap'].iloc[widest]:.2f})"
    return text + "."


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
    of :data:`explorer.data.corpora.SENSE_WORDS`)."""
    return {
        "projections.level": "words",
        "projections.word": word.strip(),
        "projections.source": "builtin",
        "projections.word_dataset": corpora.DATASET_NAMES[0],
    }
