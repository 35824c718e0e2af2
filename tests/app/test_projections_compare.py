"""The Projections page's second map (issue 27, item 8): "Another layer choice" opens on a
layer choice other than the map's own, and a selection on either map opens the neighbour
panel (the browser clicks the second map: tests/browser/test_inspector.py)."""

from __future__ import annotations

import json
import re

import pytest

from explorer.layers import LAYER_CHOICES
from explorer.ui.projection_maps._compare import contrast_layers
from explorer.ui.projection_maps._map import inspects_second

JACCARD = "Neighbourhoods shared (10-NN, Jaccard)"


@pytest.mark.parametrize("layers", LAYER_CHOICES)
def test_the_comparison_opens_on_another_layer_choice(layers):
    other = contrast_layers(layers)
    assert other in LAYER_CHOICES and other != layers


@pytest.mark.parametrize(
    ("own", "other", "last", "second"),
    [
        ([], [], None, False),
        ([3], [], "compare", False),  # nothing selected on the second map
        ([], [5], None, True),  # the only selection
        ([], [5], "main", True),  # the main map's selection was cleared
        ([3], [5], "compare", True),  # the second map was clicked last
        ([3], [5], "main", False),  # the main map was clicked last
        ([3], [5], None, False),
    ],
)
def test_the_panel_inspects_the_map_selected_last(own, other, last, second):
    assert inspects_second(own, other, last) is second


@pytest.mark.slow
def test_another_layer_choice_is_not_the_maps_own(page):
    at = page("projections")
    at.selectbox(key="projections.compare").select("layers").run()
    assert not at.exception, [e.message for e in at.exception]
    own = at.selectbox(key="projections.layers").value
    other = at.selectbox(key="projections.compare_layers").value
    assert other != own
    metrics = {m.label: float(m.value) for m in at.metric if m.label == JACCARD}
    assert metrics[JACCARD] < 0.9  # the same layer shares every neighbourhood (1.00)
    # The caption's share of neighbours is not the Jaccard index: two sets of 10 with index J
    # share 2J / (1 + J) of their members, more than J whenever 0 < J < 1.
    caption = next(c.value for c in at.caption if "nearest neighbours are shared" in c.value)
    share = int(re.search(r"(\d+)% of each text's (?:10 )?nearest", caption).group(1))
    assert share > round(100 * metrics[JACCARD]), (share, metrics[JACCARD])
    second = next(c for c in at.get("plotly_chart") if c.key == "projections.compare_map")
    layout = json.loads(second.proto.spec)["layout"]
    assert layout["xaxis"]["title"]["text"].startswith("PC1 (")  # not a bare "1"
    assert layout["title"]["text"].startswith("Embedding layer")  # capitalised
    at.selectbox(key="projections.compare_layers").select(own).run()
    assert float(next(m.value for m in at.metric if m.label == JACCARD)) == 1.0
