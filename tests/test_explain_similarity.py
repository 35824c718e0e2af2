"""explain_similarity: the pairs are the cosine, split exactly (checked against a split
written here from the hidden states), and integrated gradients are complete."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import explorer
from explorer.explain import explain_similarity

A = "The invoice was paid late, again."
B = "They settled the bill after the deadline had passed."


def _cosine(model, texts, pooling, layers, exclude_special=False):
    u, v = explorer.sentence_embeddings(
        model, texts, pooling, layers, exclude_special=exclude_special
    ).astype(np.float64)
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def _combined(hidden, layers):
    """Token vectors under a layer choice, written out by hand: (T, D)."""
    top = hidden.shape[0] - 1
    if layers == "last":
        return hidden[top]
    if layers == "sum_last4":
        return hidden[top] + hidden[top - 1] + hidden[top - 2] + hidden[top - 3]
    if layers == "concat_last4":
        return np.concatenate([hidden[top - k] for k in range(4)], axis=1)
    return hidden[layers]


def _mean_pairs(model, layers):
    a = _combined(model.hidden_states(A).astype(np.float64), layers)
    b = _combined(model.hidden_states(B).astype(np.float64), layers)
    a, b = a / len(a), b / len(b)
    u, v = a.sum(axis=0), b.sum(axis=0)
    return np.array([[ai @ bj for bj in b] for ai in a]) / (np.linalg.norm(u) * np.linalg.norm(v))


def _max_pairs(model, layers):
    """Per-layer max (as the library pools), dimension by dimension, then the layer choice."""
    hidden_a = model.hidden_states(A).astype(np.float64)
    hidden_b = model.hidden_states(B).astype(np.float64)
    top = hidden_a.shape[0] - 1
    picked = {"last": [top], "sum_last4": [top - k for k in range(4)]}[layers]
    u = sum(hidden_a[layer].max(axis=0) for layer in picked)
    v = sum(hidden_b[layer].max(axis=0) for layer in picked)
    pairs = np.zeros((hidden_a.shape[1], hidden_b.shape[1]))
    for la in picked:
        for lb in picked:
            for d in range(hidden_a.shape[2]):
                i, j = hidden_a[la, :, d].argmax(), hidden_b[lb, :, d].argmax()
                pairs[i, j] += hidden_a[la, i, d] * hidden_b[lb, j, d]
    return pairs / (np.linalg.norm(u) * np.linalg.norm(v))


@pytest.mark.parametrize("layers", ["last", "sum_last4", "concat_last4", 2])
def test_mean_pairs_match_a_split_written_from_the_hidden_states(tiny, layers):
    explained = explain_similarity(tiny, A, B, "mean", layers)
    expected = _mean_pairs(tiny, layers)
    shape = (len(explained.tokens_a), len(explained.tokens_b))
    assert explained.pairs.shape == expected.shape == shape
    np.testing.assert_allclose(explained.pairs, expected, atol=1e-5)
    assert explained.pairs.sum() == pytest.approx(explained.score, abs=1e-5)
    assert explained.score == pytest.approx(_cosine(tiny, [A, B], "mean", layers), abs=1e-5)
    np.testing.assert_allclose(explained.token_scores_a, expected.sum(axis=1), atol=1e-5)
    np.testing.assert_allclose(explained.token_scores_b, expected.sum(axis=0), atol=1e-5)


@pytest.mark.parametrize("layers", ["last", "sum_last4"])
def test_max_pairs_match_a_split_written_from_the_hidden_states(tiny, layers):
    explained = explain_similarity(tiny, A, B, "max", layers)
    expected = _max_pairs(tiny, layers)
    np.testing.assert_allclose(explained.pairs, expected, atol=1e-5)
    assert explained.pairs.sum() == pytest.approx(explained.score, abs=1e-5)
    assert explained.score == pytest.approx(_cosine(tiny, [A, B], "max", layers), abs=1e-5)
    # Each dimension's product sits in one cell: most cells of a short pair are empty.
    assert (explained.pairs == 0).mean() > 0.3


def test_mean_max_is_the_sum_of_both_parts(tiny):
    both = explain_similarity(tiny, A, B, "mean_max", "sum_last4")
    assert both.score == pytest.approx(_cosine(tiny, [A, B], "mean_max", "sum_last4"), abs=1e-5)
    assert both.pairs.sum() == pytest.approx(both.score, abs=1e-5)
    # Unnormalised, the parts add up: pairs * |u||v| is the mean part's plus the max part's.
    u = explorer.sentence_embeddings(tiny, [A, B], "mean_max", "sum_last4").astype(np.float64)
    width = u.shape[1] // 2
    scale = np.linalg.norm(u[0]) * np.linalg.norm(u[1])
    parts = 0
    for name, half in (("mean", slice(None, width)), ("max", slice(width, None))):
        one = explain_similarity(tiny, A, B, name, "sum_last4")
        parts = parts + one.pairs * np.linalg.norm(u[0, half]) * np.linalg.norm(u[1, half])
    np.testing.assert_allclose(both.pairs * scale, parts, atol=1e-4)


@pytest.mark.parametrize("pooling", ["mean", "max", "mean_max"])
@pytest.mark.parametrize("layers", ["last", "concat_last4", "mean_last4", "sum_all"])
def test_the_score_is_sentence_embeddings_cosine_on_the_bundled_model(bundled, pooling, layers):
    explained = explain_similarity(bundled, A, B, pooling, layers)
    assert explained.score == pytest.approx(_cosine(bundled, [A, B], pooling, layers), abs=1e-5)
    assert explained.pairs.sum() == pytest.approx(explained.score, abs=1e-5)
    assert explained.tokens_a == tuple(bundled.tokenize(A).tokens)
    assert explained.tokens_a[0] == "[CLS]" and explained.special_a[0]


def test_excluding_special_tokens_zeroes_their_rows(tiny):
    explained = explain_similarity(tiny, A, B, "mean", "last", exclude_special=True)
    assert explained.score == pytest.approx(
        _cosine(tiny, [A, B], "mean", "last", exclude_special=True), abs=1e-5
    )
    special = np.array(explained.special_a)
    assert np.all(explained.pairs[special] == 0) and np.any(explained.pairs[~special] != 0)


def _baseline_cosine(model, text, other_vector):
    """cos(cls(text with every word replaced by [PAD]), other), from input ids."""
    tokenization = model.tokenize(text)
    ids = [
        i if special else model.tokenizer.pad_token_id
        for i, special in zip(tokenization.ids, tokenization.special, strict=True)
    ]
    with torch.inference_mode():
        output = model.encoder(input_ids=torch.tensor([ids]), output_hidden_states=True)
    cls = output.hidden_states[-1][0, 0].double().numpy()
    return float(cls @ other_vector / (np.linalg.norm(cls) * np.linalg.norm(other_vector)))


@pytest.mark.parametrize("fixture", ["tiny_bert_path", "distilbert_path"])
def test_integrated_gradients_are_complete(request, fixture):
    model = explorer.load_model(request.getfixturevalue(fixture))
    explained = explain_similarity(model, A, B, "cls", "last")
    assert explained.pairs is None and explained.method == "integrated gradients"
    assert explained.score == pytest.approx(_cosine(model, [A, B], "cls", "last"), abs=1e-5)
    u, v = explorer.sentence_embeddings(model, [A, B], "cls", "last").astype(np.float64)
    baseline_a, baseline_b = explained.baseline_scores
    assert baseline_a == pytest.approx(_baseline_cosine(model, A, v), abs=1e-5)
    assert baseline_b == pytest.approx(_baseline_cosine(model, B, u), abs=1e-5)
    assert explained.gap <= 1e-3
    for side, baseline in (("a", baseline_a), ("b", baseline_b)):
        total = explained.token_scores(side).sum()
        assert total == pytest.approx(explained.score - baseline, abs=explained.gap + 1e-6)
        assert explained.token_shares(side).sum() == pytest.approx(1.0, abs=1e-3 / abs(total))
    # Special tokens equal the baseline: they get nothing.
    assert np.all(explained.token_scores_a[np.array(explained.special_a)] == 0)


def test_top_pairs_in_words(bundled):
    explained = explain_similarity(bundled, "I paid the invoice.", "She settled the bill.")
    top = explained.top_pairs(3)
    assert len(top) == 3 and top[0][2] == explained.pairs.max()
    assert top[0][2] >= top[1][2] >= top[2][2]
    lines = explained.describe(2)
    i, j, value = top[0]
    assert lines[0].startswith(f"{explained.tokens_a[i]!r} with {explained.tokens_b[j]!r} gives ")
    assert f"{value / explained.score:.0%} of the similarity" in lines[0]
    assert explained.token_shares("b").sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="side"):
        explained.token_shares("c")


def test_bad_choices_are_refused_with_a_message(tiny):
    with pytest.raises(ValueError, match="pooling"):
        explain_similarity(tiny, A, B, "median")
    with pytest.raises(ValueError, match="layer"):
        explain_similarity(tiny, A, B, "mean", "middle")
    with pytest.raises(ValueError, match="empty"):
        explain_similarity(tiny, A, "  ")


def test_integrated_gradients_double_their_steps_until_the_gap_is_small(tiny, monkeypatch):
    from explorer.explain import _gradients

    target = explorer.sentence_embeddings(tiny, [B], "cls", "sum_last4")[0]
    run = _gradients.integrated_gradients
    coarse = run(tiny, A, target, "sum_last4", tolerance=1.0, max_steps=256)
    fine = run(tiny, A, target, "sum_last4", tolerance=0.0, max_steps=64)
    assert (coarse.steps, fine.steps) == (16, 64)
    assert fine.end == pytest.approx(coarse.end) and fine.start == pytest.approx(coarse.start)
    assert fine.scores.sum() == pytest.approx(fine.end - fine.start, abs=fine.gap + 1e-9)
    # Doubling reuses the coarse points: the result is the trapezoid rule on 64 steps, the
    # same as computing all 65 points at once.
    monkeypatch.setattr(_gradients, "MIN_STEPS", 64)
    direct = run(tiny, A, target, "sum_last4", tolerance=0.0, max_steps=64)
    assert direct.steps == 64
    np.testing.assert_allclose(fine.scores, direct.scores, atol=1e-9)


def test_integrated_gradients_report_their_progress_and_stop_when_it_raises(tiny):
    calls = []
    from explorer.explain._gradients import MAX_STEPS

    explain_similarity(tiny, A, B, "cls", report=lambda d, t: calls.append((d, t)))
    done = [d for d, _ in calls]
    totals = {t for _, t in calls}
    most = 2 * (MAX_STEPS + 1)  # both texts, up to MAX_STEPS + 1 points each
    assert totals == {most} and done == sorted(done) and 0 < done[0] and done[-1] <= most
    assert any(d > most // 2 for d in done)  # the second text counts after the first

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop

    with pytest.raises(Stop):
        explain_similarity(tiny, A, B, "cls", report=stop)
    assert explain_similarity(tiny, A, B, "mean", report=stop).method == "exact"  # one pass


def test_typed_special_tokens_are_attributed_as_the_text_they_are(bundled):
    # issue 32, finding 14: a typed "[CLS] [SEP] [PAD]" became real special tokens, kept by
    # the baseline, and the attribution ran its most steps (256: 9-12 s for 5 tokens)
    from explorer.explain._gradients import MAX_STEPS, integrated_gradients

    target = explorer.sentence_embeddings(bundled, ["money in the bank"], "cls", "last")[0]
    typed = integrated_gradients(bundled, "[CLS] [SEP] [PAD] bank", target)
    plain = bundled.tokenize("[cls] [sep] [pad] bank")  # the same pieces, as any text
    assert bundled.tokenize("[CLS] [SEP] [PAD] bank").ids == plain.ids and len(plain) == 13
    assert len(typed.scores) == 13 and typed.scores[1:-1].all()  # every piece is a word's
    assert typed.steps < MAX_STEPS and typed.gap <= 1e-3
