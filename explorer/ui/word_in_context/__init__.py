"""The Word in context page's Streamlit side: the occurrences, the sense gap, the pair charts
and table (``_sections``) and the vectors post-processed before their cosines (``_post``)."""

from explorer.ui.word_in_context._post import TITLES, post_select, postprocessed, rogue_note
from explorer.ui.word_in_context._sections import (
    occurrence_list,
    pair_charts,
    pairs_table,
    sense_gap,
)

__all__ = [
    "TITLES",
    "occurrence_list",
    "pair_charts",
    "pairs_table",
    "post_select",
    "postprocessed",
    "rogue_note",
    "sense_gap",
]
