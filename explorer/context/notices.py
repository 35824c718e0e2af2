"""What the page says about its numbers (plain text; escape to show), and where it points next."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer._shown import all_tie, extremes, join
from explorer.context.pairs import pair_count_to_n, pair_labels
from explorer.context.senses import sense_gap
from explorer.data import corpora
from explorer.layers import Layers, layers_label

SMALL_GAP = 0.05
"""A same-sense minus different-sense gap below this is called small."""


def _two(value: float) -> str:
    """``value`` with two decimals as the page shows it, never ``-0.00``."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def _wider(gaps, layer: int, *others: int) -> bool:
    """Whether the gap at ``layer`` is positive and, as shown, wider than at ``others``."""
    shown = float(_two(gaps.iloc[layer]))
    return shown > 0 and all(shown > float(_two(gaps.iloc[other])) for other in others)


def choice_phrase(strategy: Layers, last: int, post: str = "", subwords: str | None = None) -> str:
    """How a sentence opens on the numbers of a layer choice: ``"At the last layer (layer
    6)"``, ``"At layer 3"``, ``"Under the sum of last four layers"``, followed by the
    post-processing ``post`` (``"mean-centred"``) and the subword mode ``subwords`` (a label of
    :data:`explorer.subwords.SUBWORD_LABELS`, given when the word is split into pieces)."""
    extras = []
    if strategy == "last":
        text, extras = "At the last layer", [f"layer {last}"]
    elif strategy == "second_to_last":
        text, extras = "At the second-to-last layer", [f"layer {last - 1}"]
    elif strategy == "embeddings":
        text, extras = "At the embedding layer", ["layer 0"]
    elif isinstance(strategy, int | np.integer) and not isinstance(strategy, bool):
        text = f"At layer {int(strategy)}"
    else:
        text = f"Under the {layers_label(strategy).lower()}"
    if post:
        extras.append(post)
    if subwords:
        extras.append(f"pieces joined by {subwords.lower()}")
    return text + (f" ({', '.join(extras)})" if extras else "")


def what_to_notice(
    word: str,
    similarities: np.ndarray,
    kinds: Sequence[str],
    pairs: Sequence[str] | None = None,
    strategy: Layers = "last",
    chosen: np.ndarray | None = None,
    post: str = "",
    subwords: str | None = None,
) -> str:
    """The page's opening sentence, from the numbers it shows (plain text; escape to show).

    ``similarities`` ``(L+1, n_pairs)`` and ``kinds`` as for
    :func:`explorer.context.senses.sense_gap`; ``pairs`` the pair labels (default
    :func:`explorer.context.pairs.pair_labels`). ``chosen`` ``(n_pairs,)`` or the heatmap's
    ``(n, n)`` matrix: the pairs' cosines under the layer choice ``strategy`` (default the
    last layer, ``similarities[-1]``); ``post`` and ``subwords`` name
    the post-processing and the subword mode (see :func:`choice_phrase`). With senses: the
    mean same-sense and different-sense similarity under the choice, the gap and the layer of
    the chart where it is widest; without: the most and least similar pair (pairs that tie at
    the two decimals shown named together). Then what the same-sentence pairs score.
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    last = similarities.shape[0] - 1
    chosen = similarities[-1] if chosen is None else np.asarray(chosen, dtype=np.float64)
    if chosen.ndim == 2:  # the heatmap's (n, n) matrix: its pairs, row by row
        chosen = chosen[np.triu_indices(len(chosen), k=1)]
    if chosen.shape != similarities.shape[1:]:
        raise ValueError(f"{chosen.shape[0]} cosines for {similarities.shape[1]} pairs.")
    pairs = list(pairs) if pairs is not None else pair_labels(pair_count_to_n(len(kinds)))
    word = word.strip()
    lead = choice_phrase(strategy, last, post, subwords)
    try:
        gap = sense_gap(similarities, kinds)
        same, different, width = sense_gap(chosen[None, :], kinds).iloc[0]
    except ValueError:
        gap = None
    if gap is not None:
        widest = int(gap["gap"].idxmax())
        if float(_two(width)) > 0:
            text = (
                f"{lead}, two “{word}”s of the same sense score {_two(same)} on average and "
                f"two of different senses {_two(different)}: the model "
                f"{'barely ' if width < SMALL_GAP else ''}tells the senses apart "
                f"(a gap of {_two(width)}"
            )
            if (
                widest != last
                and _wider(gap["gap"], widest, last)
                and float(_two(gap["gap"].iloc[widest])) > float(_two(width))
            ):
                text += f"; widest at layer {widest}: {_two(gap['gap'].iloc[widest])}"
            text += f"). At layer 0, before any context, the gap is {_two(gap['gap'].iloc[0])}."
        else:
            text = (
                f"{lead}, two “{word}”s of different senses score {_two(different)} on "
                "average, "
                + (
                    "as high as or higher than"
                    if float(_two(different)) >= float(_two(same))
                    else "about as high as"  # the gap rounds to 0.00
                )
                + f" two of the same sense ({_two(same)}): on these sentences the model does "
                "not separate the senses."
            )
    else:
        high, low = extremes(chosen)
        if all_tie(chosen):
            text = f"{lead}, every pair of “{word}”s scores {_two(chosen[0])}. "
        else:
            text = (
                f"{lead}, the most similar “{word}”s are {_named(pairs, high)} "
                f"({_two(chosen[high[0]])}{' each' * (len(high) > 1)}) and the least similar "
                f"{_named(pairs, low)} ({_two(chosen[low[0]])}{' each' * (len(low) > 1)}). "
            )
        text += "Start lines with their sense ('river | …') to compare senses."
    together = np.asarray(kinds, dtype=object) == "same sentence"
    if together.any() and (~together).any():
        inside, outside = chosen[together].mean(), chosen[~together].mean()
        count = int(together.sum())
        pairs_text = f"The {count} pair{'s' if count > 1 else ''} from one sentence"
        if float(_two(inside)) > float(_two(outside)):
            text += (
                f" {pairs_text} score higher, {_two(inside)} against {_two(outside)} for the "
                "others: they share all their context."
            )
        else:
            text += (
                f" {pairs_text} score {_two(inside)} against {_two(outside)} for the others: no "
                "higher, although they share all their context."
            )
    return text


def _named(pairs: Sequence[str], found: Sequence[int]) -> str:
    """The pairs at ``found``: ``"#1 vs #2"``, ``"#1 vs #2 and #2 vs #3"``, ``"5 pairs"``."""
    if len(found) > MAX_NAMED:
        return f"{len(found)} pairs"
    return join([str(pairs[i]) for i in found])


MAX_NAMED = 3
"""More pairs than this tying at an extreme are counted, not named."""


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
    moves = f"{_two(start)} at layer 0, {_two(end)} at layer {last}"
    if end - start >= SMALL_GAP:
        text += f"It opens as the layers mix in the context: {moves}"
    elif start - end >= SMALL_GAP:
        text += f"It narrows through the layers: {moves}"
    else:
        text += f"It barely changes from layer to layer: {moves}"
    if widest not in (0, last) and _wider(gap["gap"], widest, 0, last):
        text += f", widest at layer {widest} ({_two(gap['gap'].iloc[widest])})"
    return text + "."


def layer_zero_note(similarities: np.ndarray, word: str) -> str:
    """Why layer 0 is not 1.00: the range of the pairs' cosines at layer 0 and its cause.

    ``similarities`` ``(L+1, n_pairs)``. Plain text (escape to show).
    """
    first = np.asarray(similarities, dtype=np.float64)[0]
    low, high = float(first.min()), float(first.max())
    digits = 3 if round(high, 2) >= 1.0 else 2
    span = f"{low:.{digits}f}–{high:.{digits}f}" if high - low >= 0.005 else f"{low:.{digits}f}"
    differs = "differs slightly" if low >= 0.9 else "differs"
    text = (
        f"At layer 0 the pairs score {span}{'' if high > 0.9999 else ', not 1.00,'} although "
        "no attention has mixed in any context yet: a token's layer-0 vector is its word "
        "embedding plus a position embedding (and, in BERT, a segment embedding), then "
        f"normalised, so the same “{word.strip()}” at different positions already {differs}."
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
