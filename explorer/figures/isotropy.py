"""How contextual?'s isotropy view: IsoScore (Rudman et al. 2022) of each layer's tokens beside
the average cosine of random tokens (Ethayarajh 2019's anisotropy), and what to notice."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from explorer._shown import extremes, join
from explorer.explain import dimensions_used
from explorer.figures.explain import CLASSIC_COLOURS
from explorer.figures.explain_notices import ANISOTROPIC

ISOSCORE_COLOUR = "#e45756"
"""IsoScore's line; the average cosine keeps its colour of the classic chart."""

UNEVEN = 0.5
"""An IsoScore below this counts as uneven use of the dimensions (fewer than about half of
them used evenly)."""

SOURCE = "Rudman et al. 2022"


def isotropy_figure(
    measures: pd.DataFrame, random: pd.DataFrame | None = None, scale: float = 1.0
) -> go.Figure:
    """IsoScore (``measures["isoscore"]``) and the average cosine of random tokens
    (``measures["baseline_cosine"]``) layer by layer, from
    :func:`explorer.explain.classic_measures`; ``random``: the same table of the random-weights
    model, dashed. Both run on 0-1 (a cosine can dip below 0). ``scale``: presentation mode's
    larger text (the figure grows, the legend moves down)."""
    figure = go.Figure()
    series = (
        ("isoscore", "IsoScore: how evenly the directions are used", ISOSCORE_COLOUR),
        ("baseline_cosine", "random tokens' average cosine (anisotropy)", CLASSIC_COLOURS[3]),
    )
    for table, suffix, dash in ((measures, "", None), (random, " · random weights", "dash")):
        if table is None:
            continue
        for column, label, colour in series:
            figure.add_trace(
                go.Scatter(
                    x=table.index,
                    y=table[column],
                    mode="lines+markers",
                    name=label + suffix,
                    line={"color": colour, "dash": dash},
                    hovertemplate=f"layer %{{x}}: {label.split(':')[0]} %{{y:.3f}}<extra></extra>",
                )
            )
    figure.update_xaxes(title_text="layer (0 = embeddings)", dtick=1)
    figure.update_yaxes(
        title_text="IsoScore, or cosine", range=[min(0.0, _lowest(measures, random)), 1.02]
    )
    figure.update_layout(
        title=f"How many directions the tokens use: IsoScore ({SOURCE}) beside the average cosine",
        height=round(380 * scale),
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        legend={"orientation": "h", "yanchor": "top", "y": -0.22 * scale, "x": 0},
    )
    return figure


def _lowest(measures: pd.DataFrame, random: pd.DataFrame | None) -> float:
    tables = [t for t in (measures, random) if t is not None]
    return float(min(t[["isoscore", "baseline_cosine"]].to_numpy().min() for t in tables)) - 0.02


def isotropy_notice(measures: pd.DataFrame) -> str:
    """What IsoScore says about the layers of ``measures`` (a table of
    :func:`explorer.explain.classic_measures`, with ``attrs["dimensions"]``), and whether the
    average cosine tells the same story: at the layer where the cosine is lowest, is the use of
    the dimensions even (IsoScore at least :data:`UNEVEN`)? Numbers as the chart rounds them
    (two decimals): layers that tie there are named together."""
    score, cosine = measures["isoscore"], measures["baseline_cosine"]
    dimensions = int(measures.attrs["dimensions"])
    layers = [int(k) for k in score.index]
    high, low = ([layers[i] for i in found] for found in extremes(score.tolist()))
    spread = (
        f"is {score.max():.2f} at every layer"
        if len(high) == len(layers)
        else f"runs from {score.min():.2f} at {_at(low)} to {score.max():.2f} at {_at(high)}"
    )
    sentence = (
        f"IsoScore ({SOURCE}) {spread} (1 = every direction used alike): about "
        f"{dimensions_used(score.max(), dimensions):.0f} of the {dimensions} dimensions used "
        f"evenly at best, {dimensions_used(score.min(), dimensions):.0f} at worst. "
    )
    flats = [layers[i] for i in extremes(cosine.tolist())[1]]
    flat = flats[0]
    if cosine[flat] < ANISOTROPIC and score[flat] < UNEVEN:
        return sentence + (
            f"At layer {flat} the average cosine is only {cosine[flat]:.2f}, as if the vectors "
            f"pointed every way, yet IsoScore is {score[flat]:.2f}: a low average cosine does "
            "not say how many directions the vectors use."
        )
    both = [k for k in flats if k in high]
    if both:
        return sentence + (
            f"Here the two agree: layer {both[0]} has both the lowest average cosine "
            f"({cosine[both[0]]:.2f}) and the highest IsoScore."
        )
    return sentence + (
        f"The two disagree on the most isotropic layer: the average cosine is lowest at "
        f"{_at(flats)} ({cosine[flat]:.2f}), IsoScore highest at {_at(high)}."
    )


def _at(layers: list[int]) -> str:
    """``"layer 3"``, ``"layers 3 and 4"``."""
    return f"layer{'s' if len(layers) > 1 else ''} {join([str(k) for k in layers])}"


def isotropy_caption(measures: pd.DataFrame) -> str:
    """How to read IsoScore, and what the chart measured: the tokens (without the special
    tokens named as the model writes them, ``attrs["special_tokens"]``) and dimensions of
    ``measures`` (:func:`explorer.explain.classic_measures`); with fewer tokens than
    dimensions, the highest IsoScore those tokens can reach."""
    tokens, dimensions = int(measures.attrs["tokens"]), int(measures.attrs["dimensions"])
    specials = ", ".join(measures.attrs.get("special_tokens", ()))
    left_out = f" ({specials} left out)" if specials else ""
    text = (
        "Rudman, Gillman, Rayne and Eickhoff (2022), “IsoScore: Measuring the Uniformity of "
        "Embedding Space Utilization” (Findings of ACL): an average cosine depends on where "
        "the cloud of vectors sits, not on how it spreads. Vectors along one line through the "
        "origin have an average cosine near 0 and look isotropic; the same cloud moved away "
        "from the origin looks anisotropic. IsoScore turns the cloud to its principal axes and "
        "asks how evenly the variance is shared among them: 1 = the same in every direction, "
        "0 = all along one; 1 + IsoScore × (dimensions − 1) reads as the number of dimensions "
        f"used evenly. Here: all {tokens:,} tokens of the sentences{left_out} in "
        f"{dimensions:,} dimensions at each layer; a finite sample scores below 1 even from an "
        "isotropic source, the more so with fewer tokens per dimension."
    )
    if tokens - 1 < dimensions:  # m points span at most m - 1 directions
        text += (
            f" {tokens:,} tokens span at most {tokens - 1:,} of the {dimensions:,} directions, "
            f"so IsoScore cannot pass {max(0, tokens - 2) / (dimensions - 1):.2f} here."
        )
    return text
