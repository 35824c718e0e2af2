"""The vocabulary map's scatter (a pure function of :func:`explorer.vocabulary.vocabulary_map`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from explorer.vocabulary import KINDS


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
                    text=part["piece"], marker={"size": 3, "opacity": 0.6},
                    hovertemplate="%{text}<extra></extra>",
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
    figure.update_layout(
        title="Every piece of the vocabulary: input embeddings, first two principal components",
        xaxis_title="PC 1", yaxis_title="PC 2", height=520, legend={"itemsizing": "constant"},
    )  # fmt: skip
    return figure
