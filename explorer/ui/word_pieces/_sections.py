"""The Tokens page's sections: the counts of a tokenization (characters, words, tokens,
tokens per word) and the table of its tokens with every column explained."""

from __future__ import annotations

import streamlit as st

from explorer.figures.tokens import tokens_table
from explorer.model import Tokenization
from explorer.ui import presentation

NO_WORD = "—"
"""What the word column reads for a special token ([CLS], [SEP], <s>, ...), which belongs to no
word of the text (the data grid would otherwise paint a grey "None")."""

COLUMNS = {
    "position": st.column_config.NumberColumn("#", help="Position in the model input"),
    "token": st.column_config.TextColumn("token", help="The vocabulary entry"),
    "text": st.column_config.TextColumn("text", help="The characters this token covers"),
    "id": st.column_config.NumberColumn("id", help="Row of the embedding matrix", format="%d"),
    "segment_id": st.column_config.NumberColumn(
        "segment", help="Token type id: 0 for the first sentence, 1 for the second"
    ),
    "attention_mask": st.column_config.NumberColumn(
        "mask", help="Attention mask: 1 = a real token the model attends to"
    ),
    "start": st.column_config.NumberColumn("start", help="First character (offset)"),
    "end": st.column_config.NumberColumn("end", help="One past the last character"),
    "word_id": st.column_config.NumberColumn(
        "word",
        help=f"Which word of its sentence the token belongs to, counted from 0 ({NO_WORD}: a "
        "special token, which belongs to no word)",
    ),
    "special": st.column_config.CheckboxColumn("special", help="A token the tokenizer adds"),
    "subword": st.column_config.CheckboxColumn(
        "subword", help="Continues the word of the token before it (##...)"
    ),
}
"""The token table's columns, each with what it means (:func:`column_config` names the
special tokens of the text shown)."""


def column_config(tokenization: Tokenization) -> dict:
    """:data:`COLUMNS` for the table of ``tokenization``: the "special" column's help names
    the special tokens this model added (``<s>``, ``</s>`` for RoBERTa or MPNet; it read
    "[CLS], [SEP], ... added" for every model), and the "subword" column's shows WordPiece's
    ``##`` only when the continuations carry it."""
    added = tokenization.special_tokens
    says = (
        f"Added by the tokenizer: {', '.join(added)}"
        if added
        else "A token the tokenizer adds (none in this text)"
    )
    marked = any(
        t.startswith("##")
        for t, sub in zip(tokenization.tokens, tokenization.subword, strict=True)
        if sub
    )  # WordPiece marks a continuation; BPE (RoBERTa) marks a word's start instead
    return {
        **COLUMNS,
        "special": st.column_config.CheckboxColumn("special", help=says),
        "subword": st.column_config.CheckboxColumn(
            "subword",
            help="Continues the word of the token before it" + (" (##...)" if marked else ""),
        ),
    }


def count_metrics(counts, cut: bool = False) -> None:
    """Four metrics of ``counts`` (:func:`explorer.figures.tokens.token_counts`). ``cut``: the
    text was truncated at the model's limit, so the characters are those the kept tokens
    reach, as the words and tokens beside them are (20,700 characters beside 510 words read
    as if the model read them all)."""
    columns = st.columns(4)
    if cut:
        columns[0].metric(
            "Characters read",
            f"{counts.covered_characters:,}",
            help=f"Of {counts.characters:,} in the text: the rest lies past the model's token "
            "limit, and the words and tokens here leave it out too.",
            border=True,
        )
    else:
        columns[0].metric("Characters", f"{counts.characters:,}", border=True)
    columns[1].metric(
        "Words",
        f"{counts.words:,}",
        help="Words as the tokenizer's pre-tokenizer splits the text: punctuation counts as a "
        "word.",
        border=True,
    )
    columns[2].metric(
        "Tokens",
        f"{counts.tokens:,}",
        help=f"Word pieces plus {counts.special} special tokens.",
        border=True,
    )
    columns[3].metric(
        "Tokens per word",
        f"{counts.tokens_per_word:.2f}",
        help=f"Word pieces per word, special tokens left out; {counts.split_words} word(s) split.",
        border=True,
    )


def token_table(tokenization: Tokenization, rows: int) -> None:
    """Every token of ``tokenization`` with its id, segment, offsets and word: every row
    shown, up to ``rows`` rows; beyond, the grid scrolls (in presentation mode a static table
    shows them all)."""
    st.subheader("Token table")
    presentation.table(
        tokens_table(tokenization),
        width="stretch",
        hide_index=True,
        column_config=column_config(tokenization),
        placeholder=NO_WORD,
        height="content" if len(tokenization) <= rows else 38 + 35 * rows,
    )
