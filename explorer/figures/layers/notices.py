"""The Layers page's opening sentence, read from :func:`explorer.layerstats.layer_summary`'s
table as the page shows it (plain text; escape to show)."""

from __future__ import annotations

import pandas as pd

from explorer._shown import extremes, join, shown
from explorer.layerstats import DEFAULT_THRESHOLD


def summary_notice(summary: pd.DataFrame, token_text: str) -> str:
    """The page's opening sentence from :func:`layer_summary` (plain text; escape to show):
    where ``token_text`` changes most, how the mean norm moves, and the dimension that is on
    top at most layers.

    Claims are read from the numbers as the summary table shows them (cosines and norms with
    two decimals, stds with one): "most" and "least" only when those differ, naming every step
    that ties at the extreme, "rises" or
    "falls" by the sign of the change, "a rogue dimension" only for a dimension on top at half
    the layers or more beyond :data:`DEFAULT_THRESHOLD` stds (the outliers' mark)."""
    if len(summary) < 2:
        raise ValueError("The summary needs at least two layers (embeddings and one more).")
    summary = summary.reset_index(drop=True)
    changes = summary["change"].iloc[1:]
    counts = summary["top dimension"].value_counts()
    dimension, layers = int(counts.index[0]), int(counts.iloc[0])
    layer, word = summary["layer"].astype(int), f"“{token_text}”"
    last = int(layer.iloc[-1])
    # the lowest cosine is the most change; steps that tie at two decimals are named together
    least, most = ([int(changes.index[i]) for i in found] for found in extremes(changes))

    def steps(found: list[int], long: bool) -> str:
        return join(
            [f"from layer {layer[i - 1]} to {'layer ' if long else ''}{layer[i]}" for i in found]
        )

    if len(changes) == 1:
        text = (
            f"{word} has a cosine of {shown(changes[most[0]])} with its vector at layer {layer[0]}."
        )
    elif len(most) == len(changes):
        text = (
            f"{word} changes about as much at every layer: its cosine with its vector at the "
            f"layer before is {shown(changes[most[0]])} at every layer from {layer[1]} to {last}."
        )
    else:
        each = " each" if len(most) > 1 else ""
        text = (
            f"{word} changes most {steps(most, True)} (cosine {shown(changes[most[0]])}{each} "
            f"with its previous vector) and least {steps(least, False)} "
            f"({shown(changes[least[0]])}{' each' if len(least) > 1 else ''})."
        )
    start, end = (f"{summary['mean norm'].iloc[i]:.2f}" for i in (0, -1))
    if start == end:
        text += f" The mean vector norm is {start} at layer 0 and at layer {last}."
    else:
        moves = "rises" if float(end) > float(start) else "falls"
        text += f" The mean vector norm {moves} from {start} at layer 0 to {end} at layer {last}."
    tied = sorted(int(d) for d, c in counts.items() if c == layers)  # on top equally often
    if layers > 1 and len(tied) == 1:
        peak = summary.loc[summary["top dimension"] == dimension, "top sigmas"].max()
        text += (
            f" Dimension {dimension} holds the largest value at {layers} of {len(summary)} "
            f"layers (up to {peak:.1f} standard deviations)"
        )
        rogue = 2 * layers >= len(summary) and peak > DEFAULT_THRESHOLD
        text += ": a rogue dimension." if rogue else "."
    elif layers > 1:
        text += (
            f" Dimensions {join([str(d) for d in tied])} each hold the largest value at "
            f"{layers} of {len(summary)} layers."
        )
    return text
