"""Is each label one group on the map, or many small clumps? (issue 33.4)

A high neighbour agreement (most of a point's nearest map neighbours share its label) is what
a map of clear groups gives, but also what a map gives where every label is broken into many
small tight clumps scattered among the other labels' clumps: UMAP with few neighbours does
this to data with much local structure (3,000 support tickets of five queues on the
second-to-last layer gave 100% agreement over dozens of interleaved clumps, while PCA showed
the five queues as five regions).

The measure, cheap and without a parameter to tune per map: link every point to those of its
:data:`CLUMP_NEIGHBOURS` nearest points on the map that share its label, and take the
connected components of that graph (:func:`scipy.sparse.csgraph.connected_components`). A
label forming one group gives one large component (plus a few stray points); a label split
into clumps gives one component per clump. Per label: ``clumps``, the components holding at
least :data:`MIN_CLUMP_SHARE` of its points (and at least 3 points: strays are not clumps),
and ``largest``, the share of its points in its largest component. A label is *split* when its
largest component holds less than :data:`MAIN_GROUP_SHARE` of its points and it has at least
:data:`MIN_CLUMPS` clumps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer._markup import shorten

CLUMP_NEIGHBOURS = 10
"""Map neighbours each point is linked to (when they share its label)."""

MIN_CLUMP_SHARE = 0.05
"""Smallest share of a label's points a component must hold to count as a clump."""

MAIN_GROUP_SHARE = 0.5
"""A label whose largest component holds less than this share of its points has no main
group."""

MIN_CLUMPS = 3
"""Fewest clumps of a label called split."""


@dataclass(frozen=True)
class Clumps:
    """One label on the map: its ``points``, ``clumps`` (components of at least
    :data:`MIN_CLUMP_SHARE` of them, and 3 points) and ``largest`` (share of its points in its
    largest component)."""

    label: str
    points: int
    clumps: int
    largest: float

    @property
    def split(self) -> bool:
        """No main group and at least :data:`MIN_CLUMPS` clumps."""
        return self.largest < MAIN_GROUP_SHARE and self.clumps >= MIN_CLUMPS


def label_clumps(
    coords: np.ndarray, labels, k: int = CLUMP_NEIGHBOURS, names: list[str] | None = None
) -> list[Clumps]:
    """:class:`Clumps` of every label of ``labels`` (one per row of ``coords (n, 2|3)``), in
    order of first appearance. With ``names``, ``labels`` are integer codes into it (as
    :func:`explorer.maps._quality.label_codes` gives). Labels are compared as integer codes,
    never as a fixed-width string array (one long label would widen every element). Raises
    ``ValueError`` for mismatched lengths or fewer than 2 points."""
    import pandas as pd
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    from sklearn.neighbors import NearestNeighbors

    coords = np.asarray(coords, dtype=np.float64)
    if names is None:
        cells = np.empty(len(labels), dtype=object)
        cells[:] = [str(label) for label in labels]
        codes, found_names = pd.factorize(cells)
        names = [str(name) for name in found_names]
    else:
        codes = np.asarray(labels, dtype=np.int64)
    labels_of = list(names)
    names = codes
    n = len(coords)
    if n < 2 or len(names) != n:
        raise ValueError(
            f"Expected 2 or more points with one label each, got {n} and {len(names)}."
        )
    k = min(int(k), n - 1)
    found = NearestNeighbors(n_neighbors=k).fit(coords).kneighbors(return_distance=False)
    rows = np.repeat(np.arange(n), k)
    columns = found.ravel()
    keep = names[rows] == names[columns]
    graph = csr_matrix((np.ones(int(keep.sum())), (rows[keep], columns[keep])), shape=(n, n))
    _, component = connected_components(graph, directed=False)
    result = []
    for label in np.unique(names):
        mine = component[names == label]
        sizes = np.bincount(mine)
        sizes = sizes[sizes > 0]
        floor = max(3, MIN_CLUMP_SHARE * len(mine))
        result.append(
            Clumps(
                labels_of[int(label)], len(mine), int((sizes >= floor).sum()),
                sizes.max() / len(mine),
            )
        )  # fmt: skip
    return result


def clumps_sentence(
    clumps: list[Clumps], what: str = "label", method: str | None = None, whats: str | None = None
) -> str | None:
    """The verdict for a map whose labels holding at least half the points are split
    (:attr:`Clumps.split`), naming the most split one and what to try with the map's
    ``method`` (``"pca"``, ``"umap"``, ``"tsne"`` or ``None``); ``None`` otherwise. ``whats``:
    the plural of ``what`` (default ``what + "s"``)."""
    whats = what + "s" if whats is None else whats
    split = [c for c in clumps if c.split]
    total = sum(c.points for c in clumps)
    if not split or sum(c.points for c in split) < total / 2:
        return None
    worst = max(split, key=lambda c: (c.clumps, -c.largest))
    how_many = (
        f"all {len(clumps)}" if len(split) == len(clumps) else f"{len(split)} of the {len(clumps)}"
    )
    return (
        f"but {how_many} {whats} are each broken into many small clumps "
        f"rather than one group (“{shorten(worst.label)}” into {worst.clumps}, the largest with "
        f"{worst.largest:.0%} of its points), so the {whats} do not form clear groups here. "
        + TRY.get(method or "", TRY[""])
    )


TRY = {
    "": "Try PCA, or UMAP with more neighbours, to see whether the clumps belong together",
    "umap": "Try more neighbours, or PCA, to see whether the clumps belong together",
    "tsne": "Try UMAP with more neighbours, or PCA, to see whether the clumps belong together",
    "pca": "PCA keeps the large-scale layout, so these clumps are in the vectors themselves",
}
"""What to try when the labels are split, by the map's method."""
