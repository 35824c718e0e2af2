"""explorer.maps._animation: one aligned map per layer, and how much points move between frames."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.maps._animation import (
    LayerMaps,
    frame_motion,
    layer_maps,
    procrustes,
    standardize_layers,
)

SENTENCES = [
    "The bank raised its interest rates again.",
    "She opened a savings account at the bank.",
    "The bank approved the loan for the new house.",
    "Money was stolen from the bank vault.",
    "We had a picnic on the grassy bank of the river.",
    "The canoe drifted slowly towards the muddy bank.",
    "Fish gathered near the bank of the stream.",
    "The river burst its bank after the storm.",
    "The striker scored twice in the second half.",
    "Our team lost the final on penalties.",
    "This soup needs more salt and pepper.",
    "Fresh bread from the oven smells wonderful.",
]


@pytest.fixture(scope="module")
def per_layer(bundled):
    """A fixed corpus: every layer's mean-pooled vectors, (7, 12, 384)."""
    import explorer

    return explorer.embed_corpus(bundled, SENTENCES).per_layer("mean")


def _layers(seed=0, layers=5, n=40, d=16):
    """Synthetic per-layer vectors: two groups drifting apart, each layer rotated at random."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n, d))
    base[: n // 2, 0] += 3
    out = []
    for i in range(layers):
        q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        out.append((base * (1 + 0.2 * i) + 0.1 * rng.standard_normal((n, d))) @ q + 5 * i)
    return np.stack(out).astype(np.float32)


def test_frame_count_is_layers_plus_one_and_shapes(per_layer):
    maps = layer_maps(per_layer, "pca")
    assert isinstance(maps, LayerMaps)
    assert maps.num_frames == per_layer.shape[0] == 7
    assert maps.frames.shape == (7, 12, 2) and maps.frames.dtype == np.float32
    assert len(maps.trustworthiness) == 7
    assert all(0 <= t <= 1 for t in maps.trustworthiness)
    assert maps.motion == pytest.approx(frame_motion(maps.frames))


@pytest.mark.parametrize("align", ["joint", "procrustes"])
def test_aligned_pca_frames_move_less_than_unaligned(per_layer, align):
    aligned = layer_maps(per_layer, "pca", align=align)
    unaligned = layer_maps(per_layer, "pca", align="none")
    assert aligned.motion < unaligned.motion


def test_aligned_frames_move_less_on_rotated_layers():
    X = _layers()
    none = layer_maps(X, "pca", align="none").motion
    assert layer_maps(X, "pca", align="joint").motion < none
    assert layer_maps(X, "pca", align="procrustes").motion < none


@pytest.mark.slow
def test_aligned_umap_moves_less_than_independent_umaps(per_layer):
    aligned = layer_maps(per_layer, "umap", align="joint", n_neighbors=5)
    unaligned = layer_maps(per_layer, "umap", align="none", n_neighbors=5)
    assert aligned.frames.shape == (7, 12, 2)
    assert np.isfinite(aligned.frames).all()
    assert aligned.motion < unaligned.motion


@pytest.mark.slow
def test_aligned_umap_uses_at_most_its_own_neighbour_count_and_says_so():
    from explorer.maps._animation import ALIGNED_UMAP_NEIGHBORS

    X = _layers(layers=3, n=60)
    lowered = layer_maps(X, "umap", align="joint", n_neighbors=15)
    assert ALIGNED_UMAP_NEIGHBORS == 8
    assert any("its 8 closest neighbours" in note and "uses 15" in note for note in lowered.notes)
    assert not any("AlignedUMAP" in note or "Aligned UMAP" in note for note in lowered.notes)
    assert np.isfinite(lowered.frames).all() and min(lowered.trustworthiness) > 0.8
    kept = layer_maps(X, "umap", align="joint", n_neighbors=6)
    assert not any("closest neighbours" in note for note in kept.notes)


@pytest.mark.slow
def test_tsne_from_the_previous_layer_moves_less_than_independent_maps():
    X = _layers(layers=3, n=60)
    chained = layer_maps(X, "tsne", align="joint", perplexity=10)
    independent = layer_maps(X, "tsne", align="none", perplexity=10)
    assert chained.frames.shape == (3, 60, 2)
    assert chained.motion < independent.motion
    assert min(chained.trustworthiness) > 0.8


def test_progress_is_called_per_layer():
    calls = []
    layer_maps(
        _layers(layers=4), "pca", align="procrustes", progress=lambda d, t: calls.append((d, t))
    )
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    calls.clear()
    layer_maps(_layers(layers=4), "pca", progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (4, 4)


def test_three_dimensions():
    assert layer_maps(_layers(), "pca", n_components=3).frames.shape == (5, 40, 3)


def test_procrustes_undoes_a_rotation_and_keeps_distances():
    rng = np.random.default_rng(1)
    base = rng.standard_normal((30, 2))
    angle = 1.1
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    moved = base @ rotation * np.array([1, -1]) + 4
    np.testing.assert_allclose(procrustes(base, moved), base, atol=1e-5)


def test_standardize_layers_centres_and_scales():
    X = standardize_layers(_layers())
    np.testing.assert_allclose(X.mean(axis=1), 0, atol=1e-5)
    np.testing.assert_allclose(np.sqrt((X**2).sum(axis=2).mean(axis=1)), 1, atol=1e-5)


def test_frame_motion():
    frames = np.zeros((3, 4, 2))
    frames[:, :, 0] = np.arange(4)
    assert frame_motion(frames) == 0
    assert frame_motion(frames[:1]) == 0
    shifted = frames.copy()
    shifted[1] += 1.0
    assert frame_motion(shifted) > 0
    with pytest.raises(ValueError, match="frames"):
        frame_motion(np.zeros((3, 4)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "lda"}, "Unknown projection"),
        ({"align": "sideways"}, "Unknown alignment"),
        ({"n_components": 4}, "n_components"),
    ],
)
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        layer_maps(_layers(), **kwargs)


def test_bad_vectors():
    with pytest.raises(ValueError, match="layers, points, dim"):
        layer_maps(np.zeros((5, 4)))
    X = _layers()
    X[2, 3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        layer_maps(X)
    with pytest.raises(ValueError, match="at least"):
        layer_maps(_layers(n=4), "umap")


def test_an_exception_from_progress_stops_tsne_within_a_layer():
    """A t-SNE layer reports every 25 iterations (with the layers done so far), so work whose
    session has gone stops within the layer, not after it."""
    calls = []

    def progress(done, total):
        calls.append(done)
        raise RuntimeError("the session has gone")

    X = np.random.default_rng(0).normal(size=(3, 60, 8)).astype(np.float32)
    with pytest.raises(RuntimeError, match="gone"):
        layer_maps(X, "tsne", progress=progress)
    assert calls == [0]  # within layer 0, before its map was finished


def test_tsne_layers_report_progress_without_error_evaluations(monkeypatch):
    """Every t-SNE layer (its own map, then maps continued from the previous layer) reports
    from its gradient: openTSNE evaluates its error only once after each of its two phases
    (with callbacks it did at every report), and an exception stops the layer it is in."""
    import openTSNE.tsne

    errors = []

    def spy(gradient):
        def counted(*args, should_eval_error=False, **kwargs):
            errors.append(should_eval_error)
            return gradient(*args, should_eval_error=should_eval_error, **kwargs)

        return counted

    for name in ("kl_divergence_bh", "kl_divergence_fft"):  # the first layer's, the others'
        monkeypatch.setattr(openTSNE.tsne, name, spy(getattr(openTSNE.tsne, name)))
    X = np.random.default_rng(0).normal(size=(3, 60, 8)).astype(np.float32)
    calls = []
    layer_maps(X, "tsne", progress=lambda done, total: calls.append(done))
    assert sum(errors) == 2 * 3  # two phases in each of the three layers
    assert calls.count(1) > 1 and calls.count(2) > 1  # within layers 1 and 2, then after

    def stop(done, total):
        calls.append(done)
        if calls.count(1) == 2:  # the first report from within layer 1
            raise RuntimeError("the session has gone")

    calls.clear()
    with pytest.raises(RuntimeError, match="gone"):
        layer_maps(X, "tsne", progress=stop)
    assert calls[-2:] == [1, 1] and 2 not in calls


def test_joint_pca_frames_carry_their_shared_axes_explained_variance():
    # The motion frames were titled "PCA 1"/"PCA 2" while the map says "PC1 (6.1 %)": the
    # joint PCA's own shares let the frames be named as the map is.
    X = _layers(layers=4)
    joint = layer_maps(X, "pca", align="joint")
    ratios = joint.explained_variance_ratio
    assert ratios is not None and ratios.shape == (2,)
    assert 0 < ratios[1] <= ratios[0] and ratios.sum() <= 1
    from sklearn.decomposition import PCA

    stacked = standardize_layers(X).reshape(-1, X.shape[2])
    expected = PCA(2, random_state=0).fit(stacked).explained_variance_ratio_
    np.testing.assert_allclose(ratios, expected, rtol=1e-4)
    # a PCA per frame has no one share per axis
    assert layer_maps(X, "pca", align="none").explained_variance_ratio is None
    assert layer_maps(X, "pca", align="procrustes").explained_variance_ratio is None
