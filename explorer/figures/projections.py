"""Figures for the Projections page: 2-D/3-D scatter plots of projected vectors.

Every point carries its row index in ``customdata`` so a box or lasso selection maps back
to the texts reliably (:func:`selected_rows`), and a hover label with its text, HTML-escaped
(Plotly renders a subset of HTML in hover labels), wrapped, and with the target word in bold.
Labels, legend titles and values are escaped for plotly and shortened to
:data:`explorer._markup.SHOWN_CHARS` characters (:func:`explorer._markup.escape_plotly`).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from explorer import maps
from explorer._markup import escape_plotly
from explorer.figures.colourings import value_traces
from explorer.layers import layers_label
from explorer.maps import NOISE_NAME, validate_method
from explorer.pooling import pooling_labels

HOVER_WIDTH = 60
"""Characters per hover line before a ``<br>``."""

HOVER_MAX_CHARS = 400
"""Longer texts are cut (around the highlighted word) in the hover label."""

UNLABELLED = "texts"


WEBGL_ABOVE = 2_000
"""2-D maps with more points than this draw with WebGL (``Scattergl``): SVG slows down past a
few thousand markers, WebGL stays smooth at 20,000."""


def draws_with_webgl(n: int) -> bool:
    """Whether a 2-D map of ``n`` points draws with WebGL (more than :data:`WEBGL_ABOVE`)."""
    return n > WEBGL_ABOVE


def marker_size(n: int, dims: int) -> int:
    """Marker size of a map of ``n`` points in ``dims`` (2 or 3) dimensions: 9 on a 2-D map, 6
    on a WebGL one (more than :data:`WEBGL_ABOVE` points: smaller markers paint less of each
    other, and a browser without a GPU redraws them on every click in less time), 5 in 3-D."""
    if dims == 3:
        return 5
    return 6 if draws_with_webgl(n) else 9


def palette(n: int) -> list[str]:
    """``n`` distinct colours: D3's ten, or Plotly's Dark24 (readable on white) beyond ten."""
    colours = qualitative.D3 if n <= len(qualitative.D3) else qualitative.Dark24
    return [colours[i % len(colours)] for i in range(n)]


def _clip(
    text: str, span: tuple[int, int] | None, limit: int
) -> tuple[str, tuple[int, int] | None]:
    """Cut ``text`` to about ``limit`` characters, keeping ``span`` in view; shift the span."""
    if len(text) <= limit:
        return text, span
    centre = (span[0] + span[1]) // 2 if span else 0
    start = max(0, min(centre - limit // 2, len(text) - limit))
    end = start + limit
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    clipped = prefix + text[start:end] + suffix
    if span is not None:
        span = (span[0] - start + len(prefix), span[1] - start + len(prefix))
    return clipped, span


def hover_text(
    text: str,
    span: tuple[int, int] | None = None,
    width: int = HOVER_WIDTH,
    max_chars: int = HOVER_MAX_CHARS,
) -> str:
    """``text`` as safe hover HTML: escaped, wrapped with ``<br>``, ``span`` in ``<b>``.

    ``span`` is a ``(char_start, char_end)`` pair into ``text`` (the target word). Lines break
    between words after about ``width`` characters; texts longer than ``max_chars`` are cut
    around the span with "…".
    """
    text, span = _clip(text, span, max_chars)
    lines: list[tuple[int, int]] = []
    start = 0
    for match in re.finditer(r"\S+\s*", text):
        if match.end() - start > width and match.start() > start:
            lines.append((start, match.start()))
            start = match.start()
    lines.append((start, len(text)))
    cuts = sorted({0, len(text), *(span or ())})
    out = []
    for line_start, line_end in lines:
        pieces = []
        bounds = [line_start, *(c for c in cuts if line_start < c < line_end), line_end]
        for a, b in zip(bounds, bounds[1:], strict=False):
            piece = html.escape(text[a:b], quote=False)
            if span is not None and span[0] <= a and b <= span[1] and piece.strip():
                piece = f"<b>{piece}</b>"
            pieces.append(piece)
        out.append("".join(pieces).rstrip())
    return "<br>".join(out)


def axis_titles(
    method: str, n_components: int = 2, explained_variance_ratio: Sequence[float] | None = None
) -> list[str]:
    """``["PC1 (23.1 %)", ...]`` for PCA with ratios, else ``["UMAP 1", "UMAP 2", ...]``."""
    validate_method(method)
    if method == "pca":
        if explained_variance_ratio is None:
            return [f"PC{i + 1}" for i in range(n_components)]
        return [f"PC{i + 1} ({100 * r:.1f} %)" for i, r in enumerate(explained_variance_ratio)]
    return [f"{maps.LABELS[method]} {i + 1}" for i in range(n_components)]


def projection_title(
    method: str,
    n_points: int,
    *,
    layers: object,
    pooling: str | None = None,
    word: str | None = None,
    cls_token: str | None = "[CLS]",
) -> str:
    """Figure title naming the method, what the points are, the pooling (its first token as
    the model writes it, ``cls_token``: "<s> token" for MPNet/RoBERTa) and the layers."""
    validate_method(method)
    if word is not None:
        what = f"{n_points:,} occurrences of “{escape_plotly(word)}”"
        how = layers_label(layers)
    else:
        what = f"{n_points:,} sentence vectors"
        how = f"{pooling_labels(cls_token).get(pooling or '', pooling)} · {layers_label(layers)}"
    return f"{maps.LABELS[method]} of {what}<br><sup>{escape_plotly(how, None)}</sup>"


def _groups(labels: Sequence[str] | None, n: int) -> dict[str, np.ndarray]:
    """Row indices per label, in order of first appearance; numbered clusters
    (``"2: word · word"``, :func:`explorer.maps._clusters.cluster_labels`) in the order of their
    numbers, noise last, so the legend reads 1, 2, 3."""
    if labels is None:
        return {UNLABELLED: np.arange(n)}
    if len(labels) != n:
        raise ValueError(f"Got {n} points but {len(labels)} labels.")
    order: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        order.setdefault(str(label), []).append(i)
    names = list(order)
    numbers = [_cluster_number(name) for name in names]
    if all(number is not None for number in numbers):
        names = [name for _, name in sorted(zip(numbers, names, strict=True))]
    return {label: np.array(order[label]) for label in names}


def _cluster_number(label: str) -> float | None:
    """``"12: word · word"`` -> 12, ``"12"`` -> 12, the noise label -> infinity (last), else
    ``None`` (not a numbered cluster)."""
    if label == NOISE_NAME:
        return float("inf")
    head = label.split(":", 1)[0]
    return float(head) if head.isdigit() else None


def _hovers(texts: Sequence[str], spans: Sequence[tuple[int, int] | None] | None) -> np.ndarray:
    """The hover label of every point, ``(n,)`` object array (Plotly validates an array in one
    step, a list string by string: 0.05 s for 20,000 points)."""
    if spans is not None and len(spans) != len(texts):
        raise ValueError(f"Got {len(texts)} texts but {len(spans)} spans.")
    spans = spans or [None] * len(texts)
    hovers = np.empty(len(texts), dtype=object)
    hovers[:] = [
        _cached_hover(t, None if s is None else tuple(s)) for t, s in zip(texts, spans, strict=True)
    ]
    return hovers


HOVER_CACHE = 40_000
"""Hover labels remembered: two of the largest maps (the app draws at most 20,000 points,
:data:`explorer.server.limits.MAX_POINTS`; a test keeps the two in step). A least-recently-used
cache smaller than one map forgets every label before the next rerun reaches it again (a cache of
16,384 made each rerun of a 20,000-point map rebuild all of them: 0.3 s)."""


@functools.lru_cache(maxsize=HOVER_CACHE)
def _cached_hover(text: str, span: tuple[int, int] | None) -> str:
    """:func:`hover_text`, remembered: a page rerun shows the same texts again (2,000 hovers
    took 0.04 s of a 0.3 s rerun of the projections page)."""
    return hover_text(text, span)


def _traces(
    coords: np.ndarray,
    hovers: np.ndarray,
    groups: dict[str, np.ndarray],
    colours: dict[str, str],
    *,
    size: int,
    showlegend: bool = True,
) -> list[go.Scatter | go.Scatter3d]:
    three_d = coords.shape[1] == 3
    traces = []
    for number, (label, rows) in enumerate(groups.items()):
        labelled = label != UNLABELLED
        common = {
            "name": escape_plotly(label),  # legend entries render HTML
            "legendgroup": str(number),  # the label may be long: the same groups in every plot
            "showlegend": showlegend and labelled,
            "mode": "markers",
            "customdata": rows,
            "text": hovers[rows],
            # the label goes in through the trace name: text spliced into a template would
            # be read as template syntax ("%{x}" in a CSV label)
            "hovertemplate": ("<i>%{fullData.name}</i><br>" if labelled else "")
            + "%{text}<extra></extra>",
            "marker": {"size": size, "color": colours[label], "opacity": 0.85},
        }
        if three_d:
            trace = go.Scatter3d(x=coords[rows, 0], y=coords[rows, 1], z=coords[rows, 2], **common)
        else:
            scatter = go.Scattergl if draws_with_webgl(len(coords)) else go.Scatter
            trace = scatter(x=coords[rows, 0], y=coords[rows, 1], **common)
        traces.append(trace)
    return traces


def projection_figure(
    coords: np.ndarray,
    texts: Sequence[str],
    labels: Sequence[str] | None = None,
    *,
    spans: Sequence[tuple[int, int] | None] | None = None,
    title: str = "",
    axes: Sequence[str] = ("1", "2", "3"),
    legend_title: str = "Label",
    values: np.ndarray | None = None,
    values_title: str = "",
    share: bool = True,
) -> go.Figure:
    """Scatter plot of ``coords`` ``(n, 2)`` or ``(n, 3)``: one trace per label.

    ``texts[i]`` is point i's hover text, with ``spans[i]`` (character range of the target
    word) in bold; ``customdata`` holds the row index i. Without labels all points share one
    colour and there is no legend. ``axes`` are the axis titles (see :func:`axis_titles`).
    With ``values`` ``(n,)``, points are coloured by them instead, on a colour bar titled
    ``values_title``, and the label goes into the hover text: shares in 0-1 (``share``: red =
    0, green = 1), else any numbers (a numeric column: their own range, empty cells as NaN,
    drawn grey; :func:`explorer.figures.colourings.value_traces`).
    """
    coords = np.asarray(coords)
    n, k = coords.shape
    if k not in (2, 3):
        raise ValueError(f"Expected 2 or 3 coordinates per point, got {k}.")
    if len(texts) != n:
        raise ValueError(f"Got {n} points but {len(texts)} texts.")
    hovers = _hovers(texts, spans)
    if values is not None:
        traces = value_traces(
            coords,
            hovers,
            labels,
            values,
            values_title,
            share=share,
            size=marker_size(n, k),
            webgl=draws_with_webgl(n),
        )
        figure = go.Figure(traces)
    else:
        groups = _groups(labels, n)
        colours = dict(zip(groups, palette(len(groups)), strict=True))
        figure = go.Figure(_traces(coords, hovers, groups, colours, size=marker_size(n, k)))
    legend = {"title": {"text": escape_plotly(legend_title)}, "itemsizing": "constant"}
    if values is not None:  # the colour bar stands where the legend would
        legend = {"orientation": "h", "y": -0.12, "itemsizing": "constant"}
    figure.update_layout(
        title={"text": title},
        legend=legend,
        height=620,
        hoverlabel={"align": "left"},
        margin={"t": 90},
    )
    if k == 3:
        figure.update_layout(
            margin={"l": 0, "r": 0, "b": 0, "t": 90},
            scene={
                "xaxis": {"title": {"text": axes[0]}},
                "yaxis": {"title": {"text": axes[1]}},
                "zaxis": {"title": {"text": axes[2]}},
            },
        )
    else:
        figure.update_xaxes(title_text=axes[0])
        figure.update_yaxes(title_text=axes[1])
    return figure


def pooling_grid(
    coords: Mapping[str, np.ndarray],
    trustworthiness: Mapping[str, float | None],
    texts: Sequence[str],
    labels: Sequence[str] | None = None,
    *,
    method: str,
    title: str = "",
    axes: Mapping[str, Sequence[str]] | None = None,
    cls_token: str | None = "[CLS]",
) -> go.Figure:
    """A 2x2 grid of 2-D projections, one per pooling (``coords[pooling]`` is ``(n, 2)``).

    Each subplot's title names the pooling and its trustworthiness; colours and the legend
    are shared (clicking a legend entry hides that label in every subplot). ``axes`` maps a
    pooling to its axis titles (PCA's explained variance differs per pooling); ``cls_token``
    the model's first token, as the titles name its pooling.
    """
    validate_method(method)
    poolings = list(coords)
    if not 1 <= len(poolings) <= 4:
        raise ValueError(f"The grid holds 1 to 4 projections, got {len(poolings)}.")
    subtitles, named = [], pooling_labels(cls_token)
    for pooling in poolings:
        score = trustworthiness.get(pooling)
        scored = "" if score is None else f" · trustworthiness {score:.2f}"
        subtitles.append(f"{escape_plotly(named.get(pooling, pooling), None)}{scored}")
    figure = make_subplots(
        rows=2,
        cols=2,
        subplot_titles=subtitles,
        horizontal_spacing=0.08,
        vertical_spacing=0.16,
    )
    n = len(texts)
    groups = _groups(labels, n)
    colours = dict(zip(groups, palette(len(groups)), strict=True))
    hovers = _hovers(texts, None)
    for index, pooling in enumerate(poolings):
        points = np.asarray(coords[pooling])
        if points.shape != (n, 2):
            raise ValueError(f"Expected ({n}, 2) coordinates for {pooling!r}, got {points.shape}.")
        row, col = divmod(index, 2)
        for trace in _traces(points, hovers, groups, colours, size=6, showlegend=index == 0):
            figure.add_trace(trace, row=row + 1, col=col + 1)
        names = (axes or {}).get(pooling) or axis_titles(method, 2)
        figure.update_xaxes(title_text=names[0], row=row + 1, col=col + 1)
        figure.update_yaxes(title_text=names[1], row=row + 1, col=col + 1)
    figure.update_layout(
        title={"text": title},
        legend={"title": {"text": "Label"}, "itemsizing": "constant"},
        height=820,
        hoverlabel={"align": "left"},
        margin={"t": 110},
    )
    return figure


def selected_rows(selection: Mapping | None, n: int) -> list[int]:
    """Row indices of the points in a Streamlit Plotly selection, sorted, duplicates removed.

    ``selection`` is ``event.selection`` from ``st.plotly_chart(..., on_select="rerun")``:
    its ``points`` carry the ``customdata`` (row index) this module puts on every point.
    Indices outside ``0..n-1`` (a stale selection) are ignored.
    """
    rows = set()
    for point in (selection or {}).get("points", []) or []:
        value = point.get("customdata")
        if isinstance(value, list | tuple):
            value = value[0] if value else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            if 0 <= int(value) < n:
                rows.add(int(value))
    return sorted(rows)


def pooling_grid_notice(
    trustworthiness: Mapping[str, float | None], cls_token: str | None = "[CLS]"
) -> str | None:
    """What to notice in :func:`pooling_grid`: the pooling whose map keeps the most of its
    full-space neighbourhoods (trustworthiness, as the subplot titles write it, the first
    token named ``cls_token``) and the one that keeps the least, or that they are alike; None
    without two scores."""
    scores = {p: round(s, 2) for p, s in trustworthiness.items() if s is not None}
    if len(scores) < 2:
        return None
    best, worst = max(scores, key=scores.get), min(scores, key=scores.get)
    if scores[best] - scores[worst] < 0.02:
        return (
            f"Every pooling's map keeps about as much of its neighbourhoods (trustworthiness "
            f"{scores[worst]:.2f}–{scores[best]:.2f}): compare how the labels group instead."
        )
    named = {p: _mid_sentence(label) for p, label in pooling_labels(cls_token).items()}
    return (
        f"The {named.get(best, best)} map keeps the most of its full-space "
        f"neighbourhoods (trustworthiness {scores[best]:.2f}), the "
        f"{named.get(worst, worst)} map the least ({scores[worst]:.2f}); how well the "
        "labels group is another question: read the colours."
    )


def _mid_sentence(label: str) -> str:
    """A menu label inside a sentence: "Mean of tokens" -> "mean of tokens"; a token's own
    spelling ("[CLS] token", "<s> token") stays."""
    return label[:1].lower() + label[1:] if label[:1].isupper() else label
