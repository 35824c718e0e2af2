"""What the model reads: input checks (:func:`clean_text`) and one tokenized input
(:class:`Tokenization`), with its words, subwords and character offsets."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHARS = 100_000
"""Longest text accepted, in characters (longer texts are truncated to ``max_length`` tokens
anyway; this bounds tokenizer work on absurd pastes)."""


@dataclass(frozen=True)
class Tokenization:
    """One tokenized input (a text, or a text pair), truncated to the model's ``max_length``.

    All lists have one entry per token. ``offsets`` are ``(start, end)`` character spans into
    the segment the token comes from (``sequence_ids`` says which: 0 = ``text``, 1 = ``pair``,
    ``None`` = special token, whose span is ``(0, 0)``).
    """

    text: str
    pair: str | None
    tokens: list[str]
    ids: list[int]
    segment_ids: list[int]
    attention_mask: list[int]
    offsets: list[tuple[int, int]]
    word_ids: list[int | None]
    sequence_ids: list[int | None]
    special: list[bool]
    truncated: bool

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def subword(self) -> list[bool]:
        """True for a token that continues the word of the token before it (``##ding``)."""
        flags = []
        for i, word in enumerate(self.word_ids):
            previous = self.word_ids[i - 1] if i else None
            same_sequence = i > 0 and self.sequence_ids[i - 1] == self.sequence_ids[i]
            flags.append(word is not None and word == previous and same_sequence)
        return flags

    @property
    def special_tokens(self) -> tuple[str, ...]:
        """The special tokens the tokenizer added, as it writes them, each once in order of
        appearance: ``("[CLS]", "[SEP]")``, ``("<s>", "</s>")``."""
        return tuple(dict.fromkeys(t for t, s in zip(self.tokens, self.special, strict=True) if s))

    @property
    def num_words(self) -> int:
        """Number of distinct words (over both segments), special tokens excluded."""
        return len(
            {(s, w) for s, w in zip(self.sequence_ids, self.word_ids, strict=True) if w is not None}
        )

    def segment_text(self, index: int) -> str:
        """The text the token at ``index`` was cut from (``""`` for special tokens)."""
        sequence = self.sequence_ids[index]
        if sequence is None:
            return ""
        source = self.text if sequence == 0 else (self.pair or "")
        start, end = self.offsets[index]
        return source[start:end]

    def words(self, sequence: int = 0) -> list[tuple[int, int, int, int]]:
        """Words of one segment as ``(token_start, token_end, char_start, char_end)``.

        ``token_end`` and ``char_end`` are exclusive; a word split into subwords spans
        several tokens.
        """
        spans: list[list[int]] = []
        last_word = None
        for i, (seq, word) in enumerate(zip(self.sequence_ids, self.word_ids, strict=True)):
            if seq != sequence or word is None:
                last_word = None
                continue
            start, end = self.offsets[i]
            if word == last_word:
                spans[-1][1] = i + 1
                spans[-1][3] = max(spans[-1][3], end)
            else:
                spans.append([i, i + 1, start, end])
            last_word = word
        return [tuple(span) for span in spans]  # type: ignore[misc]

    def as_table(self) -> list[dict[str, object]]:
        """One record per token: position, token, id, segment, mask, offsets, flags."""
        subword = self.subword
        return [
            {
                "position": i,
                "token": self.tokens[i],
                "id": self.ids[i],
                "segment_id": self.segment_ids[i],
                "attention_mask": self.attention_mask[i],
                "start": self.offsets[i][0],
                "end": self.offsets[i][1],
                "word_id": self.word_ids[i],
                "special": self.special[i],
                "subword": subword[i],
            }
            for i in range(len(self))
        ]


def clean_text(text: object, what: str = "Text") -> str:
    """Check one input text and return it ready for the tokenizer.

    Raises ``ValueError`` for non-strings, empty or whitespace-only text and text longer than
    ``MAX_CHARS``. Lone UTF-16 surrogates (which cannot be encoded) become U+FFFD, one
    character for one, so character offsets still point into the caller's string.
    """
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a string, not {type(text).__name__}.")
    if not text.strip():
        raise ValueError(f"{what} is empty: type or paste some text.")
    if len(text) > MAX_CHARS:
        raise ValueError(
            f"{what} is {len(text):,} characters long; the limit is {MAX_CHARS:,}. "
            "Only the first tokens fit into the model anyway: paste a shorter passage."
        )
    return re.sub(r"[\ud800-\udfff]", "\ufffd", text)
