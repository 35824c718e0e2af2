"""The classic measurements on cases computed by hand, and on a model against the hidden
states."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.explain import classic_measures, isoscore, sense_accuracy
from explorer.explain._classic import (
    REFERENCES,
    intra_sentence_similarity,
    max_explainable_variance,
    nearest_centroid_accuracy,
    self_similarity,
    word_measures,
)
from explorer.words import word_layer_vectors


def test_self_similarity_by_hand():
    # Layer 0: three occurrences at 0, 90 and 180 degrees: cosines 0, -1, 0 -> mean -1/3.
    # Layer 1: all the same direction -> 1.
    occurrences = np.array(
        [
            [[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0]],
            [[1.0, 1.0], [2.0, 2.0], [0.5, 0.5]],
        ]
    )
    np.testing.assert_allclose(self_similarity(occurrences), [-1 / 3, 1.0])
    with pytest.raises(ValueError, match="at least 2"):
        self_similarity(occurrences[:, :1])


def test_intra_sentence_similarity_by_hand():
    # Tokens (1, 0) and (0, 1): the mean points at 45 degrees, cosine 1/sqrt(2) with each.
    tokens = np.array([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [5.0, 0.0]]])
    np.testing.assert_allclose(intra_sentence_similarity(tokens), [1 / np.sqrt(2), 1.0])


def test_max_explainable_variance_by_hand():
    # Rank one: one static vector explains everything. Orthogonal, equal norms: 1 / n.
    rank_one = np.outer([1.0, -2.0, 3.0], [1.0, 2.0, 2.0])
    orthogonal = np.eye(3) * 2.0
    # Unequal: singular values 3 and 4 -> 16 / 25.
    unequal = np.array([[3.0, 0.0], [0.0, 4.0]])
    padded = np.zeros((3, 2, 3))
    padded[2, :, :2] = unequal
    stack = np.stack([rank_one, orthogonal])
    np.testing.assert_allclose(max_explainable_variance(stack), [1.0, 1 / 3])
    assert max_explainable_variance(padded[2:])[0] == pytest.approx(16 / 25)


def test_nearest_centroid_by_hand():
    x = np.array([[1.0, 0.1], [1.0, -0.1], [0.9, 0.0], [0.0, 1.0], [0.1, 1.0], [0.7, 0.7]])
    labels = ["a", "a", "a", "b", "b", "b"]
    # Leave-one-out: the last "b" (0.7, 0.7) has cosine 0.707 with the "a" centroid
    # (0.97, 0) and 0.74 with the other two "b"s' centroid (0.05, 1): right.
    assert nearest_centroid_accuracy(x[None], labels)[0] == pytest.approx(1.0)
    shifted = x.copy()
    shifted[5] = [1.0, 0.2]  # now closer to "a": one mistake in six
    assert nearest_centroid_accuracy(shifted[None], labels)[0] == pytest.approx(5 / 6)
    with pytest.raises(ValueError, match="2 senses"):
        nearest_centroid_accuracy(x[None], ["a"] * 6)


SENTENCES = [
    "The bank was closed on Sunday.",
    "She walked along the bank of the river.",
    "A new bank opened in the town.",
    "The bank raised its rates.",
    "Ducks rested on the muddy bank.",
    "Nobody answered the phone.",
]


def test_classic_measures_agree_with_the_hidden_states(tiny):
    table = classic_measures(tiny, SENTENCES, min_contexts=5)
    assert table.attrs["words"] == ("the", "bank")  # in 5 or more sentences
    assert list(table.index) == list(range(tiny.num_layers + 1))
    # Self-similarity of "bank", by hand from each sentence's hidden states.
    vectors = []
    for sentence in SENTENCES[:5]:
        tokens = tiny.tokenize(sentence).tokens
        vectors.append(tiny.hidden_states(sentence)[:, tokens.index("bank")])
    bank = np.stack(vectors, axis=1)
    the = []
    for sentence in SENTENCES:
        tokens = tiny.tokenize(sentence).tokens
        if "the" in tokens:
            the.append(tiny.hidden_states(sentence)[:, tokens.index("the")])
    expected = (self_similarity(bank) + self_similarity(np.stack(the, axis=1))) / 2
    np.testing.assert_allclose(table["self_similarity"], expected, atol=1e-5)
    np.testing.assert_allclose(
        table["self_similarity_adjusted"], table["self_similarity"] - table["baseline_cosine"]
    )
    np.testing.assert_allclose(table["mev_adjusted"], table["mev"] - table["baseline_mev"])
    assert ((table["mev"] > 0) & (table["mev"] <= 1)).all()
    # IsoScore of every sentence's tokens but [CLS]/[SEP], layer by layer.
    tokens = np.concatenate(
        [
            tiny.hidden_states(s)[:, ~np.asarray(tiny.tokenize(s).special, dtype=bool)]
            for s in SENTENCES
        ],
        axis=1,
    )
    expected = [isoscore(layer) for layer in tokens]
    np.testing.assert_allclose(table["isoscore"], expected, atol=1e-6)
    with pytest.raises(ValueError, match="No word occurs"):
        classic_measures(tiny, SENTENCES[:3], min_contexts=5)


@pytest.mark.slow
def test_sense_accuracy_on_the_bundled_model(bundled):
    table = sense_accuracy(bundled, ["bank", "spring"])
    assert list(table.columns) == ["bank", "spring", "accuracy", "chance"]
    assert table.attrs["occurrences"] == 28 + 42
    assert table["chance"].iloc[0] == pytest.approx((28 * 0.5 + 42 / 3) / 70)
    # The trained model tells a river bank from a savings bank in its upper layers.
    assert table["bank"].iloc[-1] > 0.9 > table["chance"].iloc[0]


def test_references_state_a_source_and_a_number_only_with_a_bound():
    for reference in REFERENCES.values():
        assert reference.source and reference.finding
        assert (reference.value is None) == (reference.bound is None)


def test_word_measures_by_hand():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(3, 6, 4)) + np.array([2.0, 0.0, 0.0, 0.0])
    labels = ["a", "a", "a", "b", "b", "b"]
    table = word_measures(vectors, labels)
    assert list(table.columns) == ["self_similarity", "mev", "sense_accuracy"]
    for layer, x in enumerate(vectors):
        unit = x / np.linalg.norm(x, axis=1, keepdims=True)
        cosines = [unit[i] @ unit[j] for i in range(6) for j in range(6) if i != j]
        assert table["self_similarity"][layer] == pytest.approx(np.mean(cosines))
        values = np.linalg.svd(x, compute_uv=False) ** 2
        assert table["mev"][layer] == pytest.approx(values[0] / values.sum())
        right = 0
        for i in range(6):
            others = [j for j in range(6) if j != i]
            centroid = {s: np.mean([x[j] for j in others if labels[j] == s], axis=0) for s in "ab"}
            cosine = {
                s: c @ x[i] / np.linalg.norm(c) / np.linalg.norm(x[i]) for s, c in centroid.items()
            }
            right += max(cosine, key=cosine.get) == labels[i]
        assert table["sense_accuracy"][layer] == pytest.approx(right / 6)


def test_sense_accuracy_reads_a_given_frame_and_reports_progress(tiny):
    from explorer.data import corpora

    frame = corpora.load_senses()
    frame = frame[frame["word"].isin(["plant", "bank"])].groupby("sense").head(6)
    calls = []
    table = sense_accuracy(tiny, frame=frame, progress=lambda *call: calls.append(call))
    assert list(table.columns) == ["bank", "plant", "accuracy", "chance"]  # the frame's order
    assert calls == [(12, 24), (24, 24)]
    assert table.attrs["occurrences"] == 24
    for word in ("bank", "plant"):
        own = frame[frame["word"] == word]
        _, vectors = word_layer_vectors(tiny, own["text"].tolist(), word)
        expected = nearest_centroid_accuracy(vectors, own["sense"].tolist())
        np.testing.assert_allclose(table[word], expected)
    with pytest.raises(ValueError, match="words with sentences are: bank, plant"):
        sense_accuracy(tiny, ["bat"], frame=frame)


def test_classic_measures_report_progress(tiny):
    calls = []
    classic_measures(tiny, SENTENCES, progress=lambda *call: calls.append(call))
    assert calls and calls[-1] == (len(SENTENCES), len(SENTENCES))


@pytest.mark.parametrize("model", ["tiny", "bundled"])
def test_the_lesson_reads_each_sentence_once_and_equals_the_two_functions(model, request):
    # How contextual? ran the sentences through the model once per paper (21 s on BERT-base).
    from explorer.data import corpora
    from explorer.explain import classic_lesson

    model = request.getfixturevalue(model)
    senses = corpora.load_senses()
    frame = senses[senses["word"].isin(["plant", "bank", "spring"])].groupby("sense").head(5)
    passes, calls = [], []
    forward = model.hidden_states_batch

    def counted(texts, **kwargs):
        passes.append(len(texts))
        return forward(texts, **kwargs)

    model.hidden_states_batch = counted
    try:
        measures, senses_table = classic_lesson(
            model, frame, progress=lambda *call: calls.append(call)
        )
    finally:
        del model.hidden_states_batch
    assert passes == [len(frame)] and calls[-1] == (len(frame), len(frame))
    expected = classic_measures(model, frame["text"].tolist())
    np.testing.assert_allclose(measures.to_numpy(), expected.to_numpy(), atol=1e-6)
    assert measures.attrs == expected.attrs
    expected = sense_accuracy(model, frame=frame)
    assert list(senses_table.columns) == list(expected.columns)
    np.testing.assert_allclose(senses_table.to_numpy(), expected.to_numpy(), atol=1e-6)
    assert senses_table.attrs == expected.attrs
