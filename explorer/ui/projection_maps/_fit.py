"""The Projections page's maps, cached: which points a source gives (:func:`source_points`),
the fitted projector of points (:func:`fit`: a saved corpus's own map when it has one), and how
faithful a map is point by point (the neighbour inspector, neighbourhood preservation)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from explorer import maps
from explorer.choice import VectorChoice
from explorer.maps import ProjectionParams, Projector
from explorer.model.ref import ModelRef
from explorer.server.memo import checkpoint
from explorer.ui.compute import cached, cached_from, cap_tokens, heavy_points
from explorer.ui.projection_maps._points import Points, StorePoints, VectorPoints
from explorer.ui.projection_maps._saved import saved_map_of, saved_points


def source_points(
    model_ref: ModelRef,
    source,
    choice: VectorChoice | None,
    word: str | None,
    params: ProjectionParams | None = None,
):
    """What the Projections page draws of ``source`` (an :class:`explorer.ui.sourcetypes.Source`):
    ``(points, texts, labels, legend title, note)``. Uploaded vectors and saved corpora need no
    forward pass (a saved corpus's own map under ``params`` is drawn when it has one) and are
    drawn as they are; other texts are capped (:func:`explorer.server.limits.cap_tokens`),
    ``note`` saying what was kept, and taken under ``choice`` (None for uploaded vectors),
    post-processed by its ``post`` (``note`` then says what the top rogue dimensions carried
    before and after). Raises ``ValueError`` for texts the tokenizer cannot read or points too
    few for the post-processing."""
    if source.vectors is not None:
        data = source.vectors
        return VectorPoints.of(data), data.texts, data.labels, data.label_title, data.note
    if source.store is not None:
        drawn = choice.replace(post="none")  # a saved corpus is drawn as it was saved
        method, dims = (None, 2) if params is None else (params.method, params.n_components)
        return saved_points(source.store, drawn, method, dims)
    kept = cap_tokens(model_ref, source.data)
    texts = kept.data.texts
    points = Points(model_ref, texts, choice, word)
    note = kept.note
    if choice.post != "none":
        note = " ".join(filter(None, (note, rogue_note(points))))
    return points, texts, kept.data.labels, source.label_title, note


def rogue_note(points: Points) -> str:
    """What the top rogue dimensions carried of the cosines between ``points`` before and
    after their post-processing (the points their own reference), cached."""
    from explorer.explain import LABELS, rogue_sentence, rogue_share

    def sentence(both) -> str:
        raw, processed = both
        before = rogue_share(raw)
        after = rogue_share(processed, dimensions=before.dimensions)
        subject = "texts" if points.word is None else f"occurrences of “{points.word}”"
        lead = (
            f"{LABELS[points.choice.post].split(' (')[0]}, with the statistics of the {len(raw)} "
            f"{subject} on the map"
        )
        return rogue_sentence(before, after, points.choice.post, lead)

    return cached_from(
        "projections",
        ("rogue", points),
        lambda: (points.raw_vectors(), points.vectors()),  # embedded in their own turns
        sentence,
        lambda both: False,  # 2,000 pairs at most (rogue_share's sample)
    )


def fit(points: Points | StorePoints | VectorPoints, params: ProjectionParams) -> Projector:
    """The fitted projector of ``points`` (``embedding_`` is ``(n, n_components)``): for rows
    of a saved map (``points.saved``) in its method and 2-D, the saved coordinates."""
    found = saved_map_of(points, params)  # None: fitted (another layer choice or pooling too)
    if found is not None:
        from explorer.data.store.saved_maps import saved_projector

        return cached(
            "projections",
            ("saved fit", points),
            lambda: saved_projector(found, np.array(points.rows)),
        )
    return cached_from(
        "projections",
        ("fit", points, params),
        points.vectors,  # embedded in their own turn, then mapped in the map's lane
        lambda vectors: params.projector().fit(vectors, lambda done, total: checkpoint()),
        lambda vectors: heavy_points(len(vectors), params.method),
    )


def fitted(points: Points | StorePoints | VectorPoints, params: ProjectionParams) -> Projector:
    """:func:`fit` under a spinner that says what runs (UMAP's first use compiles it)."""
    spinner = (
        "Compiling UMAP (first use only, ~20 s)…"
        if params.method == "umap" and not maps.umap_compiled()
        else f"Running {maps.LABELS[params.method]}…"
    )
    with st.spinner(spinner):
        return fit(points, params)


def preservation(points: Points, params: ProjectionParams, k: int) -> np.ndarray:
    """:func:`explorer.maps.preservation` of the map of ``points``: ``(n,)`` in 0-1."""
    return cached_from(
        "projections",
        ("preservation", points, params, k),
        lambda: (points.vectors(), fit(points, params).embedding_),
        lambda both: maps.preservation(*both, k),
        lambda both: heavy_points(len(both[0])),
        "Comparing every point's neighbours in the full space and on the map…",
    )


def inspect(points: Points, params: ProjectionParams, row: int, k: int) -> maps.Inspection:
    """:func:`explorer.maps.inspect_point` of point ``row`` of the map of ``points``."""
    return maps.inspect_point(points.vectors(), fit(points, params).embedding_, row, k)
