"""The 1-D CNN head on frozen token vectors: shapes, padding, training, cross-validation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from explorer.probing import heads
from explorer.probing.folds import plan_folds


def test_head_shapes_and_padding_invariance():
    torch.manual_seed(0)
    head = heads.CNNHead(hidden_size=8, num_classes=3, channels=4).eval()
    x = torch.randn(2, 8, 5)  # (batch, hidden, tokens)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=torch.bool)
    logits = head(x, mask)
    assert logits.shape == (2, 3)
    garbage = x.clone()
    garbage[1, :, 3:] = 1e3  # padding must not count, whatever it holds
    torch.testing.assert_close(head(garbage, mask), logits)
    alone = head(x[1:, :, :3], mask[1:, :3])  # the short text on its own, unpadded
    torch.testing.assert_close(alone, logits[1:], atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="batch, hidden, tokens"):
        head(x[0], mask[0])
    with pytest.raises(ValueError, match="at least 2 classes"):
        heads.CNNHead(8, 1)


def test_one_training_step_lowers_the_loss():
    torch.manual_seed(0)
    head = heads.CNNHead(hidden_size=8, num_classes=2, channels=4, dropout=0.0)
    x, mask = torch.randn(6, 8, 4), torch.ones(6, 4, dtype=torch.bool)
    y = torch.tensor([0, 1, 0, 1, 0, 1])
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    before = heads.train_step(head, optimizer, x, mask, y)
    with torch.no_grad():
        after = torch.nn.functional.cross_entropy(head(x, mask), y).item()
    assert after < before


def _separable(n=40, tokens=6, hidden=8, seed=0):
    """Class 1 has a bump on hidden unit 0 at one random token; lengths vary."""
    rng = np.random.default_rng(seed)
    sequences = rng.normal(size=(n, tokens, hidden)).astype(np.float32)
    lengths = rng.integers(3, tokens + 1, size=n)
    mask = np.arange(tokens)[None, :] < lengths[:, None]
    labels = np.array(["no", "yes"] * (n // 2))
    for i in np.flatnonzero(labels == "yes"):
        sequences[i, rng.integers(0, lengths[i]), 0] += 6.0
    return sequences, mask, labels


def test_classifier_learns_and_leaves_the_global_generator_alone():
    sequences, mask, labels = _separable()
    state = torch.random.get_rng_state()
    model = heads.CNNClassifier(channels=8, epochs=30, random_state=1)
    model.fit(sequences, mask, labels)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert model.losses_[-1] < model.losses_[0]
    assert (model.predict(sequences, mask) == labels).mean() >= 0.9
    again = heads.CNNClassifier(channels=8, epochs=30, random_state=1)
    np.testing.assert_array_equal(
        again.fit(sequences, mask, labels).predict(sequences, mask),
        model.predict(sequences, mask),
    )
    with pytest.raises(ValueError, match="Only one class"):
        heads.CNNClassifier().fit(sequences, mask, ["no"] * len(labels))


def test_cnn_scores_use_the_probe_folds():
    sequences, mask, labels = _separable(n=40)
    plan = plan_folds(labels, folds=4)
    seen = []
    scores = heads.cnn_scores(
        sequences,
        mask,
        plan,
        lambda d, t: seen.append((d, t)),
        epochs=15,
        channels=8,
        learning_rate=1e-2,
    )
    assert list(scores.columns[:3]) == ["accuracy_mean", "accuracy_std", "baseline"]
    assert [c for c in scores.columns if c.startswith("fold_")] == [
        f"fold_{k}" for k in (1, 2, 3, 4)
    ]
    assert scores.loc[0, "accuracy_mean"] > 0.8
    assert seen[-1] == (60, 60)
    with pytest.raises(ValueError, match="sequences for"):
        heads.cnn_scores(sequences[:5], mask[:5], plan)
