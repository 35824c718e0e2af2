"""The Attention page's table of head statistics: every head in the data grid; in presentation
mode the top of the table, the rest folded away."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import streamlit as st

from explorer.ui import messages, presentation

PRESENT_HEADS = 10
"""Heads the table lists in presentation mode, the top of its sort (a projector shows about as
many rows; 144 of BERT-base's heads ran over several screens). The rest fold into an expander."""


def head_table(
    shown: pd.DataFrame, total: int, statistic: str, statistics: Iterable[str], tokens: int
) -> None:
    """The head statistics ``shown`` (one row a head, of ``total``, filtered and sorted by the
    column ``statistic``, highest first; ``statistics``: the columns of shares and entropies),
    for an input of ``tokens`` tokens, with a caption saying what is shown."""
    config = {label: st.column_config.NumberColumn(label, format="%.3f") for label in statistics}
    top = shown.head(PRESENT_HEADS) if presentation.is_on() else shown
    presentation.table(
        top, hide_index=True, key="attention.stats", height=260, column_config=config
    )
    hidden = len(shown) - len(top)
    said = f"{len(shown)} of {total} heads, sorted by {statistic} (highest first)"
    if hidden:
        among = (
            f"all {total} heads"
            if len(shown) == total
            else f"the {len(shown)} heads (of {total}) the filter keeps"
        )
        said = (
            f"The top {len(top)} of {among}, by {statistic} (highest first); the other "
            f"{hidden} are under 'All {len(shown)} heads' below (or turn presentation mode off "
            "to sort the table by any column)."
        )
    else:
        said += "." if presentation.is_on() else "; click a column header to sort another way."
    messages.caption(  # escaped whole: the statistics name the model's specials ("on <s>")
        said + " Shares are the mean over attending tokens; entropy 0 = one token gets "
        f"everything, {np.log2(tokens):.1f} bits = spread evenly over all {tokens}."
    )
    if hidden:
        with st.expander(f"All {len(shown)} heads", key="attention.all_heads"):
            presentation.table(shown, hide_index=True, column_config=config)
