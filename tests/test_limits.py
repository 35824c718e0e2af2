"""Request caps: tokens per request, occurrences of a word."""

from __future__ import annotations

import numpy as np
import pytest

import explorer
from explorer.data.uploads import from_lists
from explorer.server import limits
from tests.tiny_models import save_random_bert


def test_cap_tokens_keeps_a_prefix_with_its_labels_and_says_what_it_kept(bundled):
    texts = [f"Sentence number {i} is here." for i in range(50)]
    data = from_lists(texts, [str(i % 3) for i in range(50)])
    per_text = limits.token_counts(bundled, texts[:1])[0]
    kept = limits.cap_tokens(bundled, data, max_tokens=10 * per_text + 1)
    assert kept.data.texts == tuple(texts[:10]) and kept.data.labels == data.labels[:10]
    assert kept.total == 50 and kept.tokens <= 10 * per_text + 1
    assert "first 10 of 50 texts" in kept.note
    with_columns = from_lists(texts, None, {"n": range(50)})
    cut = limits.cap_tokens(bundled, with_columns, max_tokens=10 * per_text + 1).data
    assert cut.columns == (("n", tuple(str(i) for i in range(10))),)  # cut with the texts
    untouched = limits.cap_tokens(bundled, data)
    assert untouched.data is data and untouched.note is None


def test_cap_tokens_keeps_at_least_one_text_and_rejects_a_silly_budget(bundled):
    kept = limits.cap_tokens(bundled, from_lists(["a long sentence " * 100, "b"]), max_tokens=5)
    assert len(kept.data) == 1
    with pytest.raises(ValueError, match="at least 1"):
        limits.cap_tokens(bundled, from_lists(["a"]), max_tokens=0)


def test_word_vectors_are_capped_before_the_forward_pass(bundled):
    texts = ["bank " * 30] * 5  # 150 occurrences
    occurrences, vectors, note = limits.word_layer_vectors(bundled, texts, "bank", limit=40)
    assert len(occurrences) == 40 and vectors.shape == (bundled.num_layers + 1, 40, 384)
    assert "occurs 150 times" in note and "first 40" in note
    _, full = explorer.word_layer_vectors(bundled, texts[:2], "bank")
    np.testing.assert_allclose(vectors, full[:, :40], atol=1e-5)
    _, _, none = limits.word_layer_vectors(bundled, texts, "bank", limit=150)
    assert none is None


def test_maps_sample_beyond_the_point_cap_and_say_so():
    rows, note = limits.sample_points(35_000)
    assert len(rows) == 20_000 and len(set(rows.tolist())) == 20_000
    assert np.all(np.diff(rows) > 0) and rows.max() < 35_000
    assert note == "Showing 20,000 of 35,000 points, a random sample (seed 0)."
    again, _ = limits.sample_points(35_000)
    np.testing.assert_array_equal(rows, again)
    everything, none = limits.sample_points(500)
    assert none is None and everything.tolist() == list(range(500))


def test_cap_3d_draws_large_nonlinear_3d_maps_in_2d_and_leaves_the_rest():
    from explorer.maps import ProjectionParams

    umap_3d = ProjectionParams("umap", 3, n_neighbors=7)
    same, note = limits.cap_3d(umap_3d, limits.MAX_POINTS_3D)
    assert same == umap_3d and note is None
    flat, note = limits.cap_3d(umap_3d, limits.MAX_POINTS_3D + 1)
    assert flat == ProjectionParams("umap", 2, n_neighbors=7)
    assert "UMAP in 3-D draws at most 2,000 points" in note and "2,001" in note
    assert limits.cap_3d(ProjectionParams("tsne", 3), 50, limit=10)[0].n_components == 2
    for kept in (ProjectionParams("pca", 3), ProjectionParams("tsne", 2)):
        assert limits.cap_3d(kept, 10**6) == (kept, None)


@pytest.fixture(scope="module")
def bert_base(bert_base_path):
    return explorer.load_model(bert_base_path)


def test_costs_are_measured_from_the_architecture(bundled, bert_base, tiny):
    assert limits.work_factor(bundled) == 1.0 and limits.memory_factor(bundled) == 1.0
    assert 7.9 < limits.work_factor(bert_base) < 8.1  # issue 24: "about 8x per token"
    assert 3.6 < limits.memory_factor(bert_base) < 3.8  # 13 x 768 over 7 x 384
    assert limits.work_factor(tiny) == 1.0  # smaller models keep the bundled budget
    assert limits.scaled(bert_base, 80_000) == int(80_000 / limits.work_factor(bert_base))
    assert limits.scaled(bert_base, 4_000, "memory") == 1_076


def test_a_bert_base_sized_request_is_capped_at_fewer_tokens_with_a_note(bundled, bert_base):
    texts = [f"Sentence number {i} is here." for i in range(200)]
    data = from_lists(texts)
    per_text = limits.token_counts(bundled, texts[:1])[0]
    budget = 100 * per_text
    small = limits.cap_tokens(bundled, data, budget)
    assert len(small.data) == 100 and "times slower" not in small.note
    big = limits.cap_tokens(bert_base, data, budget)
    assert len(big.data) == 100 // 8 and big.tokens <= budget / 8
    assert "about 8 times slower than the bundled all-MiniLM-L6-v2" in big.note
    memory = limits.cap_tokens(bert_base, data, budget, "memory")
    assert len(memory.data) == int(budget / limits.memory_factor(bert_base)) // per_text
    assert "about 4 times the bundled all-MiniLM-L6-v2's memory" in memory.note


def test_a_probe_of_a_bert_base_sized_model_reads_fewer_rows_and_tokens(bundled, bert_base):
    from explorer.probing.sample import probe_sample

    texts = [f"Text {i} about topic {i % 2}." for i in range(1_000)]
    labels = [i % 2 for i in range(1_000)]
    small = probe_sample(bundled, texts, labels, **limits.probe_caps(bundled))
    big = probe_sample(bert_base, texts, labels, **limits.probe_caps(bert_base))
    assert len(small.rows) == limits.MAX_PROBE_TEXTS
    assert len(big.rows) == limits.scaled(bert_base, limits.MAX_PROBE_TEXTS, "memory")
    assert "about 8 times slower" in big.note and "about 4 times its memory" in big.note
    assert "times slower" not in small.note


def test_attributing_a_cls_similarity_is_capped_by_the_models_cost(bundled, bert_base):
    limits.check_attribution(bundled, [64, 64])  # the bundled model's whole budget: fine
    with pytest.raises(ValueError, match="at most 128 tokens") as bundled_error:
        limits.check_attribution(bundled, [64, 65])
    assert "these have 129" in str(bundled_error.value)
    assert "times slower" not in str(bundled_error.value)
    cap = int(limits.MAX_ATTRIBUTION_TOKENS / limits.work_factor(bert_base))
    limits.check_attribution(bert_base, [cap // 2, cap - cap // 2])
    with pytest.raises(ValueError, match=f"at most {cap} tokens") as base_error:
        limits.check_attribution(bert_base, [cap // 2, cap - cap // 2 + 1])
    assert "about 8 times slower" in str(base_error.value)


def test_the_attribution_refusal_names_the_models_own_first_token(bundled, tiny_roberta):
    # It said "Attributing a [CLS] similarity" for a model whose first token is <s>.
    with pytest.raises(ValueError, match=r"^Attributing a \[CLS\] similarity"):
        limits.check_attribution(bundled, [64, 65])
    with pytest.raises(ValueError, match="^Attributing a <s> similarity"):
        limits.check_attribution(tiny_roberta, [10_000, 10_000])


def test_the_lesson_keeps_every_sense_sentence_for_the_bundled_model(bundled):
    from explorer.data import corpora

    frame = corpora.load_senses()
    kept, note = limits.cap_senses(bundled, frame)
    assert note is None and kept is frame
    assert sum(limits.token_counts(bundled, frame["text"].tolist())) <= limits.MAX_LESSON_TOKENS


def test_the_lesson_keeps_the_first_sentences_of_each_sense_within_the_budget(bundled, bert_base):
    from explorer.data import corpora

    frame = corpora.load_senses()
    counts = np.array(limits.token_counts(bundled, frame["text"].tolist()))
    rank = frame.groupby(["word", "sense"], sort=False).cumcount().to_numpy()
    budget = int(counts[rank < 8].sum())  # exactly the first 8 of each sense
    kept, note = limits.cap_senses(bundled, frame, budget)
    expected = frame[rank < 8].reset_index(drop=True)
    assert kept.equals(expected)  # in the file's order, every word and sense
    assert f"first 8 sentences of each sense ({len(expected)} of 238 sentences" in note
    assert "times slower" not in note
    assert (
        limits.cap_senses(bundled, frame, budget - 1)[0].groupby(["word", "sense"]).size().max()
        == 7
    )
    # However costly the model, each sense keeps MIN_SENSE_SENTENCES sentences.
    least, note = limits.cap_senses(bert_base, frame, budget)
    assert (least.groupby(["word", "sense"]).size() == limits.MIN_SENSE_SENTENCES).all()
    assert "about 8 times slower" in note and "the fewest that still mean something" in note
    with pytest.raises(ValueError, match="at least 1"):
        limits.cap_senses(bundled, frame, 0)


def _saved_bert(tmp_path, **shape) -> explorer.Model:
    """A BERT of tiny width with the layers and heads of a larger one (random weights)."""
    return explorer.load_model(save_random_bert(tmp_path, **{"intermediate_size": 64, **shape}))


def test_the_attention_page_reads_fewer_tokens_of_a_model_with_more_heads(bundled, tmp_path):
    # Issue 24: BERT-large's 24 layers x 16 heads at 512 tokens are 403 MB of weights and
    # raised one request's peak by 2.2 GB; BERT-base's 12 x 12 keep their 512 tokens.
    from explorer import attention

    large = _saved_bert(tmp_path, hidden_size=32, num_hidden_layers=24, num_attention_heads=16)
    assert limits.attention_tokens(bundled) == bundled.max_length == 512
    cap = limits.attention_tokens(large)
    assert cap == 313 and 24 * 16 * cap**2 <= limits.MAX_ATTENTION_VALUES
    text = "word " * 600
    result = attention.attention_pass(large, text, max_tokens=cap)
    assert result.attentions.shape == (24, 16, cap, cap) and result.tokenization.truncated
    assert len(attention.attention_pass(bundled, text).tokenization.tokens) == 512
    note = limits.attention_note(large, cap)
    assert "first **313 tokens**" in note and "could read 512" in note
    assert "24 layers x 16 heads" in note
    assert "limit of 512 tokens" in limits.attention_note(bundled, 512)


def test_a_deeper_model_is_costlier_by_its_config_and_gets_fewer_tokens(bundled, tmp_path):
    # Tiny width, the bundled depth x 2 and a wide feed-forward: more work per token than the
    # bundled model without BERT-base's download or memory.
    wide = _saved_bert(
        tmp_path, hidden_size=128, num_hidden_layers=12, num_attention_heads=2,
        intermediate_size=8192,
    )  # fmt: skip
    assert limits.work_factor(wide) > 2  # 26 M weights per token, the bundled 10.6 M
    texts = [f"Sentence number {i} is here." for i in range(300)]
    data = from_lists(texts)
    per_text = limits.token_counts(bundled, texts[:1])[0]
    budget = 200 * per_text
    small = limits.cap_tokens(bundled, data, budget)
    big = limits.cap_tokens(wide, data, budget)
    assert len(big.data) < len(small.data) == 200
    assert f"about {limits.work_factor(wide):.0f} times slower" in big.note


def test_layers_in_motion_maps_fewer_points_for_deeper_models():
    assert limits.motion_points(limits.BUNDLED_FRAMES) == limits.MAX_MOTION_POINTS
    assert limits.motion_points(13) == 807 and limits.motion_points(25) == 420
    assert limits.motion_points(5) == limits.MAX_MOTION_POINTS  # shallower: no more than that
    assert limits.motion_points(10_000) == 100


def test_results_get_less_room_beside_larger_weights(bundled):
    assert bundled.weight_bytes == limits.BUNDLED_WEIGHT_BYTES
    assert limits.results_budget(bundled.weight_bytes) == limits.RESULTS_BYTES
    assert limits.results_budget(0) == limits.RESULTS_BYTES  # nothing loaded yet: no more
    mb = 2**20
    with_bert_base = bundled.weight_bytes + 100 * mb
    assert limits.results_budget(with_bert_base) == limits.RESULTS_BYTES - 100 * mb
    assert limits.results_budget(922 * mb) == limits.MIN_RESULTS_BYTES  # BERT-base x 2 + bundled


def test_the_hover_cache_holds_two_of_the_largest_maps_the_app_draws():
    from explorer.figures.projections import HOVER_CACHE

    assert HOVER_CACHE >= 2 * limits.MAX_POINTS
