"""How an occurrence of the word is shown: a window of its context, list and axis labels, and
its sentence with the word marked."""

from __future__ import annotations

from collections.abc import Sequence

from explorer._markup import escape_markdown
from explorer.context.sentences import sense_of
from explorer.words import Occurrence


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
    occurrences: Sequence[Occurrence],
    texts: Sequence[str],
    words: int = 3,
    senses: Sequence[str | None] | None = None,
) -> list[str]:
    """One label per occurrence: ``"#1 bank (s1: …from the bank vault, the…)"``, or with
    ``senses`` (one per text, ``None`` for none) ``"#1 bank (finance) (s1: …)"``."""
    labels = []
    for i, o in enumerate(occurrences):
        sense = sense_of(senses, o)
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
        sense = sense_of(senses, o)
        if sense is None:
            text = context_window(texts[o.text_index], o.char_start, o.char_end, 1, "")
        else:
            text = f"{o.surface} ({sense})"
        labels.append(f"#{i + 1} {text}")
    return labels


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
