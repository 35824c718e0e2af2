"""What the Attention page draws: the layer x head overview, one head large, the head view
(lines between two columns of tokens), raw vs norm-weighted vs rollout, and the masked-LM lens.

Pure functions of arrays. Plotly renders HTML in labels, so every token label goes through
:func:`html.escape`. Long inputs are pooled into blocks of tokens (:func:`pool`) so a figure
stays small whatever the length.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.attention import Lens

COLOURS = "Blues"
WITHIN = "#2563eb"
ACROSS = "#ea580c"

LABELS = {
    "entropy": "entropy (bits)",
    "cls": "on [CLS]",
    "sep": "on [SEP]",
    "self": "on itself",
    "previous": "on previous",
    "next": "on next",
    "punctuation": "on punctuation",
}
"""Readable names of :data:`explorer.attention._weights.STATISTICS`."""


def labels(tokens: Sequence[str]) -> list[str]:
    """Token labels safe for plotly (HTML-escaped)."""
    return [html.escape(str(t), quote=False) for t in tokens]


def pool(matrix: np.ndarray, size: int) -> tuple[np.ndarray, list[int]]:
    """Pool the last two axes (queries x keys) into at most ``size`` blocks of tokens each.

    Rows of a block are averaged and columns summed, so rows still sum to 1. Returns the
    pooled array and the first token index of each block.
    """
    n = matrix.shape[-1]
    if n <= size:
        return matrix, list(range(n))
    starts = np.linspace(0, n, size + 1).astype(int)[:-1]
    rows = np.add.reduceat(matrix, starts, axis=-2) / np.diff([*starts, n])[:, None]
    return np.add.reduceat(rows, starts, axis=-1), starts.tolist()


def _block_labels(tokens: Sequence[str], starts: list[int]) -> list[str]:
    if len(starts) == len(tokens):
        return labels(tokens)
    ends = [*starts[1:], len(tokens)]
    return [
        f"{html.escape(tokens[a], quote=False)}… ({a}-{b - 1})"
        for a, b in zip(starts, ends, strict=True)
    ]


def overview_grid(attentions: np.ndarray, max_tokens: int = 24) -> go.Figure:
    """Every layer x head as a small heatmap, in one image (rows = layers, columns = heads).

    ``attentions`` ``(layers, heads, tokens, tokens)``; inputs longer than ``max_tokens`` are
    pooled (:func:`pool`). Darker = more attention from the row's token to the column's.
    """
    layers, heads = attentions.shape[:2]
    pooled, _ = pool(np.asarray(attentions, dtype=np.float32), max_tokens)
    n = pooled.shape[-1]
    cell = n + 1
    image = np.full((layers * cell - 1, heads * cell - 1), np.nan, dtype=np.float32)
    for layer in range(layers):
        for head in range(heads):
            image[layer * cell : layer * cell + n, head * cell : head * cell + n] = pooled[
                layer, head
            ]
    centres = [i * cell + (n - 1) / 2 for i in range(max(layers, heads))]
    figure = go.Figure(
        go.Heatmap(
            z=np.round(image, 3),
            colorscale=COLOURS,
            zmin=0,
            zmax=1,
            hoverinfo="skip",
            # Under the grid, centred as the grid is: the cells are square, so a grid as high
            # as the figure is narrower than the chart, and a bar at the chart's right edge
            # stood a wide gap away from it.
            colorbar={
                "title": {"text": "weight", "side": "top"},
                "thickness": 12,
                "orientation": "h",
                "x": 0.5,
                "xanchor": "center",
                "y": -0.02,
                "yanchor": "top",
                "len": 0.3,
            },
        )
    )

    def ticks(count: int, name: str) -> dict:
        """A tick "<name> 1" … "<name> count" at the centre of each block, no grid."""
        text = [f"{name} {i + 1}" for i in range(count)]
        return {"tickvals": centres[:count], "ticktext": text, "showgrid": False, "zeroline": False}

    figure.update_xaxes(side="top", constrain="domain", **ticks(heads, "head"))
    figure.update_yaxes(autorange="reversed", scaleanchor="x", **ticks(layers, "layer"))
    figure.update_layout(
        height=max(320, 60 * layers + 80) + 60, margin={"l": 60, "r": 10, "t": 50, "b": 70}
    )
    return figure


def _attention_heatmap(
    matrix: np.ndarray, tokens: Sequence[str], max_tokens: int, **style
) -> tuple[go.Heatmap, list[str]]:
    """A heatmap of one ``(tokens, tokens)`` attention matrix pooled into at most
    ``max_tokens`` blocks (rows = attending token, at x and y 0, 1, …), hover naming both
    blocks, and the blocks' labels for the ticks; ``style`` goes to ``go.Heatmap``."""
    pooled, starts = pool(np.asarray(matrix, dtype=np.float32), max_tokens)
    names = _block_labels(list(tokens), starts)
    positions = list(range(len(names)))
    trace = go.Heatmap(
        z=np.round(pooled, 4),
        x=positions,
        y=positions,
        colorscale=COLOURS,
        zmin=0,
        customdata=np.array([[(q, k) for k in names] for q in names], dtype=object),
        hovertemplate="%{customdata[0]} → %{customdata[1]}: %{z:.3f}<extra></extra>",
        **style,
    )
    return trace, names


def head_heatmap(
    matrix: np.ndarray,
    tokens: Sequence[str],
    title: str = "",
    max_tokens: int = 128,
    scale: float = 1.0,
) -> go.Figure:
    """One ``(tokens, tokens)`` attention matrix large: rows = the attending token (query),
    columns = the token attended to. Longer inputs than ``max_tokens`` are pooled. ``scale``
    enlarges the token labels and the rows they label (presentation mode)."""
    trace, names = _attention_heatmap(matrix, tokens, max_tokens)
    positions = list(range(len(names)))
    figure = go.Figure(trace)
    axis = {
        "tickvals": positions,
        "ticktext": names,
        "showgrid": False,
        "tickfont": {"size": round(10 * scale)},
    }
    figure.update_xaxes(title="attended to", side="top", **axis)
    figure.update_yaxes(title="attending token", autorange="reversed", **axis)
    side = max(420, min(round(900 * scale), round(14 * scale * len(names)) + 160))
    figure.update_layout(title=title, height=side, margin={"l": 10, "r": 10, "t": 90, "b": 10})
    return figure


def head_view(
    matrix: np.ndarray,
    tokens: Sequence[str],
    segments: Sequence[int] | None = None,
    focus: int | None = None,
    min_weight: float = 0.05,
    max_lines: int = 600,
    scale: float = 1.0,
) -> go.Figure:
    """Tokens in two columns (left attends, right is attended to), one line per weight of
    at least ``min_weight`` (the ``max_lines`` strongest), width and opacity growing with the
    weight. Lines between the two segments of a pair are orange. ``focus`` (a token index)
    keeps only that token's lines, from it and to it. ``scale`` enlarges the labels and the
    spacing between them (presentation mode)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    font = round(HEAD_VIEW_FONT * scale)
    n = matrix.shape[0]
    segments = list(segments) if segments is not None else [0] * n
    query, key = np.nonzero(matrix >= min_weight)
    if focus is not None:
        keep = (query == focus) | (key == focus)
        query, key = query[keep], key[keep]
    order = np.argsort(-matrix[query, key])[:max_lines]
    query, key = query[order], key[order]
    weights = matrix[query, key]
    cross = np.array([segments[q] != segments[k] for q, k in zip(query, key, strict=True)], bool)
    figure = go.Figure()
    for level in (0.25, 0.5, 0.75, 1.0):
        for across, colour in ((False, WITHIN), (True, ACROSS)):
            pick = (weights <= level) & (weights > level - 0.25) & (cross == across)
            if not pick.any():
                continue
            xs, ys = [], []
            for q, k in zip(query[pick], key[pick], strict=True):
                xs += [0, 1, None]
                ys += [q, k, None]
            figure.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    line={"color": colour, "width": 1 + 5 * level},
                    opacity=min(1.0, 0.15 + 0.85 * level),
                )
            )
    names = labels(tokens)
    colours = ["#b91c1c" if focus == i else "#111827" for i in range(n)]
    # each column's labels sit outside the lines (left of the left column, right of the right
    # one), in margins as wide as the longest label, so the lines use the rest of the width
    for x, side in ((0, "left"), (1, "right")):
        figure.add_trace(
            go.Scatter(
                x=[x] * n,
                y=list(range(n)),
                mode="markers+text",
                text=names,
                textposition=f"middle {side}",
                cliponaxis=False,
                marker={"size": 4, "color": colours},
                textfont={"color": colours, "size": font},
                showlegend=False,
                hovertemplate="%{text}<extra></extra>",
            )
        )
    margin = label_width(tokens, font) + 16
    figure.update_xaxes(visible=False, range=[-0.01, 1.01])
    figure.update_yaxes(visible=False, autorange="reversed")
    figure.update_layout(
        height=round(max(300, 18 * n + 60) * scale),
        margin={"l": margin, "r": margin, "t": 10, "b": 10},
    )
    return figure


HEAD_VIEW_FONT = 12
"""Font size (px) of the head view's token labels."""


def label_width(tokens: Sequence[str], font_size: int = HEAD_VIEW_FONT) -> int:
    """Pixels the longest of ``tokens`` takes as a label (0.62 em a character: wide enough for
    the sans-serif font Plotly uses, so a label never reaches the lines)."""
    longest = max((len(str(t)) for t in tokens), default=0)
    return int(np.ceil(0.62 * font_size * longest))


def comparison(
    raw: np.ndarray,
    weighted: np.ndarray,
    rolled: np.ndarray,
    tokens: Sequence[str],
    max_tokens: int = 64,
    scale: float = 1.0,
) -> go.Figure:
    """Raw attention, norm-weighted attention and rollout side by side, each ``(tokens,
    tokens)`` with rows summing to 1 (rows = attending token, columns = attended to).
    ``scale`` enlarges the token labels and the rows they label (presentation mode)."""
    font = {"size": round(9 * scale)}
    titles = ("Raw attention", "Norm-weighted", "Rollout")
    figure = make_subplots(rows=1, cols=3, subplot_titles=titles, horizontal_spacing=0.06)
    for col, matrix in enumerate((raw, weighted, rolled), start=1):
        trace, names = _attention_heatmap(matrix, tokens, max_tokens, zmax=1, showscale=col == 3)
        positions = list(range(len(names)))
        figure.add_trace(trace, row=1, col=col)
        figure.update_xaxes(tickvals=positions, ticktext=names, tickfont=font, row=1, col=col)
        figure.update_yaxes(
            tickvals=positions,
            ticktext=names if col == 1 else [""] * len(names),
            tickfont=font,
            autorange="reversed",
            row=1,
            col=col,
        )
    figure.update_layout(
        height=max(380, min(round(800 * scale), round(10 * scale * len(positions)) + 200)),
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
    )
    return figure


def statistic_labels(cls: str = "[CLS]", sep: str = "[SEP]") -> dict[str, str]:
    """:data:`LABELS` naming the special tokens as the model writes them (``"on <s>"``)."""
    return {**LABELS, "cls": f"on {cls}", "sep": f"on {sep}"}


def statistics_table(stats: pd.DataFrame, labels: dict[str, str] | None = None) -> pd.DataFrame:
    """The head-statistics table with readable column names (``labels``, default
    :data:`LABELS`; see :func:`statistic_labels`), shares rounded to 3 digits."""
    return stats.rename(columns=labels or LABELS).round(3)


def lens_table(lens: Lens, mask: int = 0) -> pd.DataFrame:
    """One row per layer (0 = embeddings): the top tokens for mask number ``mask`` with their
    probabilities, as ``"token (0.42)"`` strings (plain text, for ``st.dataframe``)."""
    rows = {}
    for layer, (top, probs) in enumerate(zip(lens.top_tokens, lens.probabilities, strict=True)):
        rows[f"layer {layer}"] = [
            f"{t} ({p:.2f})" for t, p in zip(top[mask], probs[mask], strict=True)
        ]
    k = lens.probabilities.shape[-1]
    return pd.DataFrame.from_dict(rows, orient="index", columns=[f"#{i + 1}" for i in range(k)])


def lens_figure(lens: Lens, mask: int = 0, k: int = 5) -> go.Figure:
    """Layers (rows, 0 = embeddings) x rank (columns): each cell the token the head predicts
    at that layer for mask number ``mask``, coloured by its probability."""
    probs = lens.probabilities[:, mask, :k]
    words = [[html.escape(t, quote=False) for t in top[mask][:k]] for top in lens.top_tokens]
    layers = [f"layer {i}" for i in range(len(words))]
    figure = go.Figure(
        go.Heatmap(
            z=np.round(probs, 4),
            x=[f"#{i + 1}" for i in range(probs.shape[1])],
            y=layers,
            text=words,
            texttemplate="%{text}",
            colorscale="Greens",
            zmin=0,
            zmax=1,
            hovertemplate="%{y}, %{x}: %{text} (%{z:.3f})<extra></extra>",
            colorbar={"title": "probability", "thickness": 12},
        )
    )
    figure.update_yaxes(autorange="reversed")
    figure.update_layout(height=60 + 28 * len(layers), margin={"l": 10, "r": 10, "t": 20, "b": 10})
    return figure
