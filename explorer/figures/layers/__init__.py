"""What the Layers page draws: value histograms, small multiples, per-layer statistics,
outlier dimensions and a token x layer heatmap of vector norms.

Every builder is a pure function from arrays (and tables of :mod:`explorer.layerstats`) to a
``plotly.graph_objects.Figure`` with a title, axis titles, hover text and a legend wherever
there is more than one series. One module per job, every name importable from here
(``from explorer.figures import layers as figures``):

* :mod:`~explorer.figures.layers.histograms`: histograms of vector values (one token, one
  layer, one token at every layer), binned with NumPy.
* :mod:`~explorer.figures.layers.statistics`: statistics per layer, outlier dimensions, norms.
* :mod:`~explorer.figures.layers.style`: the shared colours and :func:`layer_name`.
* :mod:`~explorer.figures.layers.notices`: the page's opening sentence.
"""

from __future__ import annotations

from explorer.figures.layers.histograms import (
    BIN_HOVER,
    HISTOGRAM_MODES,
    HistogramMode,
    layer_grid,
    layer_histogram,
    token_histogram,
)
from explorer.figures.layers.notices import summary_notice
from explorer.figures.layers.statistics import dimension_profile, norm_heatmap, statistics_chart
from explorer.figures.layers.style import BASE, HIGHLIGHT, MUTED, SERIES, layer_name

__all__ = [
    "BASE",
    "BIN_HOVER",
    "HIGHLIGHT",
    "HISTOGRAM_MODES",
    "MUTED",
    "SERIES",
    "HistogramMode",
    "dimension_profile",
    "layer_grid",
    "layer_histogram",
    "layer_name",
    "norm_heatmap",
    "statistics_chart",
    "summary_notice",
    "token_histogram",
]
