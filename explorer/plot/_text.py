"""One text or a few sentences: the Tokens, Layers and Word in context pages' pictures."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from explorer import layerstats
from explorer.context import (
    cap_occurrences,
    occurrence_labels,
    pair_kinds,
    pair_labels,
    pair_similarities,
    parse_labelled_sentences,
    short_labels,
    similarity_matrix,
    what_to_notice,
)
from explorer.data import corpora
from explorer.figures.context import similarity_heatmap
from explorer.figures.layers import norm_heatmap, summary_notice
from explorer.figures.tokens import token_chips_html, tokens_notice, tokens_table
from explorer.layers import Layers, layers_label
from explorer.model import Model, Tokenization
from explorer.plot._common import as_model, as_texts, with_notice
from explorer.subwords import SUBWORD_LABELS
from explorer.words import word_layer_vectors

DEFAULT_LAYER = 5
"""The layer the Layers page marks first (or the last layer of a smaller model)."""


@dataclass(frozen=True)
class Tokens:
    """What the Tokens page shows of a text: its chips (HTML; a notebook displays them), the
    token table and the what-to-notice sentence."""

    tokenization: Tokenization
    chips: str
    table: pd.DataFrame
    notice: str

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(self.notice)}</p>{self.chips}"


def tokens(model: Model | str | None, text: str, show_ids: bool = True) -> Tokens:
    """How ``model``'s tokenizer cuts ``text``: the Tokens page's chips (with ids when
    ``show_ids``), its table and its notice. The page draws no chart here, so this is HTML."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, not {type(text).__name__}.")
    tokenization = as_model(model).tokenize(text)
    return Tokens(
        tokenization,
        token_chips_html(tokenization, show_ids=show_ids),
        tokens_table(tokenization),
        tokens_notice(tokenization),
    )


def layers(
    model: Model | str | None, text: str, token: int | None = None, layer: int | None = None
) -> go.Figure:
    """The Layers page's norm heatmap of ``text`` (every token's vector norm at every layer),
    ``token`` and ``layer`` marked (default: the page's, the first ambiguous or content word
    and layer 5), with the page's notice on the chosen token."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, not {type(text).__name__}.")
    model = as_model(model)
    tokenization = model.tokenize(text)
    hidden = model.hidden_states(text)
    num_layers, num_tokens = hidden.shape[0] - 1, hidden.shape[1]
    if token is None:
        token = layerstats.default_token(
            tokenization.tokens, tokenization.special, corpora.SENSE_WORDS
        )
    if layer is None:
        layer = min(DEFAULT_LAYER, num_layers)
    if not 0 <= token < num_tokens:
        raise ValueError(f"token must be a position from 0 to {num_tokens - 1}, not {token}.")
    if not 0 <= layer <= num_layers:
        raise ValueError(f"layer must be from 0 to {num_layers}, not {layer}.")
    labels = layerstats.token_labels(tokenization.tokens)
    summary = layerstats.layer_summary(hidden, token, True, tokenization.special)
    figure = norm_heatmap(layerstats.token_norms(hidden), labels, token, layer)
    return with_notice(figure, summary_notice(summary, tokenization.tokens[token]))


def word_in_context(
    model: Model | str | None,
    sentences: str | Sequence[str],
    word: str,
    layers: Layers = "last",
    subwords: str = "mean",
) -> go.Figure:
    """The Word in context page's heatmap: the cosine of every two occurrences of ``word`` in
    ``sentences`` under the layer choice ``layers``, with the page's notice. A sentence may
    start with its sense, ``"river | We sat on the bank."``: the notice then compares pairs
    of one sense with pairs of different senses. At most
    :data:`explorer.context.MAX_OCCURRENCES` occurrences are compared."""
    model = as_model(model)
    if not isinstance(word, str):
        raise ValueError(f"word must be a string, not {type(word).__name__}.")
    lines, senses = parse_labelled_sentences("\n".join(as_texts(sentences, "sentences")))
    occurrences, per_layer = word_layer_vectors(model, lines, word, subwords)
    if len(occurrences) < 2:
        raise ValueError(
            f"{word.strip()!r} occurs only once: at least two occurrences are needed to compare."
        )
    occurrences, per_layer = cap_occurrences(occurrences, per_layer)
    kinds = pair_kinds(occurrences, senses)
    by_layer = pair_similarities(per_layer)
    matrix = similarity_matrix(per_layer, layers)
    split = SUBWORD_LABELS[subwords] if any(o.num_tokens > 1 for o in occurrences) else None
    notice = what_to_notice(
        word, by_layer, kinds, pair_labels(len(occurrences)), layers, matrix, "", split
    )
    figure = similarity_heatmap(
        matrix,
        short_labels(occurrences, lines, senses),
        occurrence_labels(occurrences, lines, senses=senses),
        title=f"Cosine similarity: {layers_label(layers).lower()}",
    )
    return with_notice(figure, notice)
