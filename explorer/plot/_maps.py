"""Maps: the Projections page's picture of sentence vectors (or vectors you bring)."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer import maps
from explorer.data.columns import cut_labels
from explorer.figures.projections import axis_titles, projection_figure, projection_title
from explorer.layers import Layers
from explorer.model import Model
from explorer.plot._common import as_model, as_texts, with_notice
from explorer.plot._sentences import embed


def _fit(vectors: np.ndarray, params: maps.ProjectionParams) -> maps.Projector:
    """The fitted projector of ``vectors``; t-SNE's iterations move a progress bar."""
    if params.method != "tsne":
        return params.projector().fit(vectors)
    from tqdm.auto import tqdm

    with tqdm(desc="t-SNE", unit="step") as bar:

        def report(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        return params.projector().fit(vectors, report)


def projection(
    model_or_vectors: Model | str | None | np.ndarray,
    texts: str | Sequence[str],
    labels: Sequence | None = None,
    method: str = "pca",
    pooling: str = "mean",
    layers: Layers = "last",
    dimensions: int = 2,
    random_state: int = 0,
) -> go.Figure:
    """The Projections page's map of ``texts``: their sentence vectors (``pooling``, the
    layer choice ``layers``) in ``dimensions`` (2 or 3) by ``method`` (``"pca"``,
    ``"umap"`` or ``"tsne"``), coloured by ``labels`` (one per text), with the page's notice.

    ``model_or_vectors`` may be an array ``(len(texts), dim)`` of vectors you computed: they
    are drawn as they are (``pooling`` and ``layers`` then unused) and ``texts`` are their
    hover texts."""
    texts = as_texts(texts)
    if labels is not None and len(labels) != len(texts):
        raise ValueError(f"Got {len(texts)} texts but {len(labels)} labels.")
    maps.validate_method(method)
    if dimensions not in maps.DIMENSIONS:
        raise ValueError(f"dimensions must be one of {maps.DIMENSIONS}, not {dimensions!r}.")
    params = maps.ProjectionParams(method, dimensions, random_state)
    if isinstance(model_or_vectors, np.ndarray):
        vectors = model_or_vectors
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise ValueError(
                f"vectors must be (texts, dimensions), one row per text: got shape "
                f"{vectors.shape} for {len(texts)} texts."
            )
        title = f"{maps.LABELS[method]} of {len(texts):,} vectors ({vectors.shape[1]:,} dimensions)"
        title = html.escape(title)
    else:
        if not texts:
            raise ValueError("No texts: pass at least one text to map.")
        model = as_model(model_or_vectors)
        vectors = embed(model, texts).sentence(pooling, layers)
        first = model.tokenizer.cls_token  # "<s>" for MPNet/RoBERTa
        title = projection_title(
            method, len(texts), layers=layers, pooling=pooling, cls_token=first
        )
    projector = _fit(vectors, params)
    shown = None if labels is None else cut_labels(labels)[0]
    figure = projection_figure(
        projector.embedding_,
        texts,
        shown,
        title=title,
        axes=axis_titles(method, dimensions, projector.explained_variance_ratio_),
        legend_title="Label",
        values_title="",
        share=False,
    )
    notice = maps.map_notice(
        projector.embedding_, shown, trust=projector.trustworthiness_, what="label"
    )
    figure = with_notice(figure, notice)
    if projector.notes_:  # what the method changed (the page shows them as notes)
        figure.update_layout(meta={**figure.layout.meta, "notes": list(projector.notes_)})
    return figure
