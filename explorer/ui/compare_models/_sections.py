"""The Compare models page's sections: the same text through both tokenizers with their counts
over a built-in corpus, and every layer of A against every layer of B (cross-model CKA)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from explorer.codegen.compare import cross_cka_snippet, tokens_compare_snippet
from explorer.compare import (
    MAX_WORDS,
    Reading,
    WordAlignment,
    check_words,
    cka_spans,
    cka_texts,
    cross_cka_matrix,
    interleaved,
    read_texts,
    texts_within,
    token_stats,
)
from explorer.data import corpora
from explorer.figures.compare import (
    cross_cka_heatmap,
    cross_cka_notice,
    token_stats_notice,
    token_stats_table,
)
from explorer.figures.tokens import token_chips_html
from explorer.server import limits
from explorer.ui import compute, messages, presentation
from explorer.ui.compare_models._pair import Pair, Side
from explorer.ui.model_in_use import load
from explorer.ui.progress import progress_bar
from explorer.ui.widgets import show_code

CORPORA = {
    "topics": "Short remarks on four topics (240)",
    "senses": "Sentences with ambiguous words (238)",
}
"""The built-in corpora the page compares the models on, by key."""


def corpus_texts(key: str) -> tuple[str, ...]:
    """The texts of the built-in corpus ``key`` (:data:`CORPORA`)."""
    if key == "senses":
        frame = interleaved(corpora.load_senses(), ["word", "sense"])
    else:
        frame = interleaved(corpora.load_topics(), ["topic"])
    return tuple(frame["text"])  # in turn from every group: a cap keeps them all


def capped(pair: Pair, texts: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """The first ``texts`` within the pair's token cap (:func:`explorer.server.limits.pair_tokens`:
    both tokenizers' counts) and a note when some were left out."""
    models = pair.models()
    budget = limits.pair_tokens(*models)

    def count() -> int:
        return texts_within(*models, texts, budget)

    kept = compute.cached("states", ("pair cap", pair.a.ref, pair.b.tokenizer, texts), count)
    return texts[:kept], limits.pair_note(kept, len(texts), budget)


def tokens_section(pair: Pair, text: str, texts: tuple[str, ...]) -> None:
    """``text`` through both tokenizers, side by side, and their counts over ``texts``."""
    st.subheader("Tokens side by side", anchor=False)
    columns = st.columns(2)
    for column, side, name in zip(columns, (pair.a, pair.b), "AB", strict=True):
        try:
            tokenization = compute.tokenize(side.tokenizer, text)
        except ValueError as error:
            messages.error(error, column)
            continue
        messages.caption(f"Model {name}: {side.label} · {len(tokenization)} tokens", column)
        column.html(token_chips_html(tokenization, show_ids=False))
    stats = [
        compute.cached(
            "states",
            ("token stats", side.tokenizer, texts),
            lambda side=side: token_stats(load(side.tokenizer), texts),
        )
        for side in (pair.a, pair.b)
    ]
    messages.info(token_stats_notice(*stats, pair.a.label, pair.b.label, pair.b.ref.random))
    table = token_stats_table(stats, [f"A: {pair.a.label}", f"B: {pair.b.label}"])
    presentation.table(table, hide_index=True, width="stretch", key="compare.token_stats")
    st.caption(
        f"Over the {len(texts):,} texts of the built-in corpus. Words are each tokenizer's own "
        "that hold a letter or a digit (punctuation is left out); a word is split when it "
        "takes more than one token; an unknown token stands for a word or character the "
        "vocabulary cannot spell."
        + (" Model B uses model A's tokenizer: the rows are the same." if pair.b.ref.random else "")
    )
    show_code(
        tokens_compare_snippet(pair.a.ref, pair.b.ref, text, list(texts)),
        caption="Plain transformers: the text's tokens under both tokenizers, then the counts "
        "of the table.",
    )


def _shared_words(pair: Pair, texts: tuple[str, ...]) -> tuple[tuple[str, ...], WordAlignment]:
    """The first ``texts`` whose words both tokenizers read alike make up :data:`MAX_WORDS`,
    within the CKA's share of the pair's tokens (:func:`explorer.compare.cka_texts`), and the
    alignment of their words (tokenization only)."""
    used, alignment = cka_texts(*pair.models(), texts, limits.pair_tokens(*pair.models()))
    return tuple(used), alignment


def shared_words(pair: Pair, texts: tuple[str, ...]) -> tuple[tuple[str, ...], WordAlignment]:
    """:func:`_shared_words`, cached."""
    return compute.cached(
        "states",
        ("shared words", pair.a.ref, pair.b.ref, texts),
        lambda: _shared_words(pair, texts),
    )


def readings(pair: Pair, texts: tuple[str, ...]) -> tuple[Reading, Reading]:
    """Both models' one reading of the page corpus ``texts``
    (:func:`explorer.compare.read_texts`): the sentence vectors of the maps' texts
    (:func:`capped`) and the word vectors of the CKA's (:func:`shared_words`, the first of
    them), so the two sections run one forward pass per model. Cached in the results pool
    (bytes counted: about 40 MB for a BERT-base-sized model at its caps)."""
    kept, _ = capped(pair, texts)
    _, alignment = shared_words(pair, texts)
    spans = cka_spans(alignment, MAX_WORDS)[: len(kept)]  # the CKA's texts are the first kept

    def read(side: Side, name: str) -> Reading:
        with progress_bar(f"Reading {len(kept):,} texts through model {name}…") as report:
            return read_texts(load(side.ref), kept, spans, report)

    return tuple(
        compute.cached(
            "corpora",
            ("compare reading", side.ref, kept, spans),
            lambda side=side, name=name: read(side, name),
            heavy=True,
        )
        for side, name in ((pair.a, "A"), (pair.b, "B"))
    )


def layers_section(pair: Pair, texts: tuple[str, ...]) -> None:
    """CKA of every layer of A with every layer of B over the words of ``texts``, B's
    best-matching layer for each layer of A, and the code."""
    st.subheader("Layers across the two models", anchor=False)
    used, alignment = shared_words(pair, texts)
    words = min(MAX_WORDS, alignment.shared)
    if words < MAX_WORDS and len(used) < len(texts):  # a costly pair reads fewer words
        messages.info(
            f"Compared {words:,} words of the first {len(used):,} of {len(texts):,} texts "
            f"(CKA takes up to {MAX_WORDS:,}): one comparison runs a capped number of tokens "
            "through each model (fewer for larger models), so it answers within seconds."
        )

    try:
        check_words(alignment.spans)
        matrix = compute.cached_from(
            "states",
            ("cross cka", pair.a.ref, pair.b.ref, used),
            lambda: readings(pair, texts),  # one pass per model, shared with the maps
            lambda both: cross_cka_matrix(both[0].words, both[1].words),
            heavy=lambda _: True,
        )
    except ValueError as error:
        messages.error(error)
        return
    messages.info(cross_cka_notice(matrix, pair.a.label, pair.b.label))
    st.plotly_chart(
        cross_cka_heatmap(matrix, pair.a.label, pair.b.label, presentation.scale()),
        width="stretch",
        key="compare.cka",
    )
    best = matrix.argmax(axis=1)
    depth_a, depth_b = matrix.shape[0] - 1, matrix.shape[1] - 1
    presentation.table(
        pd.DataFrame(
            {
                "A's layer": range(depth_a + 1),
                "B's best layer": best,
                "CKA": matrix[np.arange(len(best)), best].round(3),
                "depth in A": [f"{i / depth_a:.0%}" for i in range(depth_a + 1)],
                "depth in B": [f"{j / depth_b:.0%}" for j in best],
            }
        ),
        hide_index=True,
        width="content",
        key="compare.best",
        column_config={"CKA": st.column_config.NumberColumn("CKA", format="%.3f")},
    )
    dropped = alignment.note()
    from explorer.compare import specials_left_out

    specials = specials_left_out(*pair.models(), used[0])  # as each model writes them
    messages.caption(
        f"Linear CKA (Kornblith et al. 2019) over {words:,} words of the first {len(used):,} "
        f"texts, a word's vector the mean of its pieces ({specials} left out), so two "
        "tokenizers compare the same words. 1: the two layers place the words alike up to a "
        "rotation and scale. Layer 0 is the embedding output." + (f" {dropped}" if dropped else "")
    )
    show_code(
        cross_cka_snippet(pair.a.ref, pair.b.ref, list(used), MAX_WORDS),
        caption="Plain transformers + NumPy: every layer's word vectors under both models, then "
        "CKA of each pair of layers.",
    )
