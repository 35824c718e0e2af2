"""The vocabulary map's scatter (a pure function of :func:`explorer.vocabulary.vocabulary_map`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from explorer.vocabulary import KINDS

KIND_COLOURS = {
    "whole word": "#1f77b4",
    "continuation": "#ff7f0e",
    "special": "#d62728",
    "number": "#2ca02c",
    "punctuation": "#9467bd",
}
"""One clearly different colour per kind (D3's category10): the notice compares whole words
with continuations, so those two are blue and orange, not two shades of one colour."""


def vocabulary_figure(frame: pd.DataFrame, colour: str = "kind") -> go.Figure:
    """Every piece at its first two principal components, coloured by ``kind`` (one trace
    each) or by ``id`` (a continuous scale)."""
    if colour not in ("kind", "id"):
        raise ValueError(f"Colour by 'kind' or 'id', not {colour!r}.")
    figure = go.Figure()
    if colour == "kind":
        for kind in KINDS:
            part = frame[frame["kind"] == kind]
            figure.add_trace(
                go.Scattergl(
                    x=part["x"], y=part["y"], mode="markers", name=f"{kind} ({len(part):,})",
                    text=part["piece"],
                    marker={"size": 3, "opacity": 0.6, "color": KIND_COLOURS[kind]},
                    hovertemplate=f"%{{text}}<extra>{kind}</extra>",
                )
            )  # fmt: skip
    else:
        figure.add_trace(
            go.Scattergl(
                x=frame["x"], y=frame["y"], mode="markers", text=frame["piece"],
                marker={"size": 3, "opacity": 0.6, "color": frame["id"],
                        "colorscale": "Viridis", "colorbar": {"title": "id"}},
                hovertemplate="%{text}<extra></extra>",
            )
        )  # fmt: skip
    shares = frame.attrs.get("variance")
    x_title, y_title = (
        (f"PC 1 ({shares[0]:.1%} of the variance)", f"PC 2 ({shares[1]:.1%})")
        if shares
        else ("PC 1", "PC 2")
    )
    figure.update_layout(
        title="Every piece of the vocabulary: input embeddings, first two principal components",
        xaxis_title=x_title, yaxis_title=y_title, height=520,
        legend={"itemsizing": "constant", "title": "kind of piece (click to hide)"},
    )  # fmt: skip
    return figure


def _apart(frame: pd.DataFrame) -> str:
    """The PCA clause: the mean PC 1 of continuations and of whole words, and whether they sit
    apart (their printed means differ by at least half PC 1's printed standard deviation)."""
    x = frame["x"].to_numpy(np.float64)
    kinds = frame["kind"].to_numpy()
    if not ((kinds == "continuation").any() and (kinds == "whole word").any()):
        return ""
    cont = round(float(x[kinds == "continuation"].mean()), 2)
    whole = round(float(x[kinds == "whole word"].mean()), 2)
    spread = round(float(x.std(ddof=1)), 2) if len(x) > 1 else 0.0
    apart = spread > 0 and abs(cont - whole) >= spread / 2
    verdict = (
        "the first axis sets the two kinds apart"
        if apart
        else "the first axis does not set the two kinds apart"
    )
    return (
        f" On PC 1 continuations average {cont:+.2f} and whole words {whole:+.2f}, against a "
        f"spread (standard deviation) of {spread:.2f}: {verdict} (the means differ by "
        f"{'at least' if apart else 'less than'} half the spread)."
    )


def vocabulary_notice(
    frame: pd.DataFrame,
    piece: str | None = None,
    near: Sequence[tuple[str, float]] = (),
    context: pd.DataFrame | None = None,
) -> str:
    """What to notice on the vocabulary map (plain text; escape to show), from what the page
    shows: the count of each kind, the share of the variance on the two axes, where
    continuations and whole words sit on PC 1 (:func:`explorer.vocabulary.vocabulary_map`'s
    ``frame``), and for ``piece`` how many of its static neighbours ``near``
    (:func:`~explorer.vocabulary.static_neighbours`) are among its contextual neighbours
    ``context`` (:func:`~explorer.vocabulary.contextual_neighbours`; ``None`` when the text
    does not hold the piece)."""
    counts = frame["kind"].value_counts()
    shown = ", ".join(f"{counts.get(k, 0):,} {k}" for k in KINDS if counts.get(k, 0))
    text = f"Of the {len(frame):,} pieces: {shown}."
    shares = frame.attrs.get("variance")
    if shares:
        text += (
            f" The map's two axes hold {shares[0]:.1%} and {shares[1]:.1%} of the table's "
            "variance: the rest is out of sight."
        )
    text += _apart(frame)
    if piece is None or not near:
        return text
    if context is None:
        first, cosine = near[0]
        return text + (
            f" In the static table the nearest piece to {piece} is {first} (cosine "
            f"{cosine:.3f}); the text above does not hold {piece}, so context is not compared."
        )
    if context.empty:
        return text + f" The text above holds no other token to compare with {piece} in context."
    tokens = set(context["token"])
    shared = [p for p, _ in near if p in tokens]
    neighbours = f"its {len(context)} nearest token{'s' if len(context) != 1 else ''} in the text"
    if shared:
        listed = ", ".join(shared)
        overlap = (
            f"{len(shared)} of its {len(near)} nearest static pieces ({listed}) "
            f"{'is' if len(shared) == 1 else 'are'} among {neighbours}"
        )
    else:
        overlap = f"none of its {len(near)} nearest static pieces is among {neighbours}"
    top = context.iloc[0]
    return text + (
        f" Context adds: {overlap}; the nearest in context is {top['token']} (cosine "
        f"{float(top['contextual']):.3f} there, {float(top['static']):.3f} in the static table)."
    )
