"""Built-in example corpora for the BERT contextual-embedding explorer.

Two small, hand-written CSV files ship with the package:

``senses.csv``
    Labelled word-sense sentences (columns ``word``, ``sense``, ``text``). Every
    sentence contains its target ``word`` exactly once, as a whole word, so the
    explorer can pull out that token's contextual embedding and show how BERT
    separates, for example, a river *bank* from a savings *bank*.

``topics.csv``
    Short remarks and reviews (columns ``text``, ``topic``, ``sentiment``) on a
    handful of topics, each with positive and negative examples, for exploring
    sentence-level embeddings.

All sentences were written for this project. The module is plain Python (no
Streamlit import); parsed files are cached, and every public function returns a
fresh copy that callers may modify freely.
"""

from __future__ import annotations

import functools
from importlib.resources import files

import pandas as pd

__all__ = [
    "DATASETS",
    "DATASET_NAMES",
    "SENSE_WORDS",
    "load_dataset",
    "load_senses",
    "load_topics",
]

SENSES_FILE = "senses.csv"
TOPICS_FILE = "topics.csv"

#: Ambiguous words covered by ``senses.csv``, in file order.
SENSE_WORDS: tuple[str, ...] = (
    "bank",
    "bat",
    "bark",
    "crane",
    "spring",
    "match",
    "mouse",
    "plant",
)

#: Dataset names accepted by :func:`load_dataset`, with a short description of each.
DATASETS: dict[str, str] = {
    "Word senses (all words)": (
        "Sentences using ambiguous words (bank, bat, bark, ...) labelled 'word:sense'."
    ),
    "Topics": "Short remarks labelled by topic (sports, food, technology, weather).",
    "Sentiment": "The same remarks labelled by sentiment (positive or negative).",
}

#: The names accepted by :func:`load_dataset`, in display order.
DATASET_NAMES: tuple[str, ...] = tuple(DATASETS)


@functools.lru_cache(maxsize=8)
def _read_csv(filename: str) -> pd.DataFrame:
    """Parse one of the packaged CSV files (cached; callers must copy the result)."""
    resource = files(__package__).joinpath(filename)
    with resource.open("r", encoding="utf-8", newline="") as fh:
        frame = pd.read_csv(fh, dtype=str, keep_default_na=False)
    return frame.apply(lambda column: column.str.strip())


def load_senses(word: str | None = None) -> pd.DataFrame:
    """Return the word-sense sentences as a DataFrame with columns word, sense, text.

    Args:
        word: If given, keep only the sentences for this word (case-insensitive,
            surrounding whitespace ignored). It must be one of :data:`SENSE_WORDS`.

    Raises:
        ValueError: If ``word`` is not one of :data:`SENSE_WORDS`.
    """
    frame = _read_csv(SENSES_FILE)[["word", "sense", "text"]]
    if word is not None:
        if not isinstance(word, str):
            raise ValueError(f"A sense word must be a string, not {type(word).__name__}.")
        key = word.strip().lower()
        if key not in SENSE_WORDS:
            raise ValueError(
                f"Unknown sense word {word!r}; valid words are: {', '.join(SENSE_WORDS)}."
            )
        frame = frame[frame["word"] == key]
    return frame.reset_index(drop=True).copy()


def load_topics() -> pd.DataFrame:
    """Return the topic/sentiment sentences as a DataFrame with columns text, topic, sentiment."""
    return _read_csv(TOPICS_FILE)[["text", "topic", "sentiment"]].reset_index(drop=True).copy()


def load_dataset(name: str) -> pd.DataFrame:
    """Return a labelled dataset by name, with columns ``text`` and ``label``.

    * ``"Word senses (all words)"``: every sentence from :func:`load_senses`, with
      ``label`` set to ``"word:sense"`` (e.g. ``"bank:river"``) and an extra
      ``word`` column.
    * ``"Topics"``: the sentences from :func:`load_topics`, labelled by topic.
    * ``"Sentiment"``: the same sentences, labelled by sentiment.

    Raises:
        ValueError: If ``name`` is not one of :data:`DATASET_NAMES`.
    """
    if name == "Word senses (all words)":
        senses = load_senses()
        return pd.DataFrame(
            {
                "text": senses["text"],
                "label": senses["word"] + ":" + senses["sense"],
                "word": senses["word"],
            }
        )
    if name == "Topics":
        topics = load_topics()
        return pd.DataFrame({"text": topics["text"], "label": topics["topic"]})
    if name == "Sentiment":
        topics = load_topics()
        return pd.DataFrame({"text": topics["text"], "label": topics["sentiment"]})
    valid = ", ".join(repr(n) for n in DATASET_NAMES)
    raise ValueError(f"Unknown dataset {name!r}; valid names are: {valid}.")
