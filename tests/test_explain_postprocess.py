"""postprocess and rogue_share against their formulas."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import PCA

from explorer.choice import POSTPROCESSING
from explorer.explain import postprocess, rogue_share
from explorer.explain._postprocess import abtt_components, rogue_report


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    reference = rng.normal(size=(60, 8)) * np.array([1, 2, 3, 1, 1, 5, 1, 0.5]) + 4.0
    vectors = rng.normal(size=(7, 8)) + 4.0
    return vectors, reference


def test_none_and_center(data):
    vectors, reference = data
    np.testing.assert_allclose(postprocess(vectors, "none", reference), vectors, rtol=1e-6)
    expected = vectors - reference.mean(axis=0)
    np.testing.assert_allclose(postprocess(vectors, "center", reference), expected, atol=1e-5)
    own = postprocess(vectors, "center")
    np.testing.assert_allclose(own.mean(axis=0), 0, atol=1e-5)


def test_standardize_is_a_z_score_over_the_reference(data):
    vectors, reference = data
    mean, std = reference.mean(axis=0), reference.std(axis=0)
    got = postprocess(vectors, "standardize", reference)
    np.testing.assert_allclose(got, (vectors - mean) / std, atol=1e-5)
    own = postprocess(reference, "standardize")
    np.testing.assert_allclose(own.std(axis=0), 1, atol=1e-5)
    # A constant dimension stays finite (divided by 1, not 0).
    flat = reference.copy()
    flat[:, 2] = 7.0
    assert np.isfinite(postprocess(vectors, "standardize", flat)).all()


@pytest.mark.parametrize("components", [1, 3])
def test_abtt_removes_the_top_principal_directions(data, components):
    vectors, reference = data
    pca = PCA(n_components=components).fit(reference)
    centred = vectors - pca.mean_
    expected = centred - centred @ pca.components_.T @ pca.components_
    got = postprocess(vectors, "abtt", reference, components=components)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(got @ pca.components_.T, 0, atol=1e-5)


def test_abtt_default_follows_the_dim_over_100_rule():
    assert [abtt_components(d) for d in (8, 300, 384, 768, 1024)] == [1, 3, 4, 8, 10]
    rng = np.random.default_rng(0)
    reference = rng.normal(size=(30, 384))
    pca = PCA(n_components=4).fit(reference)
    got = postprocess(reference[:3], "abtt", reference)
    np.testing.assert_allclose(got @ pca.components_.T, 0, atol=1e-4)


def test_bad_inputs_are_refused(data):
    vectors, reference = data
    with pytest.raises(ValueError, match="choose one of"):
        postprocess(vectors, "whiten")
    with pytest.raises(ValueError, match="dimensions"):
        postprocess(vectors, "center", reference[:, :4])
    with pytest.raises(ValueError, match="more than 3 reference"):
        postprocess(vectors, "abtt", reference[:3], components=3)
    with pytest.raises(ValueError, match=r"\(n, dim\)"):
        postprocess(np.zeros(5), "center")
    assert set(POSTPROCESSING) == {"none", "center", "standardize", "abtt"}


def _all_pair_contributions(vectors):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    n = len(unit)
    return np.array([unit[i] * unit[j] for i in range(n) for j in range(i + 1, n)])


def test_rogue_share_by_hand():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(12, 6))
    vectors[:, 4] += 30.0  # one rogue dimension, same sign everywhere
    parts = _all_pair_contributions(vectors)
    share = rogue_share(vectors, k=1)
    assert share.dimensions == (4,)
    assert share.pairs == len(parts) == 66
    np.testing.assert_allclose(share.contributions, parts.mean(axis=0), atol=1e-12)
    cosines = parts.sum(axis=1)
    assert share.mean_cosine == pytest.approx(cosines.mean())
    by_pair = np.abs(parts[:, 4]) / np.abs(parts).sum(axis=1)
    assert share.share == pytest.approx(by_pair.mean()) and share.share > 0.9
    assert share.share_of_mean == pytest.approx(parts[:, 4].mean() / cosines.mean())


def test_standardizing_takes_the_weight_off_the_rogue_dimension():
    rng = np.random.default_rng(2)
    vectors = rng.normal(size=(50, 20))
    vectors[:, 7] = vectors[:, 7] * 5 + 40.0
    before, after, sentence = rogue_report(vectors, "standardize", k=1)
    assert before.dimensions == after.dimensions == (7,)
    assert before.share > 0.9 > 0.2 > after.share
    assert "(7)" in sentence and f"{before.share:.0%}" in sentence
    assert f"after standardize, {after.share:.0%}" in sentence


@pytest.mark.parametrize("mode", POSTPROCESSING)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_is_refused(data, mode, bad):
    # issue 32, finding 13: NaN went through, and abtt raised numpy's LinAlgError
    vectors, reference = data
    broken = vectors.copy()
    broken[2, 5] = bad
    with pytest.raises(ValueError, match="NaN or infinite values in the vectors"):
        postprocess(broken, mode, reference)
    broken = reference.copy()
    broken[0, 0] = bad
    with pytest.raises(ValueError, match="NaN or infinite values in the reference"):
        postprocess(vectors, mode, broken)
    with pytest.raises(ValueError, match="NaN or infinite"):
        rogue_share(np.where(np.isnan(vectors), 0, broken[:7]))


@pytest.mark.parametrize("mode", POSTPROCESSING)
@pytest.mark.parametrize("scale", [1e-300, 1e30, 1e300])
def test_post_processing_has_no_overflow_and_scales_with_the_vectors(data, mode, scale):
    vectors, reference = data
    vectors, reference = vectors - 4.0, reference - 4.0  # centred: differences ~ values
    plain = postprocess(vectors, mode, reference).astype(np.float64)
    if mode == "standardize":  # z-scores: the same whatever the units
        np.testing.assert_allclose(postprocess(vectors * scale, mode, reference * scale), plain,
                                   atol=1e-5)  # fmt: skip
        return
    expected = plain * scale
    if np.abs(expected).max() > np.finfo(np.float32).max:
        with pytest.raises(ValueError, match="beyond what float32 holds"):
            postprocess(vectors * scale, mode, reference * scale)
        return
    got = postprocess(vectors * scale, mode, reference * scale).astype(np.float64)
    if scale < 1e-40:  # below float32's smallest: zeros, not NaN
        assert np.array_equal(got, np.zeros_like(got))
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


def test_values_beyond_float32_are_refused_not_made_inf(data):
    # issue 32, finding 13: values >= 3.4e38 became inf
    vectors, reference = data
    with pytest.raises(ValueError, match=r"as they are reach \d.\d+e\+38, beyond what float32"):
        postprocess(vectors * 1e38, "none", reference * 1e38)
    for mode in ("center", "abtt"):
        with pytest.raises(ValueError, match=rf"after {mode} reach .* beyond what float32 holds"):
            postprocess(vectors * 1e39, mode, reference * 1e39)
    huge = postprocess(vectors * 1e300, "standardize", reference * 1e300)
    np.testing.assert_allclose(huge, postprocess(vectors, "standardize", reference), atol=1e-5)
