"""Head ablation's table, heatmap and what-to-notice sentences (pure functions of the numbers
:mod:`explorer.attention._ablation` gives)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

PAPER = "Michel, Levy and Neubig (2019), *Are Sixteen Heads Really Better than One?*"


def heads_label(heads: dict) -> str:
    """``{layer: heads}`` (from 1) in words: "layer 3 head 5, layer 4 heads 1, 2"."""
    parts = [
        f"layer {layer} head{'s' if len(chosen) > 1 else ''} {', '.join(map(str, chosen))}"
        for layer, chosen in sorted(heads.items())
    ]
    return "; ".join(parts) if parts else "no head"


def comparison_table(full, ablated) -> pd.DataFrame:
    """Each measure with all heads, with the chosen heads off, and the change."""
    rows = [
        ("Sense gap of 'bank' (same - different sense cosine)", full.gap, ablated.gap),
        ("Cosine of the two sentences", full.cosine, ablated.cosine),
    ]
    if full.guess is not None:
        rows.append(
            (f"Probability of the guess {full.guess[0]!r}", full.guess[2], ablated.guess[2])
        )
    table = pd.DataFrame(rows, columns=["measure", "all heads", "heads off"])
    table["change"] = table["heads off"] - table["all heads"]
    return table


def ablation_notice(full, ablated, total_heads: int) -> str:
    """What to notice: how far the measures moved with the chosen heads off, named after the
    paper; true for the numbers given."""
    off = sum(len(chosen) for chosen in ablated.heads.values())
    if not off:
        return (
            "Choose heads to switch off: " + PAPER + " found that most single heads can be "
            "removed at test time with little loss."
        )
    gap, cosine = ablated.gap - full.gap, ablated.cosine - full.cosine
    text = (
        f"With {off} of {total_heads} heads off ({heads_label(ablated.heads)}), the sense gap "
        f"moves by {gap:+.3f} (from {full.gap:.3f} to {ablated.gap:.3f}) and the sentence "
        f"cosine by {cosine:+.3f}."
    )
    if full.guess is not None and ablated.guess is not None:
        same = ablated.guess[0] == full.guess[0]
        text += (
            f" The lens still guesses {full.guess[0]!r}."
            if same
            else f" The lens's guess changes from {full.guess[0]!r} to {ablated.guess[0]!r}."
        )
    small = max(abs(gap), abs(cosine)) < 0.01
    text += (
        " Barely a change: as " + PAPER + " found, many heads can go without loss."
        if small
        else " " + PAPER + " found most single heads can go with little loss, "
        "while a few matter: these do here."
    )
    return text


def ranking_notice(table: pd.DataFrame, measure: str, total_heads: int) -> str:
    """What to notice in a ranking: the head that matters most and how many barely matter."""
    top = table.iloc[0]
    changes = table["change"].abs().to_numpy()
    largest = float(changes.max())
    small = int((changes < 0.1 * largest).sum()) if largest > 0 else len(changes)
    scope = "" if len(table) == total_heads else f" (the {len(table)} heads ranked)"
    return (
        f"Removing layer {int(top['layer'])} head {int(top['head'])} changes the {measure} most, "
        f"by {top['change']:+.3f} (from {table.attrs['full']:.3f}); {small} of {len(table)} "
        f"heads{scope} change it by less than a tenth of that. {PAPER} found the same "
        "shape in trained models: a few heads matter, most can go."
    )


def ranking_heatmap(table: pd.DataFrame, layers: int, heads: int, measure: str) -> go.Figure:
    """Layer x head grid of the change each head's removal makes (blank: not ranked)."""
    grid = np.full((layers, heads), np.nan)
    for layer, head, change in table[["layer", "head", "change"]].itertuples(index=False):
        grid[int(layer) - 1, int(head) - 1] = change
    extent = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0
    figure = go.Figure(
        go.Heatmap(
            z=grid,
            x=list(range(1, heads + 1)),
            y=list(range(1, layers + 1)),
            colorscale="RdBu",
            zmid=0,
            zmin=-extent,
            zmax=extent,
            colorbar={"title": "change<br>red: falls<br>blue: rises"},
            hovertemplate="layer %{y}, head %{x} off: %{z:+.4f}<extra></extra>",
        )
    )
    figure.update_layout(
        title=f"Change in the {measure} when one head is off",
        xaxis_title="head",
        yaxis_title="layer",
        yaxis={"autorange": "reversed", "dtick": 1},
        xaxis={"dtick": 1},
        height=120 + 22 * layers,
        margin={"t": 50, "b": 40, "l": 50, "r": 20},
    )
    return figure
