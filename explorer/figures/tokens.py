"""What the Tokens page draws: token chips (HTML), the token table and the counts beside them.

Everything here is a pure function of a :class:`~explorer.model.Tokenization`. The chips are
an HTML string for ``st.html``: every piece of user text in it goes through
:func:`html.escape`, so a pasted ``<script>`` shows up as text, never as markup.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import pandas as pd

from explorer.model import Tokenization

WORD_COLOURS = ("#dbeafe", "#fde68a", "#bbf7d0", "#fbcfe8", "#ddd6fe", "#fed7aa")
"""Chip backgrounds, one per word in turn (pastel, readable with dark text in both themes)."""

WORD_BORDERS = ("#60a5fa", "#f59e0b", "#22c55e", "#ec4899", "#8b5cf6", "#f97316")
"""Chip outlines, matching :data:`WORD_COLOURS`."""

SPECIAL_COLOUR = "#e5e7eb"
SPECIAL_BORDER = "#9ca3af"
TEXT_COLOUR = "#111827"
MARKER_COLOUR = "#6b7280"

SUBWORD_MARKERS = ("##", "\u0120", "\u2581")
"""Prefixes tokenizers use to mark word pieces: WordPiece ``##``, byte-level BPE ``Ġ``,
SentencePiece ``▁``. They are drawn dimmed so the piece itself stands out."""

_ROW = (
    "display:flex;flex-wrap:wrap;gap:8px 6px;align-items:center;margin:2px 0 10px 0;"
    "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.95rem;"
    "line-height:1.5"
)
_LABEL = f"font-family:sans-serif;font-size:0.8rem;color:{MARKER_COLOUR};margin-right:4px"


@dataclass(frozen=True)
class TokenCounts:
    """The numbers shown next to the chips.

    ``words`` are the pre-tokenizer's words (punctuation marks count as words), over both
    segments; ``pieces`` the tokens cut from them (special tokens excluded); ``split_words``
    the words cut into more than one piece; ``characters`` the input length (text + pair);
    ``covered_characters`` how much of ``text`` the kept tokens reach (less than
    ``len(text)`` only when the input was truncated).
    """

    characters: int
    words: int
    tokens: int
    special: int
    pieces: int
    split_words: int
    covered_characters: int

    @property
    def tokens_per_word(self) -> float:
        """Word pieces per word (1.0 when nothing was split; 0.0 for no words)."""
        return self.pieces / self.words if self.words else 0.0


def token_counts(tokenization: Tokenization) -> TokenCounts:
    """Count characters, words, tokens, special tokens and split words of ``tokenization``."""
    special = sum(tokenization.special)
    spans = tokenization.words(0) + tokenization.words(1)
    covered = max((end for _, _, _, end in tokenization.words(0)), default=0)
    return TokenCounts(
        characters=len(tokenization.text) + len(tokenization.pair or ""),
        words=tokenization.num_words,
        tokens=len(tokenization),
        special=special,
        pieces=len(tokenization) - special,
        split_words=sum(1 for start, end, _, _ in spans if end - start > 1),
        covered_characters=covered,
    )


def tokens_table(tokenization: Tokenization) -> pd.DataFrame:
    """One row per token (:meth:`Tokenization.as_table`) plus ``text``, the characters covered.

    Columns: position, token, text, id, segment_id, attention_mask, start, end, word_id
    (nullable integer: empty for special tokens), special, subword.
    """
    table = pd.DataFrame(tokenization.as_table())
    table.insert(2, "text", [tokenization.segment_text(i) for i in range(len(tokenization))])
    table["word_id"] = table["word_id"].astype("Int64")
    return table


def token_chips_html(
    tokenization: Tokenization, show_special: bool = True, show_ids: bool = False
) -> str:
    """The tokens as coloured chips, grouped by word, as an HTML string (for ``st.html``).

    The pieces of one word share a colour and touch each other (``em|##bed|##ding|##s``);
    consecutive words alternate through :data:`WORD_COLOURS`; special tokens are grey. Hovering
    a piece shows its id and character offsets, hovering a word its text. With a sentence
    pair, each segment gets its own row. ``show_special=False`` leaves special tokens out;
    ``show_ids=True`` writes each token's id under it. All text is HTML-escaped.
    """
    rows: list[list[str]] = [[]]
    colour = 0
    for group in _groups(tokenization):
        first = group[0]
        if tokenization.special[first]:
            if show_special:
                rows[-1].append(_special_chip(tokenization, first, show_ids))
            following = tokenization.sequence_ids[first + 1 : first + 2]
            if len(rows) == 1 and following == [1]:
                rows.append([])  # the second segment starts on its own row
            continue
        rows[-1].append(_word_chip(tokenization, group, colour % len(WORD_COLOURS), show_ids))
        colour += 1
    labelled = tokenization.pair is not None
    parts = []
    for index, chips in enumerate(rows):
        if not chips:
            continue
        label = f'<span style="{_LABEL}">Sentence {"AB"[index]}</span>' if labelled else ""
        parts.append(f'<div style="{_ROW}">{label}{"".join(chips)}</div>')
    return f'<div class="token-chips">{"".join(parts)}</div>'


def piece_html(token: str) -> str:
    """One token's label, escaped, with a leading subword marker (``##``, ``Ġ``, ``▁``) dimmed."""
    for marker in SUBWORD_MARKERS:
        if token.startswith(marker) and len(token) > len(marker):
            dimmed = f'<span style="color:{MARKER_COLOUR}">{html.escape(marker)}</span>'
            return dimmed + html.escape(token[len(marker) :])
    return html.escape(token)


def _groups(tokenization: Tokenization) -> list[list[int]]:
    """Token indices grouped by word: one group per word, one per special token."""
    groups: list[list[int]] = []
    previous: tuple[int | None, int] | None = None
    for i, (sequence, word) in enumerate(
        zip(tokenization.sequence_ids, tokenization.word_ids, strict=True)
    ):
        key = (sequence, word) if word is not None and not tokenization.special[i] else None
        if key is not None and key == previous:
            groups[-1].append(i)
        else:
            groups.append([i])
        previous = key
    return groups


_ID = f"display:block;font-size:0.72em;line-height:1.1;color:{MARKER_COLOUR};text-align:center"
_STACKED = "display:inline-flex;flex-direction:column;align-items:center;"


def _with_id(label: str, token_id: int, show_ids: bool) -> str:
    """``label`` with ``token_id`` in small print under it when ``show_ids``."""
    if not show_ids:
        return label
    return f'<span>{label}</span><span class="token-id" style="{_ID}">{token_id}</span>'


def _special_chip(tokenization: Tokenization, index: int, show_ids: bool = False) -> str:
    title = html.escape(
        f"special token · id {tokenization.ids[index]} · position {index}", quote=True
    )
    style = (
        f"background:{SPECIAL_COLOUR};border:1px dashed {SPECIAL_BORDER};border-radius:6px;"
        f"padding:1px 6px;color:#4b5563;font-size:0.85em;{_STACKED if show_ids else ''}"
    )
    label = _with_id(html.escape(tokenization.tokens[index]), tokenization.ids[index], show_ids)
    return f'<span title="{title}" style="{style}">{label}</span>'


def _word_chip(
    tokenization: Tokenization, group: list[int], colour: int, show_ids: bool = False
) -> str:
    background, border = WORD_COLOURS[colour], WORD_BORDERS[colour]
    start = tokenization.offsets[group[0]][0]
    end = max(tokenization.offsets[i][1] for i in group)
    source = tokenization.text if tokenization.sequence_ids[group[0]] == 0 else tokenization.pair
    word = (source or "")[start:end]
    count = f"{len(group)} tokens" if len(group) > 1 else "1 token"
    title = html.escape(f"{word} · {count}", quote=True)
    outline = "2px" if len(group) > 1 else "1px"
    pieces = []
    for n, i in enumerate(group):
        piece_start, piece_end = tokenization.offsets[i]
        piece_title = html.escape(
            f"{tokenization.tokens[i]} · id {tokenization.ids[i]} · "
            f"characters {piece_start}–{piece_end} · position {i}",
            quote=True,
        )
        divider = f"border-left:1px solid {border};" if n else ""
        pieces.append(
            f'<span title="{piece_title}" style="padding:1px 5px;{divider}'
            f'{_STACKED if show_ids else ""}">'
            f"{_with_id(piece_html(tokenization.tokens[i]), tokenization.ids[i], show_ids)}</span>"
        )
    style = (
        f"display:inline-flex;background:{background};border:{outline} solid {border};"
        f"border-radius:6px;color:{TEXT_COLOUR};overflow:hidden"
    )
    return f'<span class="word" title="{title}" style="{style}">{"".join(pieces)}</span>'


def tokens_notice(tokenization: Tokenization) -> str:
    """The page's opening sentence (plain text; escape to show): how many words became how
    many tokens, which words were split and into what, and the special tokens added."""
    counts = token_counts(tokenization)
    split = [g for g in _groups(tokenization) if len(g) > 1]
    text = (
        f"{counts.words} word{'s' if counts.words != 1 else ''} became {counts.pieces} "
        f"piece{'s' if counts.pieces != 1 else ''}"
    )
    if split:
        shown = ", ".join(
            f"{_word_text(tokenization, g)} → {' '.join(tokenization.tokens[i] for i in g)}"
            for g in split[:3]
        )
        more = f" and {len(split) - 3} more" if len(split) > 3 else ""
        text += f": {len(split)} split ({shown}{more})"
    else:
        text += ": every word is in the vocabulary whole"
    if counts.special:
        tokens = zip(tokenization.tokens, tokenization.special, strict=True)
        names = ", ".join(dict.fromkeys(t for t, s in tokens if s))
        text += (
            f". With the {counts.special} special tokens the tokenizer adds ({names}), the "
            f"model reads {counts.tokens} tokens"
        )
    return text + "."


def _word_text(tokenization: Tokenization, group: list[int]) -> str:
    start = tokenization.offsets[group[0]][0]
    end = max(tokenization.offsets[i][1] for i in group)
    source = tokenization.text if tokenization.sequence_ids[group[0]] == 0 else tokenization.pair
    return (source or "")[start:end]
