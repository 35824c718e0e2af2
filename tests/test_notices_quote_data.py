"""The position and control-task sentences quote only numbers of the data they describe (the
position heatmap's cosines, the probe table's columns), on a random DistilBERT."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer.figures.positions import position_figure, position_notice
from explorer.positions import position_cosines, position_map, position_table
from explorer.probing import layer_scores
from explorer.probing.control import control_notice
from tests.snippets import headline_numbers
from tests.test_probing_scores import toy_set


@pytest.fixture(scope="module")
def distilbert(distilbert_path) -> explorer.Model:
    return explorer.load_model(distilbert_path)


def _two(value: float) -> str:
    return f"{round(float(value), 2) + 0.0:.2f}"


def test_the_position_sentence_quotes_the_figures_data(distilbert):
    positions = position_table(distilbert)
    cosines = position_cosines(positions.table)
    figure = position_figure(position_map(positions.table), cosines, positions.first)
    note = position_notice(cosines, positions.first)
    line = figure.data[0]
    count, first = re.search(r"The (\d+) positions \(from (\d+)\)", note).groups()
    assert int(count) == len(line.x) == len(cosines)
    assert line.text[0] == f"position {first}"
    quoted = re.findall(r"(-?\d+\.\d+) for positions (\d+) apart", note)
    assert quoted and len(quoted) == len(headline_numbers(note))  # no other decimal
    for value, gap in quoted:
        assert value == _two(np.diagonal(cosines, offset=int(gap)).mean()), gap


def test_the_control_sentence_quotes_the_tables_numbers(distilbert):
    texts, labels = toy_set()
    scores = layer_scores(distilbert, texts, labels, pooling="mean", folds=3, control=True)
    note = control_notice(scores)
    table = scores.set_index("layer")
    layer, control, accuracy, selectivity = re.search(
        r"scores (\d\.\d\d) at layer (\d+), where it reads the real label at (\d\.\d\d): "
        r"selectivity ([-+]\d\.\d\d)",
        note,
    ).group(2, 1, 3, 4)
    row = table.loc[int(layer)]
    assert control == _two(row["control_mean"]) and accuracy == _two(row["accuracy_mean"])
    assert selectivity == f"{row['selectivity']:+.2f}"
    shown = {_two(v) for v in table[["accuracy_mean", "control_mean"]].to_numpy().ravel()}
    shown |= {_two(v) for v in table["selectivity"]} | {f"{v:+.2f}" for v in table["selectivity"]}
    assert set(headline_numbers(note)) <= shown, note
    best = re.search(r"most selective layer is (\d+) \(([-+]\d\.\d\d)\)", note)
    if best:
        assert best.group(2) == f"{table.loc[int(best.group(1)), 'selectivity']:+.2f}"
        assert table["selectivity"].idxmax() == int(best.group(1))
