"""Two models compared: the Compare models page's heatmap of every layer of A against every
layer of B (cross-model CKA)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.compare import cross_cka
from explorer.figures.compare import cross_cka_heatmap, cross_cka_notice
from explorer.model import Model
from explorer.plot._common import PROGRESS_MIN_TEXTS, as_model, as_texts, with_notice

RANDOM = "random"
"""``model_b`` for model A's architecture and tokenizer with random (untrained) weights."""


def _default_texts() -> list[str]:
    """The page's default texts: the built-in corpus of short remarks on four topics, taken in
    turn from each topic as the page takes them (:func:`explorer.compare.interleaved`)."""
    from explorer.compare import interleaved
    from explorer.data import corpora

    return interleaved(corpora.load_topics(), ["topic"])["text"].tolist()


def compare(
    model_a: Model | str | None,
    model_b: Model | str | None,
    texts: str | Sequence[str] | None = None,
) -> go.Figure:
    """The Compare models page's heatmap: linear CKA of every layer of ``model_a`` (rows) with
    every layer of ``model_b`` (columns) over the words of ``texts`` both tokenizers read
    alike (the first :data:`explorer.compare.MAX_WORDS`), B's best-matching layer for each
    layer of A ringed, with the page's notice. ``model_b="random"`` is model A with
    random weights (:func:`explorer.model.loading.random_weights`, as the page builds it);
    ``texts`` defaults to the page's, the built-in remarks on four topics. Reading many
    texts shows a progress bar."""
    if isinstance(model_a, str) and model_a == RANDOM:
        raise ValueError('model_a must be a model; only model_b can be "random" (A\'s weights).')
    texts = _default_texts() if texts is None else as_texts(texts)
    if not texts:
        raise ValueError("texts is empty: give at least one text (with two words or more).")
    model_a = as_model(model_a)
    if isinstance(model_b, str) and model_b == RANDOM:
        from explorer.model.loading import random_weights

        model_b = random_weights(model_a)
    else:
        model_b = as_model(model_b)
    if len(texts) < PROGRESS_MIN_TEXTS:
        matrix = cross_cka(model_a, model_b, texts)
    else:
        from tqdm.auto import tqdm

        with tqdm(desc="Reading texts through both models", unit="text") as bar:

            def report(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            matrix = cross_cka(model_a, model_b, texts, progress=report)
    figure = cross_cka_heatmap(matrix, model_a.name, model_b.name)
    return with_notice(figure, cross_cka_notice(matrix, model_a.name, model_b.name))
