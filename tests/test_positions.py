"""Position embeddings: the table read from the model (or none, said), its 2-D map, the cosines,
the sentence and the figure."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import explorer
from explorer.figures.positions import MAX_CELLS, position_figure, position_notice
from explorer.positions import position_cosines, position_map, position_table


def test_the_table_of_a_bert_and_a_distilbert(tiny, distilbert_path):
    for model in (tiny, explorer.load_model(distilbert_path)):
        positions = position_table(model)
        weight = model.encoder.embeddings.position_embeddings.weight.detach().numpy()
        assert positions.first == 0 and positions.note == ""
        np.testing.assert_array_equal(positions.table, weight[: model.max_length])


def _bare(model_type: str, encoder) -> SimpleNamespace:
    """What position_table reads of a Model: its encoder, type and token limit."""
    return SimpleNamespace(encoder=encoder, model_type=model_type, max_length=16)


def test_roberta_style_tables_skip_the_rows_before_the_padding_index():
    from transformers import RobertaConfig, RobertaModel

    config = RobertaConfig(
        vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=16, max_position_embeddings=40, pad_token_id=1,
    )  # fmt: skip
    encoder = RobertaModel(config)
    positions = position_table(_bare("roberta", encoder))
    weight = encoder.embeddings.position_embeddings.weight.detach().numpy()
    assert positions.first == 2
    np.testing.assert_array_equal(positions.table, weight[2:18])


def test_relative_position_models_have_no_table_and_say_what_they_use():
    from transformers import DebertaV2Config, DebertaV2Model, MPNetConfig, MPNetModel

    small = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2}
    deberta = DebertaV2Model(
        DebertaV2Config(
            vocab_size=50, intermediate_size=16, relative_attention=True,
            position_biased_input=False, **small,
        )
    )  # fmt: skip
    positions = position_table(_bare("deberta-v2", deberta))
    assert positions.table is None and "relative distance" in positions.note
    mpnet = MPNetModel(MPNetConfig(vocab_size=50, intermediate_size=16, **small))
    positions = position_table(_bare("mpnet", mpnet))
    assert positions.table is not None and "relative-position bias" in positions.note


def test_a_curve_keeps_its_shape_and_order_in_2d():
    # Positions on a circle inside 32 dimensions (rotated, shifted): the map is that circle.
    angles = np.linspace(0, np.pi, 50)
    circle = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    rotation, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(32, 32)))
    table = np.pad(circle, ((0, 0), (0, 30))) @ rotation + 3.0
    coords = position_map(table)
    gaps = np.linalg.norm(np.diff(coords, axis=0), axis=1)
    np.testing.assert_allclose(gaps, np.linalg.norm(np.diff(circle, axis=0), axis=1), atol=1e-9)
    assert (coords[0] >= 0).all()
    with pytest.raises(ValueError, match="2 or more rows"):
        position_map(table[:1])


def test_cosines_by_hand():
    cosines = position_cosines(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0], [0.0, 0.0]]))
    expected = np.array(
        [[1, 2**-0.5, 0, 0], [2**-0.5, 1, 2**-0.5, 0], [0, 2**-0.5, 1, 0], [0, 0, 0, 0]]
    )
    np.testing.assert_allclose(cosines, expected, atol=1e-12)


def test_the_sentence_quotes_the_gaps_and_says_whether_likeness_falls():
    n = 150
    gap = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    falling = position_notice(1 / (1 + gap / 20))
    assert "0.95 for positions 1 apart, 0.67 for positions 10 apart" in falling
    assert "0.17 for positions 100 apart" in falling and "the nearer two positions" in falling
    bumpy = position_notice(np.cos(gap / 8), first=2)
    assert "(from 2)" in bumpy and "does not fall steadily" in bumpy
    assert "positions 100 apart" not in position_notice(1 / (1 + gap[:20, :20]))
    noise = np.random.default_rng(0).normal(size=(n, 64))
    unrelated = position_notice(position_cosines(noise))
    assert "near 0 at every distance" in unrelated and "-0.00" not in unrelated


def test_figure_joins_the_positions_and_thins_the_heatmap(tiny):
    positions = position_table(tiny)
    cosines = position_cosines(positions.table)
    figure = position_figure(position_map(positions.table), cosines)
    line, heatmap = figure.data
    assert line.mode == "lines+markers" and len(line.x) == len(positions.table)
    side = len(heatmap.z)
    assert side <= MAX_CELLS and side == len(heatmap.x) == len(heatmap.y)
    assert heatmap.z[1][0] == pytest.approx(cosines[heatmap.x[1], 0])


@pytest.mark.parametrize("fixture", ["bundled", "tiny_bert_path", "distilbert_path"])
def test_the_sentence_matches_each_models_table(request, fixture):
    value = request.getfixturevalue(fixture)
    model = value if fixture == "bundled" else explorer.load_model(value)
    positions = position_table(model)
    cosines = position_cosines(positions.table)
    note = position_notice(cosines, positions.first)
    gaps = {g: np.diagonal(cosines, offset=g).mean() for g in (1, 10, 100) if g < len(cosines)}
    for g, mean in gaps.items():
        assert f"{round(mean, 2) + 0.0:.2f} for positions {g} apart" in note
    values = list(gaps.values())
    unrelated = all(abs(v) < 0.05 for v in values)
    falling = all(a > b for a, b in zip(values, values[1:], strict=False))
    assert ("near 0 at every distance" in note) == unrelated
    assert ("the nearer two positions" in note) == (not unrelated and falling)
