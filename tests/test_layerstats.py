"""Per-layer statistics, norms and outlier dimensions of hidden states."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from explorer import layerstats
from tests.conftest import TUTORIAL


@pytest.fixture
def noise() -> np.ndarray:
    """Pure Gaussian hidden states: 5 layers (0..4), 30 tokens, 64 dimensions."""
    return np.random.default_rng(0).normal(size=(5, 30, 64)).astype(np.float32)


def test_layer_statistics_has_one_row_per_layer_and_agrees_with_numpy():
    hidden = np.random.default_rng(1).normal(0.3, 2.0, size=(4, 9, 16)).astype(np.float32)
    table = layerstats.layer_statistics(hidden)
    assert list(table.columns) == ["layer", "tokens", *layerstats.STATISTICS]
    assert table["layer"].tolist() == [0, 1, 2, 3]
    assert (table["tokens"] == 9).all()
    for layer in range(4):
        values = hidden[layer].astype(np.float64)
        row = table.iloc[layer]
        assert row["mean"] == pytest.approx(values.mean(), abs=1e-9)
        assert row["std"] == pytest.approx(values.std(), abs=1e-9)
        assert row["norm"] == pytest.approx(np.linalg.norm(values, axis=1).mean(), abs=1e-9)
        assert row["max_abs"] == pytest.approx(np.abs(values).max(), abs=1e-9)
        assert row["kurtosis"] == pytest.approx(scipy.stats.kurtosis(values.ravel()), abs=1e-9)


def test_excluding_special_tokens_drops_them():
    hidden = np.random.default_rng(2).normal(size=(3, 6, 8))
    hidden[:, 0] += 100.0  # a wild [CLS]
    special = [True, False, False, False, False, True]
    with_special = layerstats.layer_statistics(hidden)
    without = layerstats.layer_statistics(hidden, include_special=False, special=special)
    assert (without["tokens"] == 4).all()
    expected = hidden[:, 1:5].reshape(3, -1).std(axis=1)
    np.testing.assert_allclose(without["std"], expected)
    assert (without["norm"] < with_special["norm"]).all()
    # Without flags, the first and last token are taken as [CLS] ... [SEP].
    default = layerstats.layer_statistics(hidden, include_special=False)
    np.testing.assert_allclose(default["std"], without["std"])


def test_token_mask_validates():
    assert layerstats.token_mask(3).all()
    with pytest.raises(ValueError, match="Only special tokens"):
        layerstats.token_mask(2, include_special=False, special=[True, True])
    with pytest.raises(ValueError, match="flags"):
        layerstats.token_mask(3, include_special=False, special=[True])


@pytest.mark.parametrize("shape", [(4, 5), (0, 3, 4), (2, 0, 4)])
def test_bad_shapes_raise_value_error(shape):
    with pytest.raises(ValueError):
        layerstats.layer_statistics(np.zeros(shape))


def test_kurtosis_of_a_normal_sample_is_about_zero():
    rng = np.random.default_rng(3)
    assert layerstats.kurtosis(rng.normal(size=200_000)) == pytest.approx(0.0, abs=0.05)
    assert layerstats.kurtosis(rng.uniform(size=200_000)) == pytest.approx(-1.2, abs=0.05)
    assert layerstats.kurtosis(rng.laplace(size=200_000)) == pytest.approx(3.0, abs=0.2)
    assert layerstats.kurtosis(np.ones(10)) == 0.0
    rows = rng.normal(size=(3, 1000))
    np.testing.assert_allclose(
        layerstats.kurtosis(rows, axis=1), scipy.stats.kurtosis(rows, axis=1)
    )


def test_vector_statistics():
    vector = np.array([3.0, -4.0, 0.0, 1.0])
    numbers = layerstats.vector_statistics(vector)
    assert numbers["mean"] == pytest.approx(0.0)
    assert numbers["std"] == pytest.approx(np.std(vector))
    assert numbers["norm"] == pytest.approx(np.sqrt(26.0))
    assert numbers["max_abs"] == 4.0
    with pytest.raises(ValueError):
        layerstats.vector_statistics(np.zeros((2, 2)))


def test_token_norms_is_tokens_by_layers(noise):
    norms = layerstats.token_norms(noise)
    assert norms.shape == (30, 5)
    assert norms[7, 3] == pytest.approx(np.linalg.norm(noise[3, 7]), rel=1e-6)


def test_nothing_fires_in_gaussian_noise_at_six_std(noise):
    outliers = layerstats.outlier_dimensions(noise)
    assert outliers.empty
    assert {"layer", "dimension", "count", "max_abs", "positions"} <= set(outliers.columns)
    assert "No dimension" in layerstats.outlier_summary(outliers, 4, 6.0)


def test_a_planted_outlier_dimension_is_found(noise):
    hidden = noise.copy()
    hidden[2, [3, 9, 11], 7] = [25.0, -30.0, 22.0]
    tokens = [f"t{i}" for i in range(30)]
    outliers = layerstats.outlier_dimensions(hidden, tokens=tokens)
    assert len(outliers) == 1
    row = outliers.iloc[0]
    assert (row["layer"], row["dimension"], row["count"]) == (2, 7, 3)
    assert row["positions"] == (3, 9, 11)
    assert row["max_abs"] == pytest.approx(30.0)
    assert row["sigmas"] > 6
    assert row["tokens"] == "3: t3, 9: t9, 11: t11"
    summary = layerstats.outlier_summary(outliers, 4, 6.0)
    assert "**7**" in summary and "1 dimension stands out" in summary
    # Excluding token 9 (as if it were special) leaves two firing tokens.
    special = [i == 9 for i in range(30)]
    fewer = layerstats.outlier_dimensions(hidden, include_special=False, special=special)
    assert fewer.iloc[0]["positions"] == (3, 11)
    # A lower threshold finds more; a bad one is refused.
    assert len(layerstats.outlier_dimensions(hidden, threshold=3.0)) > 1
    with pytest.raises(ValueError, match="threshold"):
        layerstats.outlier_dimensions(hidden, threshold=0)


def test_dimension_peaks(noise):
    hidden = noise.copy()
    hidden[1, 4, 10] = -40.0
    peaks = layerstats.dimension_peaks(hidden, 1)
    assert len(peaks) == 64
    assert peaks["dimension"].tolist() == list(range(64))
    row = peaks.iloc[10]
    assert row["max_abs"] == pytest.approx(40.0) and row["position"] == 4
    assert row["sigmas"] == pytest.approx(40.0 / hidden[1].std(), rel=1e-5)
    with pytest.raises(ValueError, match="out of range"):
        layerstats.dimension_peaks(hidden, 5)


def test_histogram_shares_bins():
    values = np.arange(10.0)
    counts, edges = layerstats.histogram(values, 5)
    assert counts.sum() == 10 and len(edges) == 6
    counts, edges = layerstats.histogram(values, 4, value_range=(0.0, 4.0))
    assert edges[0] == 0.0 and edges[-1] == 4.0 and counts.sum() == 5
    assert layerstats.shared_range(np.ones(3)) == (0.5, 1.5)
    with pytest.raises(ValueError):
        layerstats.histogram(values, 0)


def test_token_labels():
    assert layerstats.token_labels(["[CLS]", "bank"]) == ["0: [CLS]", "1: bank"]


@pytest.mark.slow
def test_bundled_model_shows_a_few_rogue_dimensions(bundled):
    hidden = bundled.hidden_states(TUTORIAL)
    tokens = bundled.tokenize(TUTORIAL)
    table = layerstats.layer_statistics(hidden)
    assert len(table) == bundled.num_layers + 1
    outliers = layerstats.outlier_dimensions(hidden, tokens=tokens.tokens)
    # A handful of dimensions, not thousands of (layer, dimension) pairs.
    assert 0 < outliers["dimension"].nunique() <= 10
    assert len(outliers) < 60
    assert outliers["layer"].nunique() >= 3
    # Heavy tails: the layers are far from Gaussian.
    assert (table["kurtosis"] > 1.0).all()


# -- the one-screen summary ------------------------------------------------------------


def test_default_token_prefers_the_ambiguous_word_then_a_content_word():
    tokens = ["[CLS]", "after", "the", "bank", "robber", ",", "[SEP]"]
    special = [True, False, False, False, False, False, True]
    assert layerstats.default_token(tokens, special, ("bank", "bat")) == 3
    assert layerstats.default_token(tokens, special) == 3  # "after", "the" are function words
    assert layerstats.default_token(["[CLS]", "the", ",", "[SEP]"], [1, 0, 0, 1]) == 1
    assert layerstats.default_token(["[CLS]", "[SEP]"], [1, 1]) == 0
    assert layerstats.default_token(["the", "##ing", "cat"]) == 2
    with pytest.raises(ValueError, match="flags"):
        layerstats.default_token(["a"], [True, False])


def test_layer_summary_norms_top_dimension_and_change():
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(4, 5, 16))
    hidden[:, :, 7] += 40.0  # a rogue dimension at every layer
    hidden[2, 1] = hidden[1, 1]  # token 1 unchanged by layer 2
    summary = layerstats.layer_summary(hidden, 1)
    assert summary["layer"].tolist() == [0, 1, 2, 3]
    assert (summary["top dimension"] == 7).all() and (summary["top sigmas"] > 2).all()
    np.testing.assert_allclose(summary["mean norm"], np.linalg.norm(hidden, axis=2).mean(1))
    np.testing.assert_allclose(summary["token norm"], np.linalg.norm(hidden[:, 1], axis=1))
    assert np.isnan(summary["change"].iloc[0])
    assert summary["change"].iloc[2] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="out of range"):
        layerstats.layer_summary(hidden, 5)
