"""The layers-in-motion figure: one map per layer, a layer slider and a play button.

Built on Plotly's animation frames: the figure's traces show layer 0, and ``frames[i]``
moves every point to its position in layer ``i`` (only ``x``/``y`` change, so each point's
hover text and colour are sent once). Axis ranges are fixed over all frames so the picture
does not rescale under the points. Hover texts are HTML-escaped as on the other maps.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer._markup import escape_plotly
from explorer._shown import extremes, join
from explorer.figures.projections import UNLABELLED, _groups, _hovers, palette
from explorer.maps import LABELS

WEBGL_ABOVE = 1000
"""Above this many points the frames are drawn with WebGL (``Scattergl``)."""

FRAME_MS = 700
"""Milliseconds per layer when playing."""

TRAIL_COLOUR = "#444444"


def layer_names(num_frames: int) -> list[str]:
    """``["0 (embeddings)", "1", ..., "L"]``: the slider's labels."""
    return ["0 (embeddings)", *(str(i) for i in range(1, num_frames))]


def _ranges(frames: np.ndarray) -> list[list[float]]:
    low, high = frames.min(axis=(0, 1)), frames.max(axis=(0, 1))
    pad = np.maximum((high - low) * 0.05, 1e-6)
    return [[float(a), float(b)] for a, b in zip(low - pad, high + pad, strict=True)]


def _trail_xy(frames: np.ndarray, rows: Sequence[int]) -> tuple[list, list]:
    """Each selected point's path through the layers, paths separated by ``None``."""
    xs: list = []
    ys: list = []
    for row in rows:
        xs += [*frames[:, row, 0].tolist(), None]
        ys += [*frames[:, row, 1].tolist(), None]
    return xs, ys


def animated_map(
    frames: np.ndarray,
    texts: Sequence[str],
    labels: Sequence[str] | None = None,
    *,
    spans: Sequence[tuple[int, int] | None] | None = None,
    title: str = "",
    trails: Sequence[int] | None = None,
    legend_title: str = "Label",
    frame_names: Sequence[str] | None = None,
    axes: Sequence[str] = ("1", "2"),
    webgl: bool | None = None,
) -> go.Figure:
    """A 2-D map that moves through the layers: ``frames`` ``(L + 1, n, 2)``.

    ``texts[i]`` is point i's hover text (``spans[i]``, a character range, in bold); points
    are coloured by ``labels`` (a legend entry each; one colour without labels) and carry
    their row index in ``customdata``. The figure has ``L + 1`` animation frames named by
    ``frame_names`` (default :func:`layer_names`), a slider "Layer" and a play button.
    ``trails`` lists rows whose path through all layers is drawn as a line (the path stays
    while the points move along it). ``axes`` are the axis titles; ``title`` is used as is
    (escape user text in it). ``webgl`` (default: above :data:`WEBGL_ABOVE` points) draws
    with ``Scattergl``. Raises ``ValueError`` for mismatched shapes.
    """
    frames = np.asarray(frames, dtype=np.float64)
    if frames.ndim != 3 or frames.shape[2] != 2:
        raise ValueError(f"Expected frames (layers, points, 2), got shape {frames.shape}.")
    num_frames, n, _ = frames.shape
    if num_frames < 1:
        raise ValueError("There are no frames to draw.")
    if len(texts) != n:
        raise ValueError(f"Got {n} points but {len(texts)} texts.")
    names = list(frame_names) if frame_names is not None else layer_names(num_frames)
    if len(names) != num_frames:
        raise ValueError(f"Got {num_frames} frames but {len(names)} frame names.")
    trails = [int(r) for r in trails or ()]
    if any(not 0 <= r < n for r in trails):
        raise ValueError(f"Trail rows must be between 0 and {n - 1}.")
    webgl = n > WEBGL_ABOVE if webgl is None else webgl
    scatter = go.Scattergl if webgl else go.Scatter
    hovers = _hovers(texts, spans)
    groups = _groups(labels, n)
    colours = dict(zip(groups, palette(len(groups)), strict=True))

    def points(layer: int) -> list:
        return [
            scatter(x=frames[layer, rows, 0], y=frames[layer, rows, 1]) for rows in groups.values()
        ]

    traces = []
    for (label, rows), trace in zip(groups.items(), points(0), strict=True):
        labelled = label != UNLABELLED
        trace.update(
            name=escape_plotly(label),
            showlegend=labelled,
            mode="markers",
            customdata=rows,
            text=[hovers[i] for i in rows],
            hovertemplate=("<i>%{fullData.name}</i><br>" if labelled else "")
            + "(%{x:.2f}, %{y:.2f})<br>%{text}<extra></extra>",
            marker={"size": 8, "color": colours[label], "opacity": 0.85},
        )
        traces.append(trace)
    if trails:
        xs, ys = _trail_xy(frames, trails)
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                name="Path through the layers",
                line={"color": TRAIL_COLOUR, "width": 1.5},
                opacity=0.7,
                hoverinfo="skip",
            )
        )
    moving = list(range(len(groups)))
    figure = go.Figure(
        data=traces,
        frames=[go.Frame(data=points(i), traces=moving, name=names[i]) for i in range(num_frames)],
    )
    # Plotly animates only SVG scatter smoothly; WebGL traces are redrawn per frame.
    play = {
        "frame": {"duration": FRAME_MS, "redraw": webgl},
        "transition": {"duration": 0 if webgl else FRAME_MS // 2, "easing": "cubic-in-out"},
        "fromcurrent": True,
        "mode": "immediate",
    }
    step_args = {**play, "frame": {"duration": 0, "redraw": webgl}}
    x_range, y_range = _ranges(frames)
    figure.update_layout(
        title={"text": title},
        legend={"title": {"text": escape_plotly(legend_title)}, "itemsizing": "constant"},
        height=680,
        hoverlabel={"align": "left"},
        # room above the map for the title and the Play/Pause buttons, below it for the
        # slider and its tick labels ("0 (embeddings)" was cut off at the bottom)
        margin={"t": 110, "b": 140},
        xaxis={"range": x_range, "autorange": False, "title": {"text": axes[0]}},
        yaxis={"range": y_range, "autorange": False, "title": {"text": axes[1]}},
        updatemenus=[
            {
                "type": "buttons",
                "direction": "left",
                "showactive": False,
                # above the map's top-left corner: below it, the buttons covered the start of
                # the slider
                "x": 0.0,
                "y": 1.0,
                "xanchor": "left",
                "yanchor": "bottom",
                "pad": {"b": 8},
                "buttons": [
                    {"label": "▶ Play", "method": "animate", "args": [None, play]},
                    {
                        "label": "❚❚ Pause",
                        "method": "animate",
                        "args": [[None], {**step_args, "mode": "immediate"}],
                    },
                ],
            }
        ],
        sliders=[
            {
                "active": 0,
                "x": 0.0,
                "len": 1.0,
                "y": -0.08,
                "yanchor": "top",
                "pad": {"t": 10, "l": 40, "r": 40},
                "currentvalue": {"prefix": "Layer ", "visible": True, "xanchor": "right"},
                "steps": [
                    {"label": name, "method": "animate", "args": [[name], step_args]}
                    for name in names
                ],
            }
        ],
    )
    return figure


SEPARATES = 0.1
"""A change in label agreement (0-1) from layer 0 to the last layer smaller than this is
called "about as separate"."""


def motion_caption(layer_maps, *, trails: bool = False) -> str:
    """The caption under Layers in motion (plain text) for ``layer_maps`` (an
    :class:`explorer.maps.LayerMaps`): how to play it and what its axes are, true for its
    method and alignment (one PCA of all layers, whose axes' percentages are of all layers'
    variance; a joint UMAP; each t-SNE frame started from the previous; or a projection per
    frame); ``trails``: the selected points leave a trail."""
    method, joint = layer_maps.method, layer_maps.align == "joint"
    if method == "pca" and layer_maps.explained_variance_ratio is not None:
        axes = (
            "The frames share one set of axes, one PCA fitted on all layers' points together "
            "(each layer centred and scaled first): PC1's and PC2's percentages are shares of "
            "the variance of all layers together, not of one layer as on the map. So a point "
            "that moves has really changed neighbourhood."
        )
    elif method == "umap" and joint:
        axes = (
            "The frames are laid out by one UMAP of all layers at once, which keeps each point "
            "close to itself from layer to layer: a point that moves has really changed "
            "neighbourhood."
        )
    elif method == "tsne" and joint:
        axes = (
            "Each layer has its own t-SNE map, started from the previous layer's, so the "
            "frames line up: a point that moves has really changed neighbourhood."
        )
    else:
        axes = f"Each layer has its own {LABELS[method]} map" + (
            ", turned to match the previous one." if layer_maps.align == "procrustes" else "."
        )
    text = "Press play or drag the layer slider. " + axes
    return text + (" Selected points leave a trail." if trails else "")


def motion_notice(agreement: Sequence[float], what: str = "label", whats: str | None = None) -> str:
    """What to notice in Layers in motion (plain text), from ``agreement`` (one share 0-1 per
    layer, 0..L: :func:`explorer.maps._quality.label_agreement` of each layer's vectors): the
    share at layer 0, at the last layer and where it peaks, and which way it moves, said with
    the direction the numbers take. ``what`` names what the points are coloured by (a label,
    a cluster, a sentence, a column's value), ``whats`` its plural (default ``what + "s"``)."""
    whats = what + "s" if whats is None else whats
    shares = [float(a) for a in agreement]
    if len(shares) < 2:
        raise ValueError("Label agreement is needed for at least two layers.")
    first, last = shares[0], shares[-1]
    best = extremes(shares, as_percent=True)[0]  # every layer showing the highest share
    text = (
        f"At layer 0, {first:.0%} of each point's 5 nearest neighbours (in "
        f"the full space) share its {what}; at the last layer {last:.0%}"
    )
    if f"{shares[best[0]]:.0%}" != f"{max(first, last):.0%}":
        where = f"layer {best[0]}" if len(best) == 1 else f"layers {join(map(str, best))}"
        text += f", and most at {where} ({shares[best[0]]:.0%})"
    text += ". "
    if last >= first + SEPARATES:
        return text + f"The {whats} separate as context flows in."
    if last <= first - SEPARATES:
        return text + f"The {whats} are less separate at the end than at the input."
    return (
        text + f"The {whats} are about as separate at the input as at the end: the words alone "
        "carry them."
    )
