"""The maths of the "Word in context" page: pair similarities, centring, the baseline."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer import context as ctx
from explorer.context.baseline import baseline_pair_count, sample_pairs
from explorer.context.labels import context_window
from explorer.context.pairs import pair_indices
from explorer.context.senses import PAIR_KINDS
from explorer.context.sentences import (
    DEFAULT_SENSES,
    DEFAULT_SENTENCES,
    MAX_SENTENCES,
    TUTORIAL_SENTENCES,
    labelled_lines,
    parse_sentences,
    sense_examples,
    split_sense,
)
from explorer.layers import LAYER_CHOICES, combine_layers, layer_choices, layers_label
from explorer.words import Occurrence
from tests.conftest import TUTORIAL

SENTENCES = list(TUTORIAL_SENTENCES)


def random_stack(layers=5, n=4, hidden=8, seed=0):
    return np.random.default_rng(seed).normal(size=(layers, n, hidden)).astype(np.float32)


# -- inputs and labels ------------------------------------------------------------------


def test_default_example_is_one_bank_per_sentence_with_its_sense():
    assert TUTORIAL_SENTENCES[0] == TUTORIAL
    assert ctx.DEFAULT_WORD == "bank"
    assert all(s.split().count("bank") == 1 for s in DEFAULT_SENTENCES)
    assert ctx.DEFAULT_TEXT == ctx.labelled_examples("bank", 3)  # the built-in sentences
    assert ctx.parse_labelled_sentences(ctx.DEFAULT_TEXT) == (
        list(DEFAULT_SENTENCES),
        list(DEFAULT_SENSES),
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("river | We sat on the bank.", ("river", "We sat on the bank.")),
        ("river\tWe sat on the bank.", ("river", "We sat on the bank.")),
        ("a | b | c", ("a", "b | c")),
        ("| no sense", (None, "| no sense")),
        ("no sense |", (None, "no sense |")),
        ("Plain sentence.", (None, "Plain sentence.")),
        ("x" * 41 + " | long prefix", (None, "x" * 41 + " | long prefix")),
    ],
)
def test_split_sense(line, expected):
    assert split_sense(line) == expected


def test_labelled_lines_round_trip():
    sentences, senses = ["A bank.", "Another bank."], ["money", None]
    text = labelled_lines(sentences, senses)
    assert text == "money | A bank.\nAnother bank."
    assert ctx.parse_labelled_sentences(text) == (sentences, senses)
    with pytest.raises(ValueError, match="1 senses for 2"):
        labelled_lines(sentences, ["x"])


def test_parse_sentences_drops_blank_lines_and_strips():
    assert parse_sentences("  One.\n\n\t\nTwo. \n") == ["One.", "Two."]


@pytest.mark.parametrize("text", ["", "   \n \n", None])
def test_parse_sentences_rejects_empty_input(text):
    with pytest.raises(ValueError, match="No sentences"):
        parse_sentences(text)


def test_parse_sentences_rejects_too_many_lines():
    with pytest.raises(ValueError, match=f"at most {MAX_SENTENCES}"):
        parse_sentences("\n".join(["A bank."] * (MAX_SENTENCES + 1)))


def test_sense_examples_take_a_few_sentences_of_every_sense():
    senses = explorer.data.corpora.load_senses("bat")
    examples = sense_examples("bat", per_sense=3)
    assert len(examples) == 3 * senses["sense"].nunique()
    assert all("bat" in text.lower() for text in examples)
    assert set(examples) <= set(senses["text"])
    # sense by sense: the first three belong to one sense
    first_sense = senses.set_index("text").loc[examples[:3], "sense"]
    assert first_sense.nunique() == 1


def test_sense_examples_reject_unknown_words():
    with pytest.raises(ValueError, match="valid words"):
        sense_examples("zebra")
    with pytest.raises(ValueError, match="per_sense"):
        sense_examples("bank", per_sense=0)


def test_layer_choices_drop_what_a_shallow_model_cannot_do():
    assert layer_choices(6) == list(LAYER_CHOICES)
    shallow = layer_choices(2)
    assert "sum_last4" not in shallow and "concat_last4" not in shallow
    assert "last" in shallow and "second_to_last" in shallow


def test_context_window_keeps_punctuation_attached():
    text = "After stealing money from the bank vault, the bank robber was seen."
    start = text.index("bank")
    assert context_window(text, start, start + 4, 2) == "…from the bank vault, the…"
    assert context_window(text, start, start + 4, 1, "") == "the bank vault,"
    end = text.rindex("seen") + 4
    assert context_window(text, text.rindex("seen"), end, 1) == "…was seen."
    assert context_window("bank", 0, 4, 3) == "bank"


def test_occurrence_labels_number_and_locate_each_occurrence(tiny):
    occurrences = explorer.find_occurrences(tiny, SENTENCES, "bank")
    labels = ctx.occurrence_labels(occurrences, SENTENCES)
    assert len(labels) == 5
    assert labels[0] == "#1 bank (s1: …money from the bank vault, the bank…)"
    assert labels[3].startswith("#4 bank (s2: ")
    assert ctx.short_labels(occurrences, SENTENCES)[4] == "#5 the bank of"


@pytest.mark.parametrize("n", [0, 1, 2, 5, 9])
def test_pair_count_is_n_choose_2(n):
    pairs = pair_indices(n)
    assert len(pairs) == n * (n - 1) // 2 == len(ctx.pair_labels(n))
    assert all(i < j for i, j in pairs)
    assert len(set(pairs)) == len(pairs)


def test_pair_labels_and_members_follow_pair_order():
    assert ctx.pair_labels(3) == ["#1 vs #2", "#1 vs #3", "#2 vs #3"]
    assert ctx.pair_members(["a", "b", "c"]) == [("a", "b"), ("a", "c"), ("b", "c")]


def test_highlight_html_escapes_user_text():
    text = "<script>alert(1)</script> *bank* & $x$ [link](http://x) :red[bank]"
    start = text.index("bank")
    out = ctx.highlight_html(text, start, start + 4)
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<mark><b>bank</b></mark>" in out
    assert "\\*" in out and "\\$" in out and "\\[" in out and "&amp;" in out
    assert out.count("<") == 4  # only the <mark><b> tags are HTML


# -- similarities -----------------------------------------------------------------------


def test_pair_similarities_shape_and_order():
    stack = random_stack(layers=5, n=4)
    sims = ctx.pair_similarities(stack)
    assert sims.shape == (5, 6) and sims.dtype == np.float32
    for p, (i, j) in enumerate(pair_indices(4)):
        for layer in range(5):
            expected = explorer.cosine_similarity(stack[layer, i], stack[layer, j])
            assert sims[layer, p] == pytest.approx(expected, abs=1e-6)


def test_identical_vectors_have_similarity_one():
    vector = np.random.default_rng(1).normal(size=(5, 1, 8)).astype(np.float32)
    stack = np.concatenate([vector, vector, 2 * vector], axis=1)
    np.testing.assert_allclose(ctx.pair_similarities(stack), 1.0, atol=1e-6)
    for layers in LAYER_CHOICES:
        np.testing.assert_allclose(ctx.similarity_matrix(stack, layers), 1.0, atol=1e-6)


def test_centring_changes_values_and_zero_centre_does_not():
    stack = random_stack() + 3.0  # a shared offset: the "common direction"
    means = stack.mean(axis=1)
    raw = ctx.pair_similarities(stack)
    centred = ctx.pair_similarities(stack, means)
    assert not np.allclose(raw, centred, atol=1e-3)
    assert centred.mean() < raw.mean()
    np.testing.assert_allclose(ctx.pair_similarities(stack, np.zeros_like(means)), raw)


@pytest.mark.parametrize("layers", [*LAYER_CHOICES, 2, -3])
def test_centring_under_a_layer_choice_equals_combining_the_means(layers):
    stack = random_stack(layers=6) + 1.0
    means = random_stack(layers=6, n=1, seed=5)[:, 0]
    combined = combine_layers(stack, layers) - combine_layers(means, layers)
    expected = explorer.cosine_similarity(combined)
    np.testing.assert_allclose(ctx.similarity_matrix(stack, layers, means), expected, atol=1e-5)


def test_similarity_matrix_matches_the_library_word_vectors(tiny):
    occurrences, per_layer = explorer.word_layer_vectors(tiny, SENTENCES, "bank")
    for layers in ("last", "concat_last4", "sum_all"):
        _, vectors = explorer.word_vectors(tiny, SENTENCES, "bank", layers)
        np.testing.assert_allclose(
            ctx.similarity_matrix(per_layer, layers),
            explorer.cosine_similarity(vectors),
            atol=1e-6,
        )
    last = ctx.pair_similarities(per_layer)[-1]
    matrix = ctx.similarity_matrix(per_layer, "last")
    rows, cols = np.array(pair_indices(len(occurrences))).T
    np.testing.assert_allclose(last, matrix[rows, cols], atol=1e-6)


def test_bad_shapes_are_rejected():
    with pytest.raises(ValueError, match="layers \\+ 1, n, hidden"):
        ctx.pair_similarities(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="centre must have shape"):
        ctx.pair_similarities(random_stack(), np.zeros((5, 3)))
    with pytest.raises(ValueError, match="Unknown layer choice"):
        ctx.similarity_matrix(random_stack(), "middle")


def test_layers_table_has_pairs_as_rows_and_layer_choices_as_columns():
    stack = random_stack(layers=7, n=4)
    table = ctx.layers_table(stack, LAYER_CHOICES)
    assert isinstance(table, pd.DataFrame)
    assert list(table.index) == ctx.pair_labels(4) and table.index.name == "Pair"
    assert list(table.columns) == [layers_label(s) for s in LAYER_CHOICES]
    matrix = ctx.similarity_matrix(stack, "concat_last4")
    assert table.loc["#2 vs #4", layers_label("concat_last4")] == pytest.approx(matrix[1, 3])
    means = stack.mean(axis=1)
    centred = ctx.layers_table(stack, LAYER_CHOICES, means)
    assert centred.shape == table.shape and not np.allclose(centred, table)


# -- token states and the anisotropy baseline -------------------------------------------


def test_layer_means_shape_and_validation():
    stack = random_stack(layers=4, n=10, hidden=6)
    np.testing.assert_allclose(ctx.layer_means(stack), stack.mean(axis=1), atol=1e-6)
    with pytest.raises(ValueError, match="at least one"):
        ctx.layer_means(np.zeros((4, 0, 6)))


def test_sample_pairs_all_or_capped_and_distinct():
    assert sample_pairs(5).shape == (10, 2)
    capped = sample_pairs(500, max_pairs=300, seed=3)
    assert capped.shape == (300, 2)
    assert np.all(capped[:, 0] != capped[:, 1])
    assert capped.min() >= 0 and capped.max() < 500
    np.testing.assert_array_equal(capped, sample_pairs(500, max_pairs=300, seed=3))
    assert baseline_pair_count(41) == 820 and baseline_pair_count(500) == 2000
    assert ctx.describe_baseline_pairs(41) == "all 820 pairs"
    assert ctx.describe_baseline_pairs(500) == "2,000 random pairs"
    with pytest.raises(ValueError, match="at least 2"):
        sample_pairs(1)


def test_anisotropy_baseline_shape_range_and_determinism():
    states = random_stack(layers=5, n=120, hidden=16) + 1.0
    baseline = ctx.anisotropy_baseline(states, max_pairs=2000, seed=0)
    assert baseline.shape == (5,)
    assert np.all(baseline >= -1) and np.all(baseline <= 1)
    np.testing.assert_array_equal(baseline, ctx.anisotropy_baseline(states, max_pairs=2000))
    assert not np.array_equal(baseline, ctx.anisotropy_baseline(states, max_pairs=50, seed=1))
    # a shared offset is what the baseline measures, and centring removes it
    assert baseline.mean() > 0.3
    centred = ctx.anisotropy_baseline(states, ctx.layer_means(states))
    assert np.all(np.abs(centred) < 0.1)


def test_anisotropy_baseline_of_a_large_model_works_one_layer_at_a_time():
    """BERT-base's shapes at 2,000 pairs: the working memory is one layer's pairs in float64
    (2 x 12 MB), not every layer's at once (2 x 160 MB, and 48 MB of unit vectors), which every
    session opening Word in context allocated (bench.classroom: 30 sessions took 35-46 s)."""
    import tracemalloc

    states = np.random.default_rng(0).standard_normal((13, 600, 768), dtype=np.float32)
    tracemalloc.start()
    try:
        baseline = ctx.anisotropy_baseline(states)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert baseline.shape == (13,) and peak < 64 * 2**20, f"{peak / 2**20:.0f} MB"
    # the same numbers as normalising every vector first, then the dot products of the pairs
    small = states[:4, :80] + 0.5
    pairs = sample_pairs(80)
    unit = small / np.linalg.norm(small.astype(np.float64), axis=-1, keepdims=True)
    expected = np.einsum("lph,lph->lp", unit[:, pairs[:, 0]], unit[:, pairs[:, 1]]).mean(axis=1)
    np.testing.assert_allclose(ctx.anisotropy_baseline(small), expected, rtol=1e-12)


def test_anisotropy_baseline_accepts_per_sentence_lists_and_sees_identical_tokens():
    states = random_stack(layers=3, n=6, hidden=8)
    as_list = ctx.anisotropy_baseline([states[:, :2], states[:, 2:]])
    np.testing.assert_allclose(as_list, ctx.anisotropy_baseline(states))
    same = np.repeat(states[:, :1], 5, axis=1)
    np.testing.assert_allclose(ctx.anisotropy_baseline(same), 1.0, atol=1e-6)


def test_content_token_states_drop_special_tokens(tiny):
    states = ctx.content_token_states(tiny, SENTENCES)
    words = sum(len(tiny.tokenize(s)) - 2 for s in SENTENCES)  # [CLS] and [SEP] each
    assert states.shape == (tiny.num_layers + 1, words, tiny.hidden_size)
    assert states.dtype == np.float32
    first = tiny.hidden_states(SENTENCES[0])[:, 1:-1]
    np.testing.assert_allclose(states[:, : first.shape[1]], first, atol=1e-5)
    baseline = ctx.anisotropy_baseline(states)
    assert baseline.shape == (tiny.num_layers + 1,)
    with pytest.raises(ValueError):
        ctx.content_token_states(tiny, [])


# -- what the bundled model says ----------------------------------------------------------


@pytest.mark.slow
def test_bundled_model_separates_the_two_senses_of_bank(bundled):
    """With centring, at the last layer, the two finance banks of *different* sentences (vault
    in s1, robbing in s2) are closer to each other than either is to a river bank of another
    sentence. (Not to the river bank of the *same* sentence: #1 vs #3 scores 0.89, above
    #1 vs #4 at 0.85, because a shared sentence pulls vectors together.)
    """
    occurrences, per_layer = explorer.word_layer_vectors(bundled, SENTENCES, "bank")
    assert len(occurrences) == 5  # vault, robber, river (s1); robbing (s2); river (s3)
    means = ctx.layer_means(ctx.content_token_states(bundled, SENTENCES))
    sim = ctx.similarity_matrix(per_layer, "last", means)
    vault, robbing, river_s1, river_s3 = 0, 3, 2, 4
    finance = sim[vault, robbing]
    cross = [sim[vault, river_s3], sim[robbing, river_s1], sim[robbing, river_s3]]
    assert finance > max(cross), (finance, cross)
    # and the baseline sits far below every pair
    baseline = ctx.anisotropy_baseline(ctx.content_token_states(bundled, SENTENCES), means)
    assert baseline[-1] < sim[np.triu_indices(5, 1)].min() - 0.3


# -- senses ------------------------------------------------------------------------------


def _occurrence(text_index: int) -> explorer.Occurrence:
    return Occurrence(text_index, 1, 2, 0, 4, "bank")


def test_pair_kinds_flag_one_sentence_before_senses():
    occurrences = [_occurrence(0), _occurrence(0), _occurrence(1), _occurrence(2)]
    senses = ["money", "river", None]
    assert ctx.pair_kinds(occurrences, senses) == [
        "same sentence",  # #1 vs #2: one sentence, whatever its sense
        "different senses",
        "unlabelled",
        "different senses",
        "unlabelled",
        "unlabelled",
    ]
    assert ctx.pair_kinds(occurrences[2:], ["x", "X", "x"]) == ["same sense"]
    assert set(ctx.pair_kinds(occurrences)) <= set(PAIR_KINDS)


def test_sense_gap_averages_each_kind_per_layer():
    similarities = np.array([[0.9, 0.8, 0.7, 0.1], [0.6, 0.2, 0.4, 0.0]])
    kinds = ["same sense", "different senses", "same sense", "same sentence"]
    gap = ctx.sense_gap(similarities, kinds)
    assert list(gap.index) == [0, 1] and gap.index.name == "layer"
    np.testing.assert_allclose(gap["same sense"], [0.8, 0.5])
    np.testing.assert_allclose(gap["different senses"], [0.8, 0.2])
    np.testing.assert_allclose(gap["gap"], [0.0, 0.3], atol=1e-12)
    with pytest.raises(ValueError, match="river | We sat"):
        ctx.sense_gap(similarities[:, :1], kinds[:1])
    with pytest.raises(ValueError, match="do not match"):
        ctx.sense_gap(similarities, kinds[:3])


def test_what_to_notice_quotes_the_numbers_it_is_given():
    similarities = np.array([[0.97, 0.96, 0.98], [0.80, 0.60, 0.95]])
    kinds = ["same sense", "different senses", "same sentence"]
    text = ctx.what_to_notice("bank", similarities, kinds)
    assert "same sense score 0.80" in text and "different senses 0.60" in text
    assert "gap of 0.20" in text and "the gap is 0.01" in text
    assert "The 1 pair from one sentence score 0.95 against 0.70" in text
    reversed_text = ctx.what_to_notice("bank", similarities[:, [1, 0, 2]], kinds)
    assert "does not separate" in reversed_text
    plain = ctx.what_to_notice("bat", similarities, ["unlabelled"] * 3)
    assert "most similar “bat”s are #2 vs #3 (0.95)" in plain
    assert "least similar #1 vs #3 (0.60)" in plain and "'river | …'" in plain


def test_layer_zero_note_gives_the_range_and_the_reason():
    note = ctx.layer_zero_note(np.array([[0.94, 0.99, 0.96], [0.5, 0.5, 0.5]]), " bank ")
    assert "0.94–0.99, not 1.00" in note and "position embedding" in note and "“bank”" in note
    same_place = ctx.layer_zero_note(np.array([[0.96, 1.0]]), "bat")
    assert "0.960–1.000 although" in same_place and "same position" in same_place


def test_projections_link_names_the_words_view():
    link = ctx.projections_link(" bank ")
    assert link["projections.level"] == "words" and link["projections.word"] == "bank"


@pytest.mark.parametrize(
    ("gaps", "word"),
    [
        ([0.01, 0.05, 0.12, 0.20], "opens"),
        ([0.20, 0.10, 0.05, 0.02], "narrows"),
        ([0.03, 0.04, 0.02, 0.04], "barely changes"),
    ],
)
def test_the_gap_caption_says_the_direction_the_numbers_take(gaps, word):
    # The caption said "It opens as the layers mix in the context" whatever the numbers.
    same = np.array(gaps) + 0.5
    similarities = np.stack([same, np.full(4, 0.5)], axis=1)
    gap = ctx.sense_gap(similarities, ["same sense", "different senses"])
    caption = ctx.gap_caption(gap)
    assert word in caption
    assert f"{gaps[0]:.2f} at layer 0, {gaps[-1]:.2f} at layer 3" in caption
    assert "1 same-sense and 1 different-sense pairs" in caption
    others = {"opens", "narrows", "barely changes"} - {word}
    assert not any(other in caption for other in others)


def test_the_gap_caption_names_a_widest_layer_in_the_middle():
    similarities = np.stack([np.array([0.51, 0.9, 0.6]), np.full(3, 0.5)], axis=1)
    gap = ctx.sense_gap(similarities, ["same sense", "different senses"])
    assert "widest at layer 1 (0.40)" in ctx.gap_caption(gap, left_out=2)
    assert "2 pairs from one sentence" in ctx.gap_caption(gap, left_out=2)
