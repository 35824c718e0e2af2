"""Map quality point by point: the neighbour inspector and neighbourhood preservation."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.maps._quality import describe_trustworthiness, inspect_point, preservation


def _brute(vectors: np.ndarray, row: int, k: int) -> list[int]:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    scores = unit @ unit[row]
    scores[row] = -np.inf
    return np.lexsort((np.arange(len(scores)), -scores))[:k].tolist()


def test_inspection_lists_full_space_neighbours_and_counts_those_the_map_keeps():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(60, 16)).astype(np.float32)
    coords = vectors[:, :2] * 0 + rng.normal(size=(60, 2))  # a map unrelated to the vectors
    found = inspect_point(vectors, coords, 7, k=5)
    assert found.indices.tolist() == _brute(vectors, 7, 5)
    assert 7 not in found.indices and 7 not in found.on_map
    assert found.kept == len(set(found.indices) & set(found.on_map))
    assert "keeps" in found.summary() and f"{found.kept} of these 5" in found.summary()


def test_a_faithful_map_keeps_every_neighbourhood_and_a_shuffled_one_loses_them():
    rng = np.random.default_rng(1)
    coords = rng.normal(size=(200, 2))
    vectors = np.hstack([coords, np.ones((200, 1)) * 50]).astype(np.float32)  # cosine ~ map
    kept = preservation(vectors, coords, k=5)
    shuffled = preservation(vectors, coords[rng.permutation(200)], k=5)
    assert kept.shape == (200,) and kept.dtype == np.float32
    assert kept.mean() > 0.8 and shuffled.mean() < 0.15
    assert inspect_point(vectors, coords, 3, k=5).kept == round(kept[3] * 5)


def test_small_maps_lower_k_and_bad_input_is_a_clear_error():
    vectors = np.eye(3, dtype=np.float32)
    assert inspect_point(vectors, vectors[:, :2], 0, k=10).k == 2
    with pytest.raises(ValueError, match="same points"):
        preservation(vectors, np.zeros((4, 2)))
    with pytest.raises(ValueError, match="No point 5"):
        inspect_point(vectors, vectors[:, :2], 5)
    with pytest.raises(ValueError, match="k must be"):
        preservation(vectors, vectors[:, :2], k=0)


def test_trustworthiness_is_read_in_plain_words():
    assert "almost every point" in describe_trustworthiness(0.97, 5)
    assert "read clusters with care" in describe_trustworthiness(0.7, 5)


def test_neighbour_overlap_is_one_for_the_same_space_and_low_for_a_random_one():
    from explorer.maps._quality import neighbour_overlap

    rng = np.random.default_rng(2)
    a = rng.normal(size=(150, 12)).astype(np.float32)
    same = neighbour_overlap(a, a * 3.0, k=5)  # scaling keeps cosine neighbours
    other = neighbour_overlap(a, rng.normal(size=(150, 7)), k=5)
    assert same.shape == (150,) and np.allclose(same, 1.0)
    assert other.mean() < 0.15
    with pytest.raises(ValueError, match="same points"):
        neighbour_overlap(a, a[:10])


def test_random_weights_keep_the_shapes_and_lose_the_meaning(bundled):
    from explorer.model.loading import random_weights

    untrained = random_weights(bundled)
    texts = ["The bank raised its rates.", "A loan from the bank.", "The river bank flooded."]
    trained_states = bundled.hidden_states(texts[0])
    random_states = untrained.hidden_states(texts[0])
    assert random_states.shape == trained_states.shape
    assert not np.allclose(random_states, trained_states)
    np.testing.assert_allclose(random_weights(bundled).hidden_states(texts[0]), random_states)
    assert untrained.name.endswith("(random weights)")
    # the same tokens from its own tokenizer: a fast tokenizer's per-call settings are shared
    # state, and each model guards only its own (a typed "[SEP]" must stay text in both)
    assert untrained.tokenizer is not bundled.tokenizer
    typed = "The [SEP] bank"
    assert untrained.tokenize(typed).tokens == bundled.tokenize(typed).tokens


@pytest.mark.slow
def test_random_weights_probe_worse_on_topics_than_the_trained_model(bundled):
    from explorer.data import corpora
    from explorer.model.loading import random_weights
    from explorer.probing.scores import layer_scores

    topics = corpora.load_dataset("Topics")
    texts, labels = topics["text"].tolist(), topics["label"].tolist()
    trained = layer_scores(bundled, texts, labels, pooling="mean")
    untrained = layer_scores(random_weights(bundled), texts, labels, pooling="mean")
    last = bundled.num_layers
    trained_last = trained.loc[trained["layer"] == last, "accuracy_mean"].item()
    untrained_last = untrained.loc[untrained["layer"] == last, "accuracy_mean"].item()
    assert trained_last > untrained_last + 0.1, (trained_last, untrained_last)


def _groups(seed: int = 1) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    coords = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(8, 1, (30, 2)), rng.normal(4, 3, (30, 2))]
    return coords, ["sports"] * 30 + ["food"] * 30 + ["weather"] * 30


def test_map_notice_reads_the_label_groups_off_the_map():
    from explorer.maps._quality import map_notice

    coords, labels = _groups()
    text = map_notice(coords, labels, trust=0.95)
    assert text.startswith("On the map, ")
    assert "(33% if the labels were shuffled): the labels form clear groups." in text
    assert "“weather” the most mixed" in text
    assert "Trustworthiness" not in text  # said only when it is low
    mixed = map_notice(coords, np.random.default_rng(0).permutation(labels), trust=0.7)
    assert "the labels are mixed together" in mixed
    assert "Trustworthiness is only 0.70" in mixed
    # A sample of the points gives the same reading on a large map.
    assert "clear groups" in map_notice(coords, labels, max_points=40)


def test_map_notice_without_labels_speaks_of_the_map_only():
    from explorer.maps._quality import map_notice

    coords, _ = _groups()
    assert map_notice(coords, trust=0.97).startswith("The map shows 90 points, and its neighbour")
    one_each = [f"Sentence {i}" for i in range(90)]
    assert map_notice(coords, one_each) == "The map shows 90 points."
    assert map_notice(coords, ["a"] * 90, trust=0.5).startswith("The map shows 90 points. Trust")
    with pytest.raises(ValueError, match="labels"):
        map_notice(coords, ["a", "b"])
    with pytest.raises(ValueError, match="coordinates"):
        map_notice(coords[:1])


def test_map_notice_calls_clusters_clusters():
    from explorer.maps._quality import map_notice

    coords, labels = _groups()
    text = map_notice(coords, labels, what="cluster")
    assert "share its cluster (33% if the clusters were shuffled): the clusters form" in text
    assert "label" not in text


def _peak_bytes(run) -> tuple[int, object]:
    import tracemalloc

    tracemalloc.start()
    try:
        result = run()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def test_one_long_label_costs_what_a_short_one_does():
    """Issue 32: labels went into fixed-width string arrays (points x longest label x 4
    bytes): 5,000 points and one 40,000-character label took gigabytes."""
    from explorer.maps._quality import label_agreement, map_notice

    rng = np.random.default_rng(0)
    n = 5_000
    coords = np.r_[rng.normal(0, 1, (n // 2, 2)), rng.normal(6, 1, (n - n // 2, 2))]
    vectors = np.hstack([coords, np.ones((n, 1))]).astype(np.float32)
    short = ["left"] * (n // 2) + ["right"] * (n - n // 2)
    long = list(short)
    long[7] = "long " * 8_000  # 40,000 characters
    for run in (
        lambda labels: map_notice(coords, labels),
        lambda labels: label_agreement(vectors, labels),
    ):
        run(short)  # first-call costs (imports, caches) out of the way
        peak_short, said_short = _peak_bytes(lambda run=run: run(short))
        peak_long, said_long = _peak_bytes(lambda run=run: run(long))
        # the fixed-width arrays: 800 MB for the labels alone, more for each index of them
        assert peak_long - peak_short < 4 * 2**20, (peak_short, peak_long)
        if isinstance(said_long, str):
            assert "clear groups" in said_long and len(said_long) < 600  # named shortened
        else:
            assert said_long > 0.9


def test_map_notice_names_every_label_that_ties_at_the_shown_percent():
    # issue 33.3: "“a” is the tightest group (100%)" when “b” showed 100% too
    from explorer.maps._quality import map_notice

    rng = np.random.default_rng(0)
    apart = [rng.normal(0, 1, (10, 2)), rng.normal(0, 1, (10, 2)) + [50, 0]]
    line = np.c_[np.full(20, 100.0), np.arange(20.0)]  # c, d, c, d, ... along a line
    labels = ["a"] * 10 + ["b"] * 10 + ["c", "d"] * 10
    text = map_notice(np.r_[*apart, line], labels)
    assert "“a” and “b” are the tightest groups (100% each)" in text
    assert "“c” and “d” the most mixed (40% each)." in text
    six = [f"g{i}" for i in range(6)]  # six tight clusters: counted, not listed
    blobs = [rng.normal(0, 1, (10, 2)) + [60 * i, 0] for i in range(6)]
    labels = [g for g in six for _ in range(10)] + ["c", "d"] * 10
    text = map_notice(np.r_[*blobs, line + [400, 0]], labels)
    assert "6 labels are the tightest groups (100% each)" in text
