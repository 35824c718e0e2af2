"""Figures for the "Similarity & search" page: similarity heatmaps side by side, and the
rank agreement between poolings."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.pooling import POOLING_LABELS

ANNOTATE_UP_TO = 10
"""Write the values into the cells when there are at most this many sentences."""


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


HEIGHTS = {1: 540, 2: 500, 3: 460}
"""Most figure height by number of heatmaps side by side (460 for more)."""

CHART_WIDTH = 1000
"""About how wide the chart is drawn (px) on a wide page (the presentation scale times that
in presentation mode, where the sidebar is folded away)."""

BESIDE = 180
"""Of :data:`CHART_WIDTH`, the px that are not heatmap: the left margin with the "Sentence"
axis title and the colour bar with its title."""

AROUND = 90
"""Figure height (px) above and below the heatmaps' axes: the top margin (title and the
poolings' names) and the bottom margin; the x axis's ticks and title take 60 px more, times
the presentation scale."""

SPACING = 0.04
"""Horizontal space between two heatmaps, as a share of the plotting width."""


def cell_font(sentences: int, panels: int, scale: float = 1.0) -> int:
    """Font size (px) of the numbers in the cells: as large as a cell allows (for a
    projector), at most 22 and at least 10, times ``scale``. A cell is square: the smaller of
    the room each heatmap has across a wide page (about 1,000 px shared, ``scale`` times that
    in presentation mode, where the page is wider) and down the figure (:func:`figure_height`)."""
    n = max(sentences, 1)
    across = 1000 * scale / max(panels, 1) * 0.75 / n
    down = (figure_height(panels, scale) - 140) / n
    return int(max(10 * scale, min(22 * scale, min(across, down) / 2.0)))


def figure_height(panels: int, scale: float = 1.0) -> int:
    """Height (px) of the figure with ``panels`` heatmaps side by side, ``scale`` times larger
    in presentation mode: the heatmaps are square, so no taller than a heatmap is wide on a
    chart :data:`CHART_WIDTH` times ``scale`` wide (plus the room for titles and axes), and
    at most :data:`HEIGHTS`. Four heatmaps on a projector were 621 px high for squares
    about 215 px wide: a 200 px empty band above them."""
    panels = max(panels, 1)
    side = (CHART_WIDTH - BESIDE) * scale * (1 - SPACING * (panels - 1)) / panels
    return int(min(HEIGHTS.get(panels, 460) * scale, side + AROUND + 60 * scale))


def cell_text(value: float) -> str:
    """Two decimals without the leading zero (``0.81`` -> ``.81``, ``-0.02`` -> ``-.02``),
    and ``1`` for 1.00 (the diagonal), so the numbers fit small cells; a value that rounds to
    zero reads ``.00``, never ``-.00``."""
    text = f"{value:.2f}"
    if text == "-0.00":
        text = "0.00"
    if text == "1.00":
        return "1"
    return text.replace("0.", ".", 1) if text.lstrip("-").startswith("0.") else text


def similarity_heatmaps(
    matrices: Mapping[str, np.ndarray],
    sentences: Sequence[str],
    labels: Mapping[str, str] | None = None,
    title: str = "Cosine similarity of every pair of sentences",
    scale: float = 1.0,
) -> go.Figure:
    """One heatmap per pooling, side by side, on one shared colour scale.

    ``matrices[name]`` is ``(n, n)``; sentences are numbered 1..n on the axes and shown in
    full on hover; ``labels`` names the poolings (default :data:`explorer.pooling.POOLING_LABELS`).
    The scale runs from the lowest off-diagonal similarity (or 0) to 1, so a pooling that
    makes every pair look alike shows up as one flat colour. ``scale`` enlarges the numbers in
    the cells, the fonts and the figure (presentation mode: Plotly does not scale pixel sizes
    set in a figure with the page's root font). Pooling names are HTML-escaped (Plotly would
    read a model's ``<s>`` as a strikethrough tag).
    """
    labels = {
        k: html.escape(v, quote=False)
        for k, v in (POOLING_LABELS if labels is None else labels).items()
    }
    names = list(matrices)
    n = len(sentences)
    ticks = [str(i + 1) for i in range(n)]
    off = [pair for m in matrices.values() for pair in np.asarray(m)[~np.eye(n, dtype=bool)]]
    low = float(min(0.0, min(off))) if off else 0.0
    short = [html.escape(_short(s), quote=False) for s in sentences]  # hover labels: HTML
    hover = [[[short[i], short[j]] for j in range(n)] for i in range(n)]
    figure = make_subplots(
        rows=1,
        cols=len(names),
        subplot_titles=[labels.get(name, name) for name in names],
        horizontal_spacing=SPACING,
    )
    for col, name in enumerate(names, start=1):
        matrix = np.asarray(matrices[name])
        figure.add_trace(
            go.Heatmap(
                z=matrix,
                x=ticks,
                y=ticks,
                customdata=hover,
                zmin=low,
                zmax=1.0,
                coloraxis="coloraxis",
                text=[[cell_text(v) for v in row] for row in matrix],
                texttemplate="%{text}" if n <= ANNOTATE_UP_TO else None,
                textfont={"size": cell_font(n, len(names), scale)},
                name=labels.get(name, name),
                hovertemplate=(
                    f"<b>{labels.get(name, name)}</b><br>%{{y}}: %{{customdata[0]}}<br>"
                    "%{x}: %{customdata[1]}<br>cosine %{z:.3f}<extra></extra>"
                ),
            ),
            row=1,
            col=col,
        )
        every = {"tickmode": "array", "tickvals": ticks} if n <= 20 else {}
        figure.update_xaxes(title_text="Sentence", row=1, col=col, constrain="domain", **every)
        figure.update_yaxes(
            autorange="reversed",
            constrain="domain",
            constraintoward="top",  # any height to spare goes below, not between name and map
            scaleanchor=f"x{col if col > 1 else ''}",
            row=1,
            col=col,
            title_text="Sentence" if col == 1 else None,
            **every,
        )
    figure.update_layout(
        title=title,
        coloraxis={
            "colorscale": "Viridis",
            "cmin": low,
            "cmax": 1.0,
            "colorbar": {"title": "cosine"},
        },
        margin={"t": 80, "b": 10},
        font={"size": round(14 * scale)},
        height=figure_height(len(names), scale),
    )
    return figure


def agreement_figure(
    table: pd.DataFrame,
    labels: Mapping[str, str] | None = None,
    title: str = "Do the poolings rank sentence pairs alike? (Spearman ρ)",
) -> go.Figure:
    """Heatmap of the Spearman correlations between poolings (``k x k`` table); a ``nan``
    cell (a pooling that cannot rank the pairs) reads "cannot rank".

    ``labels`` names the poolings (default :data:`explorer.pooling.POOLING_LABELS`),
    HTML-escaped for Plotly.
    """
    labels = dict(POOLING_LABELS if labels is None else labels)
    names = [html.escape(labels.get(str(name), str(name)), quote=False) for name in table.index]
    values = table.to_numpy(dtype=float)
    # no ρ for a pooling whose pairs all show the same value: it cannot rank them
    text = np.where(np.isnan(values), "cannot rank", np.char.mod("%.2f", np.nan_to_num(values)))
    figure = go.Figure(
        go.Heatmap(
            z=values,
            x=names,
            y=names,
            zmin=-1.0,
            zmax=1.0,
            colorscale="RdBu",
            text=text,
            texttemplate="%{text}",
            colorbar={"title": "ρ"},
            name="Spearman ρ",
            hovertemplate="%{y} vs %{x}<br>Spearman ρ %{z:.3f}<extra></extra>",
        )
    )
    figure.update_layout(
        title=title,
        xaxis={"title": "Pooling"},
        yaxis={"title": "Pooling", "autorange": "reversed"},
        margin={"t": 60, "b": 10},
        height=360,
    )
    return figure
