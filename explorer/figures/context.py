"""Figures of the "Word in context" page: a similarity heatmap and similarities by layer."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

SIMILARITY_COLORS = "Reds"
"""Sequential scale: darker = more similar."""

BASELINE_NAME = "Random token pairs (baseline)"


def _escaped(labels: Sequence[str]) -> list[str]:
    """Plotly renders a subset of HTML in labels: user text must not add tags."""
    return [html.escape(str(label), quote=False) for label in labels]


def similarity_heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    hover_labels: Sequence[str] | None = None,
    title: str = "Cosine similarity between occurrences",
    color_range: tuple[float, float] | None = None,
) -> go.Figure:
    """Annotated heatmap of an ``(n, n)`` cosine-similarity matrix.

    ``labels`` (n,) name the rows and columns (short, e.g. ``"#1 the bank vault,"``);
    ``hover_labels`` (n,) are the longer descriptions shown on hover. ``color_range``
    ``(low, high)`` fixes the colour scale; by default it spans the off-diagonal values and 1,
    so the most and least similar pairs stand out even when all cosines are high (the numbers
    in the cells give the absolute values). Row 1 is at the top.
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    n = len(labels)
    if matrix.shape != (n, n):
        raise ValueError(f"Matrix of shape {matrix.shape} does not match {n} labels.")
    hover = _escaped(hover_labels if hover_labels is not None else labels)
    if len(hover) != n:
        raise ValueError(f"Got {len(hover)} hover labels for {n} rows.")
    labels = _escaped(labels)
    if color_range is None:
        off_diagonal = matrix[~np.eye(n, dtype=bool)]
        low = float(off_diagonal.min()) if off_diagonal.size else 0.0
        color_range = (min(low, 0.999), 1.0)
    customdata = np.array([[[hover[i], hover[j]] for j in range(n)] for i in range(n)])
    figure = go.Figure(
        go.Heatmap(
            z=matrix,
            x=list(labels),
            y=list(labels),
            zmin=color_range[0],
            zmax=color_range[1],
            colorscale=SIMILARITY_COLORS,
            colorbar={"title": {"text": "cosine"}},
            texttemplate="%{z:.2f}",
            textfont={"size": 13 if n <= 8 else 10},
            customdata=customdata,
            hovertemplate="%{customdata[0]}<br>vs %{customdata[1]}"
            "<br>cosine similarity: %{z:.3f}<extra></extra>",
        )
    )
    figure.update_layout(
        title={"text": title},
        xaxis={"title": {"text": "Occurrence"}, "tickangle": -45},
        yaxis={"title": {"text": "Occurrence"}, "autorange": "reversed"},
        height=max(380, 120 + 48 * n),
        margin={"t": 60},
    )
    return figure


def layer_similarity_chart(
    similarities: np.ndarray,
    pair_labels: Sequence[str],
    baseline: np.ndarray | None = None,
    pair_hover: Sequence[tuple[str, str]] | None = None,
    title: str = "Similarity of each pair, layer by layer",
) -> go.Figure:
    """One line per pair of occurrences: cosine similarity at layers 0 (embeddings) … L.

    ``similarities`` is ``(L+1, n_pairs)``; ``pair_labels`` (n_pairs,) name the legend entries
    (``"#1 vs #2"``) and ``pair_hover`` (n_pairs,) give the two occurrences' longer labels,
    shown on hover.
    ``baseline`` ``(L+1,)``, the mean similarity of random token pairs, is drawn as a dashed
    grey line.
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    if similarities.ndim != 2 or similarities.shape[1] != len(pair_labels):
        raise ValueError(
            f"Similarities of shape {similarities.shape} do not match {len(pair_labels)} pairs."
        )
    if pair_hover is None:
        pair_hover = [(label, "") for label in pair_labels]
    if len(pair_hover) != len(pair_labels):
        raise ValueError(f"Got {len(pair_hover)} hover entries for {len(pair_labels)} pairs.")
    hover = [_escaped(members) for members in pair_hover]
    layers = np.arange(similarities.shape[0])
    palette = qualitative.Plotly + qualitative.D3[1::2]
    figure = go.Figure()
    for p, label in enumerate(pair_labels):
        figure.add_trace(
            go.Scatter(
                x=layers,
                y=similarities[:, p],
                mode="lines+markers",
                name=html.escape(label, quote=False),
                line={"color": palette[p % len(palette)], "width": 2},
                marker={"size": 6},
                customdata=[hover[p]] * len(layers),
                hovertemplate=f"<b>{html.escape(label)}</b><br>%{{customdata[0]}}"
                "<br>vs %{customdata[1]}<br>layer %{x}: cosine %{y:.3f}<extra></extra>",
            )
        )
    if baseline is not None:
        baseline = np.asarray(baseline, dtype=np.float64)
        if baseline.shape != (similarities.shape[0],):
            raise ValueError(
                f"Baseline of shape {baseline.shape} does not match {len(layers)} layers."
            )
        figure.add_trace(
            go.Scatter(
                x=layers,
                y=baseline,
                mode="lines",
                name=BASELINE_NAME,
                line={"color": "#7f7f7f", "width": 3, "dash": "dash"},
                hovertemplate="Mean cosine of random token pairs (anisotropy)"
                "<br>layer %{x}: %{y:.3f}<extra></extra>",
            )
        )
    figure.update_layout(
        title={"text": title},
        xaxis={"title": {"text": "Layer (0 = embedding output)"}, "dtick": 1},
        yaxis={"title": {"text": "Cosine similarity"}},
        legend={
            "title": {"text": "Pair"},
            "orientation": "h",
            "yanchor": "top",
            "y": -0.22,
            "xanchor": "left",
            "x": 0,
        },
        hovermode="closest",
        height=520,
        margin={"t": 60},
    )
    return figure
