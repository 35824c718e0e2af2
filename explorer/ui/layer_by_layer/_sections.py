"""The Layers page's sections: the summary table, every layer's statistics, the outlier
dimensions and the vector norms.

Each draws one section from the hidden states the page computed; the numbers come from
:mod:`explorer.layerstats`, the charts from :mod:`explorer.figures`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import streamlit as st

from explorer import layerstats
from explorer.figures.layers import dimension_profile, norm_heatmap, statistics_chart
from explorer.model import Tokenization
from explorer.ui import presentation


def statistics(hidden: np.ndarray, include_special: bool, special: Sequence[bool]) -> pd.DataFrame:
    """The "Statistics of every layer" expander for ``hidden (L + 1, T, H)``; returns the
    table (a row per layer, special tokens counted when ``include_special``)."""
    with st.expander("Statistics of every layer"):
        table = layerstats.layer_statistics(hidden, include_special, special)
        series = {"all tokens": layerstats.layer_statistics(hidden)}
        if any(special) and not all(special):
            series["without special tokens"] = layerstats.layer_statistics(hidden, False, special)
        st.plotly_chart(statistics_chart(series), width="stretch", key="layers.stats_chart")
        presentation.table(
            table,
            hide_index=True,
            width="stretch",
            key="layers.stats_table",
            column_config={
                "layer": st.column_config.NumberColumn("layer", help="0 = embedding output"),
                "tokens": st.column_config.NumberColumn("tokens", help="Token vectors counted"),
                **{
                    key: st.column_config.NumberColumn(
                        layerstats.STATISTIC_LABELS[key], format="%.4f"
                    )
                    for key in layerstats.STATISTICS
                },
                "norm": st.column_config.NumberColumn(
                    "mean norm", format="%.4f", help="Mean L2 norm of the token vectors"
                ),
                "kurtosis": st.column_config.NumberColumn(
                    "kurtosis", format="%.2f", help="Fisher kurtosis: 0 for a normal distribution"
                ),
            },
        )
        st.caption(
            "Over all values of a layer's token vectors: mean, standard deviation, the mean L2 "
            "norm of a token vector, the largest |value| and the Fisher kurtosis (0 for a normal "
            "distribution; large = heavy tails, i.e. a few huge values). The chart shows the "
            "statistics with and without special tokens; the table "
            f"{'includes them' if include_special else 'leaves them out'} (toggle above)."
        )
    return table


def outliers(
    hidden: np.ndarray,
    statistics: pd.DataFrame,
    layer: int,
    labels: Sequence[str],
    tokenization: Tokenization,
    include_special: bool,
) -> None:
    """The "Outlier dimensions" expander: the threshold slider, the summary, the profile of
    ``layer`` and the table of outlier dimensions (``statistics`` from :func:`statistics`)."""
    num_layers = hidden.shape[0] - 1
    with st.expander("Outlier dimensions"):
        threshold = st.slider(
            "Threshold (standard deviations of the layer)",
            2.0,
            12.0,
            value=layerstats.DEFAULT_THRESHOLD,
            step=0.5,
            key="layers.threshold",
            help="A dimension is an outlier at a layer when |value| > threshold × the std of all "
            "values of that layer, for at least one token.",
        )
        found = layerstats.outlier_dimensions(
            hidden, threshold, include_special, tokenization.special, tokenization.tokens
        )
        st.markdown(layerstats.outlier_summary(found, num_layers, threshold))
        st.caption(
            "BERT-family models have a few *rogue dimensions* whose values are many times larger "
            "than the rest. They dominate dot products, so cosine similarity between two token "
            "vectors is decided mostly by those few dimensions rather than by the hundreds of "
            "others (Timkey & van Schijndel, 2021, *All Bark and No Bite: Rogue Dimensions in "
            "Transformer Language Models Obscure Representational Quality*). Standardising each "
            "dimension before comparing vectors reduces their weight."
        )
        peaks = layerstats.dimension_peaks(hidden, layer, include_special, tokenization.special)
        st.plotly_chart(
            dimension_profile(
                peaks,
                labels,
                layer,
                float(statistics["std"].iloc[layer]),
                threshold,
                found.loc[found["layer"] == layer, "dimension"].tolist(),
            ),
            width="stretch",
            key="layers.dimensions",
        )
        if not found.empty:
            presentation.table(
                found.drop(columns="positions"),
                hide_index=True,
                width="stretch",
                key="layers.outlier_table",
                column_config={
                    "count": st.column_config.NumberColumn("tokens firing"),
                    "max_abs": st.column_config.NumberColumn("max |value|", format="%.3f"),
                    "sigmas": st.column_config.NumberColumn("max |value| / std", format="%.1f"),
                    "tokens": st.column_config.TextColumn("where (position: token)"),
                },
            )


def summary_table(summary: pd.DataFrame, token: str) -> None:
    """The page's summary of every layer (:func:`explorer.layerstats.layer_summary`), its
    columns explained; ``token`` is the chosen token's text."""
    presentation.table(
        summary,
        hide_index=True,
        width="stretch",
        key="layers.summary",
        column_config={
            "layer": st.column_config.NumberColumn("layer", help="0 = embedding output"),
            "mean norm": st.column_config.NumberColumn(
                "mean norm", format="%.2f", help="Mean L2 norm of the token vectors of the layer"
            ),
            "top dimension": st.column_config.NumberColumn(
                "top dimension", help="The dimension holding the largest |value| of the layer"
            ),
            "top sigmas": st.column_config.NumberColumn(
                "its |value| / std", format="%.1f", help="That value in stds of the layer"
            ),
            "token norm": st.column_config.NumberColumn(f"norm of {token!r}", format="%.2f"),
            "change": st.column_config.ProgressColumn(
                f"{token!r}: cosine to previous layer",
                format="%.2f",
                min_value=0.0,
                max_value=1.0,
                help="1 = the layer left the token's vector as it was; lower = it changed more",
            ),
        },
    )


def norms(hidden: np.ndarray, labels: Sequence[str], token: int, layer: int) -> None:
    """The "Vector norms, token by layer" expander: every token's norm at every layer of
    ``hidden (L + 1, T, H)``, the chosen ``token`` and ``layer`` marked."""
    with st.expander("Vector norms, token by layer"):
        st.plotly_chart(
            norm_heatmap(layerstats.token_norms(hidden), labels, token, layer),
            width="stretch",
            key="layers.norms",
        )
        st.caption(
            "The L2 norm of every token vector at every layer. Special tokens and punctuation "
            "often stand apart from the words: compare their rows."
        )
