"""Clusters with names on the Projections map: k-means of the full-space vectors (k by
silhouette, :mod:`explorer.maps`), named by their most distinctive words, a CSV of every
point with its cluster, and their "Show code"."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from explorer.ui.compute import cached, heavy_points


def clusters(points, texts: Sequence[str]) -> tuple[list[str], np.ndarray, dict[int, str]]:
    """k-means clusters of the points' full-space vectors (k chosen by silhouette), named by
    their most distinctive words: ``(legend label per point, cluster ids, names)``."""
    from explorer.maps import cluster, cluster_labels, cluster_names

    def compute():
        found = cluster(points.vectors(), "kmeans", None)
        names = cluster_names(texts, found.labels)
        return cluster_labels(found.labels, names), found.labels, names

    return cached(
        "projections",
        ("clusters", points),
        compute,
        "Clustering the vectors…",
        heavy_points(len(texts)),
    )


def cluster_download(coords, texts: Sequence[str], ids, names: dict[int, str]) -> None:
    """A CSV of every point: text, map coordinates, cluster id and cluster name."""
    from explorer.ui.widgets import csv_download

    frame = pd.DataFrame({"text": list(texts)})
    for axis in range(coords.shape[1]):
        frame[f"x{axis + 1}"] = coords[:, axis]
    frame["cluster"] = ids
    frame["cluster_name"] = [names.get(int(c), "noise") for c in ids]
    csv_download(
        st, "Points with clusters (.csv)", frame, "clusters.csv", "projections.clusters_csv"
    )
