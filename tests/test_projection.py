"""Projector: shapes, explained variance, trustworthiness, small inputs, reproducibility."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from explorer.maps import (
    PROJECTIONS,
    Projector,
    min_points,
    total_explained_variance,
    trustworthiness,
)
from explorer.maps._tsne import (
    TSNE_EARLY_ITERATIONS,
    TSNE_ITERATIONS,
    fit_tsne,
    tsne_neighbors,
    tsne_reduce,
)


def _blobs(n: int = 60, d: int = 20, seed: int = 0) -> np.ndarray:
    """Three well-separated clusters in ``d`` dimensions, ``(n, d)`` float32."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=10, size=(3, d))
    return (centres[np.arange(n) % 3] + rng.normal(size=(n, d))).astype(np.float32)


def _plane(n: int = 200, d: int = 10, seed: int = 0) -> np.ndarray:
    """Points on a random 2-D plane inside ``d`` dimensions."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, 2)))[0].T  # (2, d), orthonormal rows
    return (rng.normal(size=(n, 2)) @ basis + rng.normal(size=d)).astype(np.float32)


def _fit_without_warnings(projector: Projector, X: np.ndarray) -> Projector:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        return projector.fit(X)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("method", ["pca", pytest.param("umap", marks=pytest.mark.slow), "tsne"])
def test_shapes_and_learned_attributes(method, k):
    X = _blobs(100)  # enough points that UMAP and t-SNE keep their default parameters
    projector = _fit_without_warnings(Projector(method, n_components=k), X)
    assert projector.embedding_.shape == (100, k)
    assert projector.embedding_.dtype == np.float32
    assert np.isfinite(projector.embedding_).all()
    assert 0.0 <= projector.trustworthiness_ <= 1.0
    assert projector.trustworthiness_neighbors_ == 5
    assert projector.notes_ == []
    np.testing.assert_array_equal(Projector(method, k).fit_transform(X), projector.embedding_)
    if method == "pca":
        ratios = projector.explained_variance_ratio_
        assert ratios.shape == (k,) and np.all(ratios > 0) and ratios.sum() <= 1 + 1e-6
        assert np.all(np.diff(ratios) <= 0)
        assert total_explained_variance(ratios) == pytest.approx(float(ratios.sum()))
    else:
        assert projector.explained_variance_ratio_ is None
        assert total_explained_variance(None) is None


def test_pca_of_a_plane_is_trustworthy_and_explains_everything():
    projector = Projector("pca").fit(_plane())
    assert projector.trustworthiness_ > 0.85
    assert projector.explained_variance_ratio_.sum() == pytest.approx(1.0, abs=1e-4)


def test_clusters_stay_together_under_tsne():
    projector = _fit_without_warnings(Projector("tsne"), _blobs())
    assert projector.trustworthiness_ > 0.85
    assert projector.perplexity_ == 19.6  # lowered to (60 - 1) / 3 for 60 points
    assert "perplexity was lowered from 30 to 19.6" in projector.notes_[0]


def test_tsne_keeps_labelled_neighbourhoods():
    # Three labelled groups with a lot of noise: the map's 5 nearest neighbours of a point
    # should carry its label, and what looks close on the map should be close in 50-D.
    rng = np.random.default_rng(1)
    labels = np.arange(300) % 3
    X = _blobs(300, d=50) + rng.normal(scale=2, size=(300, 50)).astype(np.float32)
    projector = _fit_without_warnings(Projector("tsne", random_state=0), X)
    assert projector.notes_ == [] and projector.perplexity_ == 30.0
    assert projector.trustworthiness_ > 0.85
    Y = projector.embedding_
    distances = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(distances, np.inf)
    nearest = np.argsort(distances, axis=1)[:, :5]
    assert (labels[nearest] == labels[:, None]).mean() > 0.95


def test_tsne_keeps_labelled_neighbourhoods_of_wide_vectors():
    # 384-D vectors are reduced to 50 principal components before t-SNE's neighbour search.
    rng = np.random.default_rng(2)
    labels = np.arange(300) % 3
    X = _blobs(300, d=384) + rng.normal(scale=2, size=(300, 384)).astype(np.float32)
    projector = _fit_without_warnings(Projector("tsne", random_state=0), X)
    assert projector.notes_ == [] and projector.trustworthiness_ > 0.85
    Y = projector.embedding_
    distances = ((Y[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(distances, np.inf)
    nearest = np.argsort(distances, axis=1)[:, :5]
    assert (labels[nearest] == labels[:, None]).mean() > 0.95


def test_tsne_reduce_keeps_narrow_vectors_and_the_distances_of_few_points():
    narrow = _blobs(100, d=50)
    assert tsne_reduce(narrow, 0) is narrow
    wide = _blobs(200, d=384)
    assert tsne_reduce(wide, 0).shape == (200, 50)
    assert tsne_reduce(wide, 0).dtype == np.float32
    few = _blobs(30, d=384)  # 30 points span 29 dimensions: the reduction is a rotation
    reduced = tsne_reduce(few, 0)
    assert reduced.shape == (30, 30)

    def gaps(points: np.ndarray) -> np.ndarray:
        return np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)

    np.testing.assert_allclose(gaps(reduced), gaps(few.astype(np.float64)), atol=1e-3)


@pytest.mark.parametrize("n_components", [2, 3])
def test_tsne_progress_costs_no_error_evaluation_and_stops_the_fit(monkeypatch, n_components):
    """Progress every 25 iterations, counted over both phases, without making openTSNE
    evaluate its KL divergence at each (it did for every iteration ending in a callback):
    only the one openTSNE computes after each phase. An exception from progress stops."""
    import openTSNE.tsne

    method = {2: "kl_divergence_fft", 3: "kl_divergence_bh"}[n_components]
    gradient, errors = getattr(openTSNE.tsne, method), []

    def spy(*args, should_eval_error=False, **kwargs):
        errors.append(should_eval_error)
        return gradient(*args, should_eval_error=should_eval_error, **kwargs)

    monkeypatch.setattr(openTSNE.tsne, method, spy)
    calls = []
    total = TSNE_EARLY_ITERATIONS + TSNE_ITERATIONS
    fit_tsne(_blobs(60), n_components, 10.0, 0, progress=lambda *call: calls.append(call))
    assert calls == [(done, total) for done in range(25, total + 1, 25)]
    assert len(errors) == total + 2 and sum(errors) == 2  # after each of the two phases

    def stop(done, total):
        calls.append(done)
        if done == 150:
            raise RuntimeError("the session has gone")

    calls.clear()
    with pytest.raises(RuntimeError, match="gone"):
        fit_tsne(_blobs(60), n_components, 10.0, 0, progress=stop)
    assert calls == [25, 50, 75, 100, 125, 150]  # into the second phase, then no further


@pytest.mark.parametrize(("n", "perplexity"), [(5, 1.3), (12, 3.6), (60, 19.6), (5000, 30.0)])
def test_tsne_neighbour_graph_is_about_one_and_a_half_times_the_perplexity(n, perplexity):
    k = tsne_neighbors(n, perplexity)
    assert perplexity < k <= n - 1
    assert k <= max(1.5 * perplexity, np.ceil(perplexity) + 1)


def test_unknown_method_lists_the_valid_ones():
    with pytest.raises(ValueError, match="Unknown projection 'lda'") as error:
        Projector("lda").fit(_blobs())
    assert str(PROJECTIONS) in str(error.value)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_components": 4}, "n_components must be 2 or 3"),
        ({"n_neighbors": 1}, "n_neighbors must be at least 2"),
        ({"n_neighbors": 2.5}, "n_neighbors must be an integer"),
        ({"perplexity": 0}, "perplexity must be positive"),
    ],
)
def test_bad_parameters_raise_in_fit(kwargs, match):
    projector = Projector(**kwargs)  # stored, not checked, as scikit-learn does
    with pytest.raises(ValueError, match=match):
        projector.fit(_blobs())


@pytest.mark.parametrize(
    ("method", "k", "n", "message"),
    [
        ("pca", 2, 2, "PCA in 2-D needs at least 3 points; you have 2"),
        ("pca", 3, 3, "PCA in 3-D needs at least 4 points; you have 3"),
        ("umap", 2, 3, "UMAP needs at least 4 points; you have 3"),
        ("tsne", 2, 4, "t-SNE needs at least 5 points; you have 4"),
    ],
)
def test_too_few_points_raise_a_clear_message(method, k, n, message):
    assert min_points(method, k) == n + 1
    with pytest.raises(ValueError, match=message):
        Projector(method, k).fit(_blobs(n))


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="2-D array"):
        Projector().fit(np.zeros(10))
    with pytest.raises(ValueError, match="NaN"):
        Projector().fit(np.full((5, 4), np.nan))
    with pytest.raises(ValueError, match="identical"):
        Projector().fit(np.ones((6, 4)))
    with pytest.raises(ValueError, match="dimension"):
        Projector(n_components=3).fit(_blobs(10, d=2))


@pytest.mark.parametrize("n", [5, 6, 12])
def test_small_inputs_lower_tsne_perplexity_and_say_so(n):
    projector = _fit_without_warnings(Projector("tsne"), _blobs(n))
    assert projector.embedding_.shape == (n, 2)
    assert projector.perplexity_ <= (n - 1) / 3
    assert len(projector.notes_) == 1 and f"only {n} points" in projector.notes_[0]
    assert projector.trustworthiness_neighbors_ == min(5, (n - 1) // 2)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "k"), [(4, 2), (4, 3), (7, 3), (10, 2)])
def test_small_inputs_lower_umap_neighbours_and_say_so(n, k):
    projector = _fit_without_warnings(Projector("umap", k), _blobs(n))
    assert projector.embedding_.shape == (n, k)
    assert projector.n_neighbors_ == n - 1
    assert projector.notes_ == [
        f"UMAP's number of neighbours was lowered from 15 to {n - 1} because there are only "
        f"{n} points."
    ]
    assert 0.0 <= projector.trustworthiness_ <= 1.0


def test_trustworthiness_needs_three_points():
    projector = Projector("pca").fit(_blobs(3))
    assert projector.trustworthiness_neighbors_ == 1
    assert projector.trustworthiness_ is not None


@pytest.mark.parametrize("method", ["tsne", pytest.param("umap", marks=pytest.mark.slow)])
def test_random_state_makes_it_reproducible(method):
    X = _blobs(40)
    first = Projector(method, random_state=3).fit_transform(X)
    again = Projector(method, random_state=3).fit_transform(X)
    np.testing.assert_array_equal(first, again)


@pytest.mark.slow
def test_umap_seed_changes_the_picture():
    # t-SNE starts from the PCA layout, so its seed hardly matters; UMAP's does.
    X = _blobs(40)
    first = Projector("umap", random_state=3).fit_transform(X)
    other = Projector("umap", random_state=4).fit_transform(X)
    assert not np.allclose(first, other)


# -- trustworthiness -------------------------------------------------------------------------


@pytest.mark.parametrize("n, k, d", [(7, 1, 3), (40, 2, 5), (300, 5, 20), (1200, 5, 50)])
@pytest.mark.parametrize("picture", ["pca", "random"])
def test_trustworthiness_equals_scikit_learns(n, k, d, picture):
    from sklearn.decomposition import PCA
    from sklearn.manifold import trustworthiness as reference

    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, d))
    Y = PCA(2).fit_transform(X) if picture == "pca" else rng.normal(size=(n, 2))
    expected = reference(X, Y, n_neighbors=k)
    assert trustworthiness(X, Y, k, max_queries=None) == pytest.approx(expected, abs=1e-9)
    # A chunk size that does not divide n changes nothing.
    assert trustworthiness(X, Y, k, max_queries=None, chunk=17) == pytest.approx(expected, abs=1e-9)


def test_trustworthiness_of_a_perfect_picture_is_one_and_of_a_shuffled_one_is_low():
    X = _plane(300, d=10)
    Y = Projector("pca").fit_transform(X)
    assert trustworthiness(X, Y) == pytest.approx(1.0, abs=1e-9)
    shuffled = np.random.default_rng(0).permutation(Y)
    assert trustworthiness(X, shuffled) < 0.6


def test_trustworthiness_estimate_is_close_to_the_exact_value():
    from sklearn.decomposition import PCA

    rng = np.random.default_rng(3)
    X = _blobs(3000, d=30) + rng.normal(scale=3, size=(3000, 30)).astype(np.float32)
    Y = PCA(2).fit_transform(X)
    exact = trustworthiness(X, Y, 5, max_queries=None)
    estimates = [trustworthiness(X, Y, 5, max_queries=500, random_state=s) for s in range(8)]
    assert all(abs(e - exact) < 0.02 for e in estimates)
    assert len(set(estimates)) > 1  # really a sample, not the exact value again
    assert abs(np.mean(estimates) - exact) < 0.01


def test_projector_estimates_trustworthiness_above_the_query_limit(monkeypatch):
    from explorer.maps import _quality as quality

    monkeypatch.setattr(quality, "TRUSTWORTHINESS_QUERIES", 50)
    X = _blobs(120)
    projector = Projector("pca").fit(X)
    assert projector.trustworthiness_sample_ == 50
    assert projector.trustworthiness_ == trustworthiness(X, projector.embedding_, 5, 50)
    small = Projector("pca").fit(X[:40])
    assert small.trustworthiness_sample_ == 40


@pytest.mark.parametrize(
    "shape, k, match",
    [((10, 3), 5, "n_neighbors"), ((10, 3), 0, "n_neighbors"), ((9, 3), 2, "rows")],
)
def test_trustworthiness_rejects_bad_arguments(shape, k, match):
    X = np.random.default_rng(0).normal(size=(10, 4))
    with pytest.raises(ValueError, match=match):
        trustworthiness(X, np.zeros(shape), k)


def test_trustworthiness_of_many_float32_vectors_matches_scikit_learn_closely():
    from sklearn.decomposition import PCA
    from sklearn.manifold import trustworthiness as reference

    X = _blobs(1500, d=64) + np.random.default_rng(5).normal(size=(1500, 64)).astype(np.float32)
    assert X.dtype == np.float32  # compared in float32 above 1,000 points
    Y = PCA(2).fit_transform(X)
    exact = reference(X, Y, n_neighbors=5)
    assert trustworthiness(X, Y, 5, max_queries=None) == pytest.approx(exact, abs=1e-5)


def test_umap_neighbors_are_exact_with_each_point_first():
    from sklearn.neighbors import NearestNeighbors

    from explorer.maps._umap import umap_neighbors

    X = _blobs(300)
    indices, distances = umap_neighbors(X, 6)
    assert indices.shape == distances.shape == (300, 6)
    assert (indices[:, 0] == np.arange(300)).all() and (distances[:, 0] == 0).all()
    _, expected = NearestNeighbors(n_neighbors=6).fit(X).kneighbors(X)
    assert (np.sort(indices, axis=1) == np.sort(expected, axis=1)).all()
    truth = np.linalg.norm(X[:, None] - X[indices], axis=2)
    np.testing.assert_allclose(distances, truth, atol=1e-3)


@pytest.mark.slow
def test_umap_above_4096_points_skips_nn_descent(monkeypatch):
    # NN-descent compiles numba code that cannot be cached (about a minute per server): above
    # 4,096 points UMAP gets exact neighbours instead, and must never call it.
    import umap.umap_

    def refuse(*args, **kwargs):
        raise AssertionError("NN-descent was called")

    monkeypatch.setattr(umap.umap_, "nearest_neighbors", refuse)
    X = _blobs(4200, d=16)
    projector = _fit_without_warnings(Projector("umap"), X)
    assert projector.embedding_.shape == (4200, 2)
    assert projector.trustworthiness_ > 0.85
