"""Figures of the Layers page: titles, axis titles, legends, hover, and the right shapes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from explorer import layerstats
from explorer.figures import layers as figures

L, T, H = 4, 6, 32


@pytest.fixture
def hidden() -> np.ndarray:
    hidden = np.random.default_rng(0).normal(size=(L + 1, T, H)).astype(np.float32)
    hidden[:, 2, 5] = 30.0  # one rogue dimension on token 2
    return hidden


@pytest.fixture
def labels() -> list[str]:
    return layerstats.token_labels(["[CLS]", "the", "bank", "river", ".", "[SEP]"])


def _has_titles(fig: go.Figure, x: str | None = None, y: str | None = None) -> None:
    assert fig.layout.title.text
    if x is not None:
        assert fig.layout.xaxis.title.text == x
    if y is not None:
        assert y in fig.layout.yaxis.title.text
    for trace in fig.data:
        assert trace.hovertemplate


def test_token_histogram(hidden, labels):
    fig = figures.token_histogram(hidden[3, 2], labels[2], 3)
    _has_titles(fig, "value", "count")
    assert "layer 3" in fig.layout.title.text.lower() and "2: bank" in fig.layout.title.text
    assert sum(fig.data[0].y) == H
    assert (
        figures.token_histogram(hidden[0, 2], labels[2], 0, log_counts=True).layout.yaxis.type
        == "log"
    )


def test_layer_histogram_combined_and_overlay(hidden, labels):
    combined = figures.layer_histogram(hidden[1], labels, 1, chosen=2)
    _has_titles(combined, "value", "count")
    assert len(combined.data) == 1 and sum(combined.data[0].y) == T * H

    overlay = figures.layer_histogram(hidden[1], labels, 1, chosen=2, mode="overlay")
    _has_titles(overlay, "value", "count")
    assert len(overlay.data) == T
    assert overlay.layout.showlegend
    legend = [trace.name for trace in overlay.data if trace.showlegend]
    assert legend == ["other tokens", "token 2: bank"]
    assert overlay.data[-1].line.color == figures.HIGHLIGHT

    keep = [False, True, True, True, True, False]
    fewer = figures.layer_histogram(hidden[1], labels, 1, chosen=0, mode="overlay", keep=keep)
    assert len(fewer.data) == 4  # the chosen [CLS] is left out, so nothing is highlighted
    assert all(trace.line.color == figures.MUTED for trace in fewer.data)
    with pytest.raises(ValueError, match="combined"):
        figures.layer_histogram(hidden[1], labels, 1, mode="stacked")


def test_layer_grid_has_one_subplot_per_layer_with_shared_axes(hidden, labels):
    fig = figures.layer_grid(hidden[:, 2], labels[2], chosen_layer=3)
    _has_titles(fig)
    xaxes = [key for key in fig.layout if key.startswith("xaxis")]
    assert len(xaxes) == L + 1 and len(fig.data) == L + 1
    assert [a.text for a in fig.layout.annotations] == ["layer 0 (embeddings)"] + [
        f"layer {i}" for i in range(1, L + 1)
    ]
    ranges = {tuple(fig.layout[key].range) for key in xaxes}
    assert len(ranges) == 1  # one shared value range
    highest = max(max(trace.y) for trace in fig.data)
    for key in (k for k in fig.layout if k.startswith("yaxis")):
        assert tuple(fig.layout[key].range) == pytest.approx((0, highest * 1.05))
    assert any(fig.layout[key].title.text == "value" for key in xaxes)
    assert fig.data[3].marker.color == figures.HIGHLIGHT
    assert fig.data[0].marker.color == figures.BASE


@pytest.mark.parametrize("layers", [1, 6, 12, 24])
def test_layer_grid_counts_for_several_depths(layers):
    stack = np.random.default_rng(layers).normal(size=(layers + 1, 16))
    fig = figures.layer_grid(stack, "0: x", log_counts=True)
    assert len([key for key in fig.layout if key.startswith("xaxis")]) == layers + 1
    assert fig.layout.yaxis.type == "log"


def test_statistics_chart(hidden):
    tables = {
        "all tokens": layerstats.layer_statistics(hidden),
        "without special tokens": layerstats.layer_statistics(hidden, include_special=False),
    }
    fig = figures.statistics_chart(tables)
    _has_titles(fig, "layer")
    assert len(fig.data) == 2 * len(layerstats.STATISTICS)
    assert [t.name for t in fig.data if t.showlegend] == list(tables)
    assert list(fig.data[0].x) == list(range(L + 1))
    with pytest.raises(ValueError):
        figures.statistics_chart({})


def test_dimension_profile_marks_outliers(hidden, labels):
    outliers = layerstats.outlier_dimensions(hidden)
    at_two = outliers.loc[outliers["layer"] == 2, "dimension"].tolist()
    assert at_two == [5]
    peaks = layerstats.dimension_peaks(hidden, 2)
    std = float(layerstats.layer_statistics(hidden)["std"].iloc[2])
    fig = figures.dimension_profile(peaks, labels, 2, std, 6.0, at_two)
    _has_titles(fig, "dimension", "max |value|")
    names = [trace.name for trace in fig.data]
    assert names[0] == "other dimensions" and names[1].startswith("outlier dimensions")
    assert list(fig.data[1].x) == [5]
    assert fig.data[2].y[0] == pytest.approx(6.0 * std)
    assert [a.text for a in fig.layout.annotations] == ["dim 5"]


def test_norm_heatmap_is_tokens_by_layers(hidden, labels):
    norms = layerstats.token_norms(hidden)
    fig = figures.norm_heatmap(norms, labels, chosen_token=2, chosen_layer=3)
    _has_titles(fig, y="token")
    assert "layer" in fig.layout.xaxis.title.text
    heatmap = fig.data[0]
    assert np.asarray(heatmap.z).shape == (T, L + 1)
    assert list(heatmap.y) == labels and list(heatmap.x) == list(range(L + 1))
    assert fig.layout.yaxis.autorange == "reversed"
    assert fig.data[1].x[0] == 3 and fig.data[1].y[0] == "2: bank"
    with pytest.raises(ValueError):
        figures.norm_heatmap(norms, labels[:-1])


def test_summary_notice_reads_the_summary():
    summary = pd.DataFrame(
        {
            "layer": [0, 1, 2, 3],
            "mean norm": [9.6, 11.0, 12.0, 8.1],
            "top dimension": [99, 99, 5, 99],
            "top sigmas": [12.0, 13.0, 4.0, 17.0],
            "token norm": [1.0, 1.0, 1.0, 1.0],
            "change": [np.nan, 0.9, 0.95, 0.6],
        }
    )
    text = figures.summary_notice(summary, "bank")
    assert "“bank” changes most from layer 2 to layer 3 (cosine 0.60" in text
    assert "least from layer 1 to 2 (0.95)" in text
    assert "falls from 9.60 at layer 0 to 8.10 at layer 3" in text
    assert "Dimension 99 holds the largest value at 3 of 4 layers (up to 17" in text
    with pytest.raises(ValueError, match="two layers"):
        figures.summary_notice(summary.iloc[:1], "bank")
