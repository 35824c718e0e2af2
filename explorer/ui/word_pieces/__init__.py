"""The Tokens page's Streamlit side: the counts and the table of a tokenization (``_sections``)
and the vocabulary map, the input embedding table in 2-D with a piece's nearest pieces
(``_vocabulary``)."""

from explorer.ui.word_pieces._sections import count_metrics, token_table
from explorer.ui.word_pieces._vocabulary import vocabulary_section

__all__ = ["count_metrics", "token_table", "vocabulary_section"]
