"""Figures of the explanations: the token x token heatmap of a cosine, each text's tokens
shaded by their share, layer x layer CKA side by side (trained and random weights), and the
classic measurements layer by layer. Pure functions of the library's results."""

from __future__ import annotations

import html
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.explain import Explanation

MAX_AXIS_TOKENS = 60
"""Tokens per axis the heatmap shows at most: beyond, those with the largest parts."""

ANNOTATE_LAYERS = 13
"""Write the values into CKA cells up to this many layers (BERT-base's 13 hidden states)."""

POSITIVE, NEGATIVE = (76, 120, 168), (228, 87, 86)
"""Shading of tokens that bring the texts together (blue) and apart (red)."""


def _kept(scores: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the ``limit`` largest ``|scores|``, in text order (all when fewer)."""
    if len(scores) <= limit:
        return np.arange(len(scores))
    return np.sort(np.argsort(-np.abs(scores))[:limit])


def _labels(tokens, indices) -> list[str]:
    """Axis labels ``"3 bank"``: a position makes repeated tokens distinct categories."""
    return [f"{i} {html.escape(tokens[i], quote=False)}" for i in indices]


def pair_heatmap(explained: Explanation, max_tokens: int = MAX_AXIS_TOKENS) -> go.Figure:
    """Token x token heatmap of ``explained.pairs``: the first text's tokens down, the
    second's across, one diverging scale centred on 0 (red cells pull the texts apart).
    Hover gives both tokens, the value and its share of the cosine. Over ``max_tokens``
    tokens on an axis, the ones with the largest parts are kept (the title says so).
    ``ValueError`` for ``cls`` pooling, which has no pairs (use :func:`shaded_tokens_html`).
    """
    if explained.pairs is None:
        raise ValueError(
            "cls pooling has no token pairs: show each text's token attributions instead."
        )
    rows = _kept(explained.token_scores_a, max_tokens)
    cols = _kept(explained.token_scores_b, max_tokens)
    values = explained.pairs[np.ix_(rows, cols)]
    reach = float(np.abs(values).max()) or 1.0
    share = values / explained.score if abs(explained.score) > 1e-9 else np.zeros_like(values)
    cut = len(rows) < len(explained.tokens_a) or len(cols) < len(explained.tokens_b)
    title = f"Where the cosine {explained.score:.3f} comes from: every pair of tokens"
    if cut:
        title += f" (the {max_tokens} tokens of each text with the largest parts)"
    figure = go.Figure(
        go.Heatmap(
            z=values,
            x=_labels(explained.tokens_b, cols),
            y=_labels(explained.tokens_a, rows),
            customdata=share,
            zmin=-reach,
            zmax=reach,
            colorscale="RdBu",
            colorbar={"title": "part of<br>the cosine"},
            hovertemplate="%{y} with %{x}<br>%{z:+.4f} (%{customdata:.1%} of the cosine)"
            "<extra></extra>",
        )
    )
    size = max(len(rows), len(cols))
    # The second text's tokens stand slanted above the cells: the top margin holds them under
    # the title (at the figure's top), so the two never overlap.
    labels = max((len(explained.tokens_b[j]) + len(str(j)) + 1 for j in cols), default=1)
    top = 70 + int(6 * min(labels, 24))
    figure.update_layout(
        title={"text": title, "y": 1, "yref": "container", "yanchor": "top", "pad": {"t": 12}},
        height=int(min(900, max(360, top + 100 + 14 * len(rows)))),
        margin={"l": 10, "r": 10, "t": top, "b": 10},
        xaxis={"title": "second text", "side": "top", "tickangle": -60, "type": "category"},
        yaxis={"title": "first text", "autorange": "reversed", "type": "category"},
        font={"size": 12 if size <= 30 else 10},
    )
    return figure


def shaded_tokens_html(explained: Explanation, side: str) -> str:
    """The tokens of one text (``"a"`` or ``"b"``) as HTML spans shaded by their share:
    blue for a part that brings the texts together, red for one that pulls them apart,
    stronger for a larger share; the exact value is in each span's tooltip. Tokens are
    escaped; special tokens are shown in grey type."""
    tokens = explained.tokens(side)
    shares = explained.token_shares(side)
    scores = explained.token_scores(side)
    special = explained.special_a if side == "a" else explained.special_b
    reach = float(np.abs(shares).max()) or 1.0
    spans = []
    for token, share, score, is_special in zip(tokens, shares, scores, special, strict=True):
        red, green, blue = POSITIVE if share >= 0 else NEGATIVE
        alpha = 0.85 * abs(share) / reach
        colour = "color:#888;" if is_special else ""
        spans.append(
            f'<span title="{score:+.4f} ({share:.1%})" style="background:rgba({red},{green},'
            f'{blue},{alpha:.2f});{colour}padding:1px 3px;margin:1px;border-radius:3px;">'
            f"{html.escape(token)}</span>"
        )
    return "<div style='line-height:2'>" + " ".join(spans) + "</div>"


def cka_heatmaps(matrices: Mapping[str, np.ndarray]) -> go.Figure:
    """Layer x layer CKA heatmaps side by side (e.g. ``{"trained": ..., "random weights":
    ...}``), one 0-to-1 scale; layer 0 is the embedding output. Values are written into
    the cells up to :data:`ANNOTATE_LAYERS` layers."""
    names = list(matrices)
    if not names:
        raise ValueError("No CKA matrix to draw.")
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=names, horizontal_spacing=0.08)
    for col, name in enumerate(names, start=1):
        matrix = np.asarray(matrices[name])
        ticks = [str(i) for i in range(len(matrix))]
        annotate = len(matrix) <= ANNOTATE_LAYERS
        figure.add_trace(
            go.Heatmap(
                z=matrix,
                x=ticks,
                y=ticks,
                zmin=0,
                zmax=1,
                colorscale="Viridis",
                showscale=col == len(names),
                colorbar={"title": "CKA"},
                text=np.vectorize(lambda v: f"{v:.2f}")(matrix) if annotate else None,
                texttemplate="%{text}" if annotate else None,
                hovertemplate="layer %{y} vs layer %{x}: CKA %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        figure.update_xaxes(title_text="layer", row=1, col=col)
        figure.update_yaxes(title_text="layer", autorange="reversed", row=1, col=col)
    figure.update_layout(
        title="How alike the layers' representations of the same tokens are (linear CKA)",
        height=480,
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
    )
    return figure


CLASSIC_SERIES = {
    "self_similarity_adjusted": "self-similarity (adjusted)",
    "intra_sentence_similarity_adjusted": "intra-sentence similarity (adjusted)",
    "mev_adjusted": "max. explainable variance (adjusted)",
    "baseline_cosine": "random tokens' cosine (anisotropy)",
}

CLASSIC_COLOURS = ("#4c78a8", "#f58518", "#54a24b", "#9d755d", "#b279a2")
"""One colour per series of :data:`CLASSIC_SERIES`, then the sense accuracy's: the
random-weights lines keep their series' colour, dashed."""


def _classic_traces(
    figure: go.Figure,
    measures: pd.DataFrame,
    senses: pd.DataFrame | None,
    suffix: str = "",
    dash: str | None = None,
) -> None:
    """The lines of one model's measurements (``suffix`` ends their names, ``dash`` their
    style) in the left panel, and its sense accuracy in the right one."""
    panel = {"row": 1, "col": 1} if senses is not None else {}
    for (column, label), colour in zip(CLASSIC_SERIES.items(), CLASSIC_COLOURS, strict=False):
        figure.add_trace(
            go.Scatter(
                x=measures.index,
                y=measures[column],
                mode="lines+markers",
                name=label + suffix,
                line={"color": colour, "dash": dash},
                legendgroup=column,
                showlegend=not suffix,
            ),
            **panel,
        )
    if senses is not None:
        figure.add_trace(
            go.Scatter(
                x=senses.index,
                y=senses["accuracy"],
                mode="lines+markers",
                name="sense accuracy" + suffix,
                line={"color": CLASSIC_COLOURS[-1], "dash": dash},
                legendgroup="accuracy",
                showlegend=not suffix,
            ),
            row=1,
            col=2,
        )


def classic_figure(
    measures: pd.DataFrame,
    senses: pd.DataFrame | None = None,
    random: tuple[pd.DataFrame, pd.DataFrame | None] | None = None,
    mev_reference: float | None = None,
    scale: float = 1.0,
) -> go.Figure:
    """The classic measurements layer by layer: on the left the columns of
    :data:`CLASSIC_SERIES` of :func:`explorer.explain.classic_measures`; on the right, when
    given, the sense accuracy of :func:`explorer.explain.sense_accuracy` with its chance level
    (dotted). ``random``: the same ``(measures, senses)`` of the random-weights model, dashed.
    ``mev_reference``: a paper's bound on the adjusted MEV, as a dashed horizontal line.
    ``scale``: how much larger the page draws its text (presentation mode): the figure grows
    and its legend moves down by as much, clear of the larger axis titles."""
    titles = (
        "How contextual (Ethayarajh 2019)",
        "Word senses by nearest centroid (Coenen et al. 2019)",
    )
    figure = (
        make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.08)
        if senses is not None
        else go.Figure()
    )
    _classic_traces(figure, measures, senses)
    if senses is not None:
        figure.add_trace(
            go.Scatter(
                x=senses.index,
                y=senses["chance"],
                mode="lines",
                line={"dash": "dot", "color": "#888"},
                name="sense accuracy by chance",
            ),
            row=1,
            col=2,
        )
    if random is not None:  # one legend entry for the dashed lines, each follows its series
        figure.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="lines",
                line={"color": "#444", "dash": "dash"},
                name="dashed: the same model with random weights",
            )
        )
        _classic_traces(
            figure,
            random[0],
            random[1] if senses is not None else None,
            " · random weights",
            "dash",
        )
    if mev_reference is not None:  # named in the legend: a label on the line can sit on data
        reference = {"dash": "dash", "color": CLASSIC_COLOURS[2], "width": 1}
        figure.add_hline(
            y=mev_reference, line=reference, **({"row": 1, "col": 1} if senses is not None else {})
        )
        figure.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="lines",
                line=reference,
                name=f"BERT-base's MEV: under {mev_reference:.0%} (Ethayarajh 2019)",
            )
        )
    axis = {"title": "layer (0 = embeddings)", "dtick": 1}
    figure.update_xaxes(**axis)
    figure.update_yaxes(title_text="cosine, or share of variance", rangemode="tozero")
    if senses is not None:
        figure.update_yaxes(
            title_text="accuracy (leave one out)", tickformat=".0%", range=[0, 1.02], row=1, col=2
        )
    figure.update_layout(
        title="The classic measurements, layer by layer",
        height=round(500 * scale),
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18 * scale, "x": 0},
    )
    return figure
