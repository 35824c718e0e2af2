"""The Compare models page: two models at once (:func:`choose_pair`), their tokenizers side by
side (:func:`tokens_section`), their layers against each other (:func:`layers_section`), and
the same texts' neighbours and search results under each (:func:`maps_section`)."""

from __future__ import annotations

from explorer.ui.compare_models._curves import curves_section
from explorer.ui.compare_models._neighbours import maps_section
from explorer.ui.compare_models._pair import Pair, Side, choose_pair
from explorer.ui.compare_models._sections import (
    CORPORA,
    corpus_texts,
    layers_section,
    tokens_section,
)

__all__ = [
    "CORPORA",
    "Pair",
    "Side",
    "choose_pair",
    "corpus_texts",
    "curves_section",
    "layers_section",
    "maps_section",
    "tokens_section",
]
