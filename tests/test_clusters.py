"""explorer.maps._clusters: k-means / HDBSCAN on the full vectors, names from class-based TF-IDF."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.maps._clusters import (
    Clusters,
    cluster,
    cluster_labels,
    cluster_names,
    cluster_terms,
    ctfidf,
)

FOOTBALL = [
    "The striker scored a late goal in the football match.",
    "Our football team won the match on penalties.",
    "The goalkeeper saved a penalty in the second half.",
    "Fans cheered as the team scored another goal.",
    "The referee showed the defender a red card during the match.",
    "The football coach praised the striker after the match.",
    "A stunning goal won the league match for the team.",
    "The midfielder passed to the striker, who scored.",
    "The team trained hard before the football final.",
    "The goalkeeper kept a clean sheet in the match.",
    "Football supporters sang through the whole match.",
    "The captain lifted the trophy after the football final.",
    "The winger crossed and the striker headed the goal.",
    "A penalty decided the football match in the last minute.",
    "The team signed a new striker for the season.",
    "The match ended in a draw after a late goal.",
    "The referee added five minutes to the football match.",
    "The coach changed the team at half time.",
    "The goalkeeper was injured early in the match.",
    "The football league table changed after the match.",
]
COOKING = [
    "Chop the onions and fry them in butter.",
    "Bake the bread in a hot oven for forty minutes.",
    "Season the soup with salt and pepper.",
    "Stir the sauce slowly so the butter melts.",
    "The recipe needs flour, eggs and sugar.",
    "Simmer the tomato sauce for an hour.",
    "Knead the dough and let the bread rise.",
    "Roast the chicken with garlic and butter.",
    "Whisk the eggs with sugar until pale.",
    "Add the onions to the soup and simmer.",
    "The recipe says to bake the cake in the oven.",
    "Fry the garlic gently in olive oil.",
    "Sprinkle salt on the roasted vegetables.",
    "Mix flour and butter to make the pastry.",
    "Boil the pasta in salted water.",
    "Taste the sauce and add more pepper.",
    "Grate the cheese over the baked pasta.",
    "Slice the bread and toast it in the oven.",
    "Melt the chocolate with butter and sugar.",
    "Stir the onions into the simmering sauce.",
]
TEXTS = FOOTBALL + COOKING
TOPICS = np.array([0] * 20 + [1] * 20)


def _bag_of_words(texts):
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(stop_words="english").fit_transform(texts).toarray()


def _blobs(k=3, per=30, d=10, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((k, d)) * 10
    return np.concatenate([c + rng.standard_normal((per, d)) for c in centres]), np.repeat(
        np.arange(k), per
    )


def _same_partition(a, b):
    from sklearn.metrics import adjusted_rand_score

    return adjusted_rand_score(a, b) == pytest.approx(1.0)


def test_names_of_a_two_topic_corpus_contain_the_topic_words():
    names = cluster_names(TEXTS, TOPICS, top=3)
    football = {"football", "match", "team", "goal", "striker", "goalkeeper"}
    cooking = {"butter", "sauce", "bread", "onions", "oven", "sugar", "salt", "soup"}
    assert set(names[0].split(" · ")) <= football and len(names[0].split(" · ")) == 3
    assert set(names[1].split(" · ")) <= cooking


def test_kmeans_finds_the_topics_and_names_them():
    vectors, _ = _blobs(k=2, per=20)  # one blob per topic, in the texts' order
    result = cluster(vectors, "kmeans", k=2)
    assert isinstance(result, Clusters) and result.k == 2
    assert _same_partition(result.labels, TOPICS)
    names = cluster_names(TEXTS, result.labels)
    assert "match" in names[int(result.labels[0])]


@pytest.mark.slow
def test_real_sentence_vectors_separate_the_topics(bundled):
    import explorer

    vectors = explorer.sentence_embeddings(bundled, TEXTS, "mean", "last")
    result = cluster(vectors, "kmeans")  # automatic k
    assert result.k == 2
    assert _same_partition(result.labels, TOPICS)


def test_automatic_k_picks_the_number_of_blobs():
    X, truth = _blobs(k=4)
    result = cluster(X, normalize=False)
    assert result.k == 4 and _same_partition(result.labels, truth)
    assert set(result.silhouettes) == set(range(2, 13))
    assert max(result.silhouettes, key=result.silhouettes.get) == 4
    assert "k = 4" in result.notes[0]


def test_hdbscan_finds_blobs_and_marks_noise():
    X, truth = _blobs(k=3)
    X = np.concatenate([X, [[1000.0] * 10]])
    result = cluster(X, "hdbscan", normalize=False)
    assert result.k == 3 and result.labels[-1] == -1 and result.noise >= 1
    assert _same_partition(result.labels[:-1], truth)
    names = cluster_names(["a word"] * 90 + ["outlier"], result.labels)
    assert names[-1] == "noise"


def test_deterministic():
    X, _ = _blobs()
    np.testing.assert_array_equal(cluster(X, k=3).labels, cluster(X, k=3).labels)


def test_cluster_labels_for_the_legend_and_csv():
    labels = cluster_labels([0, 1, -1, 0], {0: "goal · match", 1: "butter", -1: "noise"})
    assert labels == ["1: goal · match", "2: butter", "noise", "1: goal · match"]


def test_ctfidf_formula():
    counts = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 1.0]])
    weights = ctfidf(counts)
    average = 3.5
    expected = np.array(
        [
            [2 / 3 * np.log(1 + average / 2), 0, 1 / 3 * np.log(1 + average / 2)],
            [0, 3 / 4 * np.log(1 + average / 3), 1 / 4 * np.log(1 + average / 2)],
        ]
    )
    np.testing.assert_allclose(weights, expected)


def test_terms_are_ordered_and_stop_words_only_clusters_are_named_by_number():
    terms = cluster_terms(TEXTS, TOPICS, top=5)
    weights = [w for _, w in terms[0]]
    assert weights == sorted(weights, reverse=True) and len(weights) == 5
    names = cluster_names(["the and of", "football match"], [0, 1])
    assert names == {0: "cluster 1", 1: "football · match"}
    assert cluster_names(["the", "and"], [0, 1]) == {0: "cluster 1", 1: "cluster 2"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 1}, "at least 2"),
        ({"k": 40}, "below the number of points"),
        ({"k": 2.5}, "whole number"),
        ({"method": "dbscan"}, "Unknown clustering"),
    ],
)
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cluster(_bag_of_words(TEXTS), **kwargs)


def test_bad_vectors():
    with pytest.raises(ValueError, match="at least 3 points"):
        cluster(np.eye(2))
    with pytest.raises(ValueError, match="NaN"):
        cluster(np.full((5, 3), np.nan))
    with pytest.raises(ValueError, match="identical"):
        cluster(np.ones((5, 3)))
    with pytest.raises(ValueError, match="points x dim"):
        cluster(np.ones(5))
    with pytest.raises(ValueError, match="labels"):
        cluster_names(TEXTS, TOPICS[:3])
