"""Maps a store already holds: the coordinates ``explorer project`` saved, ready to draw.

A saved projection covers every row of the store (or the sample it was fitted on), which may be
a million points: too many to draw one by one. :func:`saved_map` returns them all (for a
density layer, :mod:`explorer.figures.density`) and the rows the page draws as points (at most
:data:`MAX_POINTS`, a reproducible random sample of the projected rows), with
a :class:`~explorer.maps.Projector` holding those rows' coordinates, so the page, the
neighbour inspector and Show code treat a saved map like one fitted on the spot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from explorer.choice import VectorChoice
from explorer.data.sampling import MAX_POINTS
from explorer.data.store.corpus import DEFAULT_CHOICE, Corpus
from explorer.maps import (
    LABELS,
    OVERVIEW_POINTS,
    TRUSTWORTHINESS_NEIGHBORS,
    TRUSTWORTHINESS_QUERIES,
    Inspection,
    Projector,
    map_neighbors,
)


@dataclass(frozen=True)
class SavedMap:
    """A saved 2-D projection of a store: ``coords`` ``(points, 2)`` of every projected row,
    ``rows`` the store rows they stand for (``(points,)``), ``shown`` the rows drawn as points
    (sorted, a subset of ``rows``), and the manifest's ``entry`` (method, trustworthiness,
    creation time, ...)."""

    coords: np.ndarray
    rows: np.ndarray
    shown: np.ndarray
    entry: dict

    @property
    def note(self) -> str:
        """What the page drew, in words."""
        if len(self.shown) == len(self.rows):
            return self._described("every one is drawn as a point")
        return self._described(
            f"{len(self.shown):,} of them, drawn at random, are points; the grey shading "
            "counts all of them"
        )

    @property
    def whole_note(self) -> str:
        """What the page drew, in words, when it draws every row in the browser."""
        if len(self.rows) <= OVERVIEW_POINTS:
            return self._described("every one is drawn as a point")
        return self._described(
            f"every one is a point of the map (while the whole map is in view, a sample of "
            f"{OVERVIEW_POINTS:,} that keeps sparse regions is drawn: zoom in to see every "
            "point of a region)"
        )

    def _described(self, drawn: str) -> str:
        method = LABELS.get(self.entry["method"], self.entry["method"])
        of = self.entry.get("of_rows", len(self.rows))
        sample = "" if len(self.rows) == of else f" (a sample of {of:,} rows)"
        when = str(self.entry.get("created", ""))[:10]
        if self.entry.get("fit_sample"):
            sample += f", fitted on a sample of {self.entry['fit_sample']:,} rows"
        return (
            f"Saved {method} coordinates of {len(self.rows):,} rows{sample}, made with "
            f"explorer project{' on ' + when if when else ''}: nothing was fitted now, and "
            f"{drawn}."
        )


def saved_map(
    corpus: Corpus,
    method: str,
    choice: VectorChoice = DEFAULT_CHOICE,
    *,
    max_points: int | None = None,
    seed: int = 0,
) -> SavedMap | None:
    """The saved projection of ``corpus`` under ``method`` and one :class:`explorer.VectorChoice`
    (the mean of the last layer if not given), or ``None`` when ``explorer project`` did not
    save one. ``max_points`` (default :data:`MAX_POINTS`; the app passes its own cap) bounds
    the rows drawn as points."""
    found = corpus.projection(method, choice)
    if found is None:
        return None
    coords, rows = found
    rows = np.arange(len(coords)) if rows is None else np.asarray(rows)
    limit = MAX_POINTS if max_points is None else max_points
    shown = rows
    if len(rows) > limit:
        pick = np.random.default_rng(seed).choice(len(rows), size=limit, replace=False)
        shown = rows[np.sort(pick)]
    entry = corpus.projection_entry(method, choice)
    return SavedMap(coords, rows, np.sort(shown), dict(entry))


def saved_projector(saved: SavedMap, rows: np.ndarray) -> Projector:
    """A fitted-looking :class:`Projector` whose ``embedding_`` holds the saved coordinates of
    store rows ``rows`` (each must be among ``saved.rows``), ``trustworthiness_`` the one
    ``explorer project`` measured on all of them. Raises ``ValueError`` for a row that was not
    projected."""
    rows = np.asarray(rows)
    order = np.argsort(saved.rows)
    where = np.searchsorted(saved.rows, rows, sorter=order)
    where = np.clip(where, 0, len(saved.rows) - 1)
    positions = order[where]
    if not (saved.rows[positions] == rows).all():
        raise ValueError("Some rows are not in the saved projection: run explorer project again.")
    projector = Projector(saved.entry["method"], 2)
    projector.embedding_ = np.ascontiguousarray(saved.coords[positions], dtype=np.float32)
    projector.notes_ = list(saved.entry.get("notes", []))
    projector.explained_variance_ratio_ = None
    projector.n_neighbors_ = projector.perplexity_ = None
    projector.trustworthiness_ = saved.entry.get("trustworthiness")
    # as explorer project measured it: on (at most 2,000 of) every projected row
    projector.trustworthiness_neighbors_ = TRUSTWORTHINESS_NEIGHBORS
    projector.trustworthiness_sample_ = min(len(saved.rows), TRUSTWORTHINESS_QUERIES)
    return projector


def inspect_saved(
    corpus: Corpus,
    saved: SavedMap,
    position: int,
    k: int,
    choice: VectorChoice = DEFAULT_CHOICE,
    *,
    index=None,
) -> Inspection:
    """The neighbourhood of the saved map's point ``position`` (an index into ``saved.rows``):
    its ``k`` nearest store rows in the full space under ``choice`` over every row of the
    store (an exact scan, :meth:`Corpus.neighbors`, or through a saved ``index`` of
    :func:`explorer.data.store.ann.load_index`: candidates re-ranked exactly), and its ``k``
    nearest rows on the map among every projected row. ``row``, ``indices`` and ``on_map`` of
    the :class:`Inspection` are store rows."""
    from explorer.data.store.ann import nearest

    if not 0 <= position < len(saved.rows):
        raise ValueError(f"No point {position}: the map has points 0 to {len(saved.rows) - 1}.")
    row = int(saved.rows[position])
    found = nearest(corpus, row, k, choice, index=index)
    on_map = saved.rows[map_neighbors(saved.coords, position, k)]
    kept = len(set(found.indices.tolist()) & set(on_map.tolist()))
    return Inspection(row, found.indices, found.scores, np.asarray(on_map, dtype=np.int64), kept)


def selection_frame(corpus: Corpus, saved: SavedMap, positions: np.ndarray) -> pd.DataFrame:
    """The saved map's points ``positions`` (indices into ``saved.rows``, in that order) as a
    table: ``row`` (the store row), ``x``, ``y`` (their saved coordinates), then every input
    column of the store (text, label, the others), read from the store."""
    positions = np.asarray(positions, dtype=np.int64).reshape(-1)
    if len(positions) and (positions.min() < 0 or positions.max() >= len(saved.rows)):
        raise ValueError(f"The map has points 0 to {len(saved.rows) - 1}.")
    rows = saved.rows[positions]
    frame = corpus.take(rows)
    coords = np.asarray(saved.coords[positions], dtype=np.float32).reshape(-1, 2)
    frame.insert(1, "x", coords[:, 0])
    frame.insert(2, "y", coords[:, 1])
    return frame
