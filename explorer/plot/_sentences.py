"""Whole sentences: the Similarity page's heatmaps and the Which layer? page's probe."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from tqdm.auto import tqdm

from explorer.choice import VectorChoice
from explorer.embeddings import CorpusEmbeddings, embed_corpus
from explorer.figures.probe import layer_accuracy_figure
from explorer.figures.similarity import similarity_heatmaps
from explorer.layers import Layers, layers_label
from explorer.model import Model
from explorer.plot._common import as_model, as_texts, progress, with_notice
from explorer.pooling import POOLING_LABELS, pooling_labels
from explorer.probing import MAX_ROWS, best_layers, plan_folds
from explorer.probing.control import control_notice
from explorer.probing.scores import probe_notice, score_layers
from explorer.similarity import MAX_SENTENCES, similarity_matrices, similarity_notice

MIN_SENTENCES = 3
"""Fewest sentences the comparison takes (fewer leave no pairs to rank)."""


def embed(model: Model, texts: Sequence[str]) -> CorpusEmbeddings:
    """:func:`explorer.embed_corpus` of ``texts``, with a progress bar for many texts."""
    with progress(len(texts), "Embedding") as report:
        return embed_corpus(model, list(texts), report)


def poolings_of(pooling: str | Sequence[str]) -> list[str]:
    """One pooling name or several, as a list."""
    return [pooling] if isinstance(pooling, str) else list(pooling)


def similarity(
    model: Model | str | None,
    texts: str | Sequence[str],
    pooling: str | Sequence[str] = "mean",
    layers: Layers = "last",
) -> go.Figure:
    """The Similarity page's heatmaps: the cosine of every two of ``texts`` (3 to
    :data:`explorer.similarity.MAX_SENTENCES`) under each pooling of ``pooling`` (one name or
    several, side by side) and the layer choice ``layers``, with the page's notice."""
    model = as_model(model)
    texts = as_texts(texts)
    if len(texts) < MIN_SENTENCES:
        raise ValueError(
            f"{len(texts)} text(s): compare at least {MIN_SENTENCES} so there are pairs to rank."
        )
    if len(texts) > MAX_SENTENCES:  # before the model runs
        raise ValueError(
            f"{len(texts)} texts: the heatmaps take at most {MAX_SENTENCES}; "
            "pass fewer (or use explorer.plot.projection for a map of many)."
        )
    poolings = poolings_of(pooling)
    matrices = similarity_matrices(embed(model, texts), poolings, layers)
    labels = pooling_labels(model.tokenizer.cls_token)
    figure = similarity_heatmaps(
        matrices,
        texts,
        POOLING_LABELS,
        title=f"Cosine similarity of every pair of sentences · {layers_label(layers)}",
    )
    return with_notice(figure, similarity_notice(matrices, labels, VectorChoice(layers=layers)))


def probe(
    model: Model | str | None,
    texts: str | Sequence[str],
    labels: Sequence,
    pooling: str | Sequence[str] = "mean",
    folds: int = 5,
) -> go.Figure:
    """The Which layer? page's chart: how well a linear probe reads ``labels`` (one per text)
    from the sentence vectors of ``texts`` (``pooling``, one name or several) at every layer,
    ``folds``-fold cross-validated, against the majority-class baseline, with the page's
    notice. Probing every layer shows a progress bar."""
    model = as_model(model)
    texts = as_texts(texts)
    if len(labels) != len(texts):
        raise ValueError(f"Got {len(texts)} texts but {len(labels)} labels.")
    if len(texts) > MAX_ROWS:
        raise ValueError(f"{len(texts):,} texts: the probe takes at most {MAX_ROWS:,}.")
    plan = plan_folds([str(label).strip() for label in labels], None, folds, texts=texts)
    corpus = embed(model, texts)
    scores = []
    for name in poolings_of(pooling):
        stack = corpus.per_layer(name)  # validates the pooling
        with tqdm(total=len(stack), desc=f"Probing every layer ({name})", unit="layer") as bar:
            found = score_layers(
                stack, plan, lambda done, total: bar.update(done - bar.n), control=True
            )
        scores.append(found.assign(features=name))
    if not scores:
        raise ValueError("No pooling: name at least one.")
    table = pd.concat(scores, ignore_index=True)
    labels_for = pooling_labels(model.tokenizer.cls_token)  # the model's own first token
    figure = layer_accuracy_figure(
        table,
        plan.baseline,
        labels_for,
        title=f"How well a linear probe reads the label, layer by layer "
        f"({len(texts)} texts, {plan.folds}-fold CV)",
    )
    best = best_layers(table)
    top = best.iloc[0]["features"]
    notice = probe_notice(best, labels_for, "label") + " "
    notice += control_notice(table[table["features"] == top], labels_for.get(top, top))
    figure = with_notice(figure, notice)
    if plan.notes:
        figure.update_layout(meta={**figure.layout.meta, "notes": list(plan.notes)})
    return figure
