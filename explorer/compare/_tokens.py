"""How a tokenizer cuts a corpus: tokens per word (fertility), the share of words it splits,
and unknown tokens.

Words are the tokenizer's own (:meth:`explorer.model.Tokenization.words`) that hold a letter
or a digit: punctuation, which some tokenizers keep apart and others attach, is not counted, so
two tokenizers are compared over (nearly) the same words. Special tokens are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explorer.model import Model


@dataclass(frozen=True)
class TokenStats:
    """Counts over a corpus: ``words``, their ``tokens``, ``split`` (words of more than one
    token) and ``unknown`` (tokens that are the tokenizer's unknown token)."""

    words: int
    tokens: int
    split: int
    unknown: int

    @property
    def fertility(self) -> float:
        """Tokens per word (1.0 = every word is one token)."""
        return self.tokens / self.words if self.words else 0.0

    @property
    def split_share(self) -> float:
        """Share of words cut into more than one token, in [0, 1]."""
        return self.split / self.words if self.words else 0.0

    @property
    def unknown_share(self) -> float:
        """Share of the words' tokens that are the unknown token, in [0, 1]."""
        return self.unknown / self.tokens if self.tokens else 0.0


def token_stats(model: Model, texts: Sequence[str]) -> TokenStats:
    """:class:`TokenStats` of ``model``'s tokenizer over ``texts`` (tokenization only)."""
    if isinstance(texts, str):
        texts = [texts]
    if not texts:
        raise ValueError("No texts given: pass at least one sentence.")
    unk = model.tokenizer.unk_token_id
    words = tokens = split = unknown = 0
    for text in texts:
        tokenization = model.tokenize(text)
        for start, end, a, b in tokenization.words():
            if not any(ch.isalnum() for ch in text[a:b]):
                continue
            words += 1
            tokens += end - start
            split += end - start > 1
            unknown += sum(1 for i in tokenization.ids[start:end] if unk is not None and i == unk)
    return TokenStats(words, tokens, split, unknown)
