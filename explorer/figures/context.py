"""Figures of the "Word in context" page: a similarity heatmap and similarities by layer."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

SIMILARITY_COLORS = "Reds"
"""Sequential scale: darker = more similar."""

BASELINE_NAME = "Random token pairs (baseline)"

SAME_SENSE, DIFFERENT_SENSES = "same sense", "different senses"
"""Trace names of :func:`sense_gap_chart` (the columns of :func:`explorer.context.sense_gap`)."""


def _escaped(labels: Sequence[str]) -> list[str]:
    """Plotly renders a subset of HTML in labels: user text must not add tags."""
    return [html.escape(str(label), quote=False) for label in labels]


def _add_baseline(
    figure: go.Figure,
    layers: np.ndarray,
    baseline: np.ndarray,
    width: int,
    hovertemplate: str,
) -> None:
    """Add the anisotropy baseline ``(L+1,)`` (mean cosine of random token pairs at each of the
    ``layers`` ``(L+1,)``) to ``figure`` as a dashed grey line ``width`` pixels wide."""
    baseline = np.asarray(baseline, dtype=np.float64)
    if baseline.shape != layers.shape:
        raise ValueError(f"Baseline of shape {baseline.shape} does not match {len(layers)} layers.")
    figure.add_trace(
        go.Scatter(
            x=layers,
            y=baseline,
            mode="lines",
            name=BASELINE_NAME,
            line={"color": "#7f7f7f", "width": width, "dash": "dash"},
            hovertemplate=hovertemplate,
        )
    )


def similarity_heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    hover_labels: Sequence[str] | None = None,
    title: str = "Cosine similarity between occurrences",
    color_range: tuple[float, float] | None = None,
    scale: float = 1.0,
) -> go.Figure:
    """Annotated heatmap of an ``(n, n)`` cosine-similarity matrix (``scale`` enlarges the
    numbers in the cells and the figure, for presentation mode).

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
    customdata = np.empty((n, n, 2), dtype=object)  # not fixed-width: labels vary in length
    customdata[:, :, 0] = np.asarray(hover, dtype=object)[:, None]
    customdata[:, :, 1] = np.asarray(hover, dtype=object)[None, :]
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
            textfont={"size": round((13 if n <= 8 else 10) * scale)},
            customdata=customdata,
            hovertemplate="%{customdata[0]}<br>vs %{customdata[1]}"
            "<br>cosine similarity: %{z:.3f}<extra></extra>",
        )
    )
    figure.update_layout(
        title={"text": title},
        xaxis={"title": {"text": "Occurrence"}, "tickangle": -45},
        yaxis={"title": {"text": "Occurrence"}, "autorange": "reversed"},
        height=round(max(380, 120 + 48 * n) * scale),
        margin={"t": 60},
    )
    return figure


def layer_similarity_chart(
    similarities: np.ndarray,
    pair_labels: Sequence[str],
    baseline: np.ndarray | None = None,
    pair_hover: Sequence[tuple[str, str]] | None = None,
    title: str = "Similarity of each pair, layer by layer",
    kinds: Sequence[str] | None = None,
    scale: float = 1.0,
) -> go.Figure:
    """One line per pair of occurrences: cosine similarity at layers 0 (embeddings) … L.
    ``scale``: how much larger the page draws text (presentation mode); the legend's rows are
    that much taller, and the figure grows by them (:func:`pair_chart_height`).

    ``similarities`` is ``(L+1, n_pairs)``; ``pair_labels`` (n_pairs,) name the legend entries
    (``"#1 vs #2"``) and ``pair_hover`` (n_pairs,) give the two occurrences' longer labels,
    shown on hover.
    ``baseline`` ``(L+1,)``, the mean similarity of random token pairs, is drawn as a dashed
    grey line. ``kinds`` (n_pairs,) from :func:`explorer.context.pair_kinds` dot the pairs from
    one sentence and add the kind to each legend entry.
    """
    similarities = np.asarray(similarities, dtype=np.float64)
    if kinds is not None and len(kinds) != len(pair_labels):
        raise ValueError(f"Got {len(kinds)} kinds for {len(pair_labels)} pairs.")
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
        kind = None if kinds is None else kinds[p]
        name = label if kind in (None, "unlabelled") else f"{label} ({kind})"
        figure.add_trace(
            go.Scatter(
                x=layers,
                y=similarities[:, p],
                mode="lines+markers",
                name=html.escape(name, quote=False),
                line={
                    "color": palette[p % len(palette)],
                    "width": 2,
                    "dash": "dot" if kind == "same sentence" else "solid",
                },
                marker={"size": 6},
                customdata=[hover[p]] * len(layers),
                hovertemplate=f"<b>{html.escape(label)}</b><br>%{{customdata[0]}}"
                "<br>vs %{customdata[1]}<br>layer %{x}: cosine %{y:.3f}<extra></extra>",
            )
        )
    if baseline is not None:
        _add_baseline(
            figure,
            layers,
            baseline,
            width=3,
            hovertemplate="Mean cosine of random token pairs (anisotropy)"
            "<br>layer %{x}: %{y:.3f}<extra></extra>",
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
        height=pair_chart_height(len(figure.data), scale),
        # plotly scrolls a horizontal legend past half the figure's height: room for all rows
        legend_maxheight=round((30 + LEGEND_ROW_PX * -(-len(figure.data) // 2)) * scale),
        margin={"t": 60},
    )
    return figure


PAIR_CHART_HEIGHT = 520
"""The pair chart's height in pixels with up to :data:`LEGEND_ROWS` rows of legend."""
LEGEND_ROWS = 8
LEGEND_ROW_PX = 21
"""About one row of the pair chart's legend (two entries side by side in half a page)."""


def pair_chart_height(entries: int, scale: float = 1.0) -> int:
    """The pair chart's height for a legend of ``entries``: beyond :data:`LEGEND_ROWS` rows
    (two entries a row) the figure grows by each row, so the plot keeps its height instead of
    the legend squeezing it and scrolling (12 occurrences are 66 pairs)."""
    rows = -(-entries // 2)
    return round(PAIR_CHART_HEIGHT + LEGEND_ROW_PX * scale * max(0, rows - LEGEND_ROWS))


def sense_gap_chart(
    gap: pd.DataFrame,
    baseline: np.ndarray | None = None,
    word: str = "",
    title: str = "Same sense vs different senses, layer by layer",
) -> go.Figure:
    """Two lines, the mean cosine of same-sense and of different-sense pairs at every layer,
    with the gap between them shaded.

    ``gap`` is :func:`explorer.context.sense_gap`'s table (index layer 0..L; columns ``"same
    sense"``, ``"different senses"``, ``"gap"``); ``baseline`` ``(L+1,)`` the random-pair
    baseline, dashed grey. The hover of each layer gives the gap.
    """
    missing = {SAME_SENSE, DIFFERENT_SENSES, "gap"} - set(gap.columns)
    if missing:
        raise ValueError(f"The gap table lacks the columns {sorted(missing)}.")
    layers = np.asarray(gap.index)
    word = html.escape(word.strip(), quote=False)
    noun = f"“{word}”" if word else "occurrences"
    figure = go.Figure()
    gap_shading = {
        "fill": "tonexty",  # down to the different-senses line, drawn first
        "fillcolor": "rgba(214, 39, 40, 0.15)",
        "customdata": gap["gap"],
    }
    for column, colour, extra, gap_hover in (
        (DIFFERENT_SENSES, "#1f77b4", {}, ""),
        (SAME_SENSE, "#d62728", gap_shading, "<br>gap %{customdata:+.3f}"),
    ):
        figure.add_trace(
            go.Scatter(
                x=layers,
                y=gap[column],
                mode="lines+markers",
                name=f"{column.capitalize()} (mean of pairs of {noun})",
                line={"color": colour, "width": 3},
                marker={"size": 8},
                hovertemplate=f"layer %{{x}}: {column} %{{y:.3f}}{gap_hover}<extra></extra>",
                **extra,
            )
        )
    if baseline is not None:
        _add_baseline(
            figure,
            layers,
            baseline,
            width=2,
            hovertemplate="random token pairs, layer %{x}: %{y:.3f}<extra></extra>",
        )
    # in the right margin, level with the middle of the shaded gap at the last layer: drawn
    # inside the plot it sat on the lines running into that layer
    figure.add_annotation(
        x=1,
        xref="paper",
        y=float(gap[SAME_SENSE].iloc[-1] + gap[DIFFERENT_SENSES].iloc[-1]) / 2,
        text=f"gap {gap['gap'].iloc[-1]:+.2f}",
        showarrow=False,
        xanchor="left",
        xshift=8,
        font={"size": 15, "color": "#d62728"},
    )
    figure.update_layout(
        title={"text": title},
        xaxis={"title": {"text": "Layer (0 = embedding output)"}, "dtick": 1},
        yaxis={"title": {"text": "Mean cosine similarity"}},
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0},
        hovermode="x unified",
        height=440,
        margin={"t": 60, "r": GAP_LABEL_MARGIN},
    )
    return figure


GAP_LABEL_MARGIN = 100
"""Right margin (px) of the sense-gap chart: room for its "gap +0.10" label."""
