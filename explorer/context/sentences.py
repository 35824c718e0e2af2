"""The sentences the "Word in context" page compares, and the sense of each.

The defaults (six "bank" sentences, three of each sense) and the tutorial's three; the text
box's lines, each optionally starting with its sense (``finance | The bank ...``); examples
from the built-in sense sentences of :mod:`explorer.data.corpora`.
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.data import corpora
from explorer.data.uploads import texts_from_lines
from explorer.words import Occurrence

MAX_SENTENCES = 100
"""Most sentences the page compares at once (one per line)."""

DEFAULT_WORD = "bank"
DEFAULT_SENSES = ("finance",) * 3 + ("river",) * 3
"""The sense of each default sentence, as in :mod:`explorer.data.corpora`'s ``senses.csv``."""
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


def parse_sentences(text: str | None) -> list[str]:
    """One sentence per non-blank line of ``text``, stripped, at most :data:`MAX_SENTENCES`.

    :func:`explorer.data.uploads.texts_from_lines` with this page's limit; ``ValueError`` when
    there is no sentence or too many.
    """
    return texts_from_lines(text, MAX_SENTENCES)


def sense_examples(word: str, per_sense: int = 3) -> list[str]:
    """The first ``per_sense`` built-in sentences of every sense of ``word``, sense by sense.

    ``word`` is one of :data:`explorer.data.corpora.SENSE_WORDS` (``ValueError`` otherwise).
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


def sense_of(senses: Sequence[str | None] | None, occurrence: Occurrence) -> str | None:
    """The sense of the text ``occurrence`` is in: ``senses[occurrence.text_index]``, or
    ``None`` when there are no ``senses`` (one per text, ``None`` for a text without)."""
    return None if senses is None else senses[occurrence.text_index]
