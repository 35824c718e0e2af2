"""The Similarity & search page's Streamlit side: the sentences compared and the search's
results (``_sections``), the cosines after a post-processing (``_post``) and the search over a
saved corpus (``_store``)."""

from explorer.ui.similarity_search._post import cosines, post_select, snippet
from explorer.ui.similarity_search._sections import (
    comparison,
    results_table,
    search_texts,
    why_close,
)
from explorer.ui.similarity_search._store import store_section

__all__ = [
    "comparison",
    "cosines",
    "post_select",
    "results_table",
    "search_texts",
    "snippet",
    "store_section",
    "why_close",
]
