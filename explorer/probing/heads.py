"""Downstream heads on frozen features: a small 1-D CNN over a layer's token vectors.

The tutorials' "BERT output as CNN input" layout: one layer's hidden states of a text,
``(tokens, hidden)``, are transposed to ``(hidden, tokens)`` so the hidden units are the
input channels of ``Conv1d`` and the kernels slide along the tokens. A batch is
``(batch, hidden, tokens)``. Convolutions (width 3 by default; several widths are allowed),
a ReLU, max over the real (unpadded) tokens, dropout and a linear layer give the class
scores (Kim, 2014).

The encoder stays frozen: features come from one forward pass
(:func:`explorer.probing.features.token_sequences`) and only the head trains, on the same
cross-validation folds as the linear probe (:func:`explorer.probing.folds.plan_folds`), so
the two are compared fairly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import torch
from threadpoolctl import threadpool_limits
from torch import nn

from explorer.probing.features import Progress
from explorer.probing.folds import ProbePlan, fold_accuracies, summary_row


class CNNHead(nn.Module):
    """Conv1d over tokens: ``(batch, hidden, tokens)`` and a ``(batch, tokens)`` mask in,
    ``(batch, num_classes)`` logits out.

    One ``Conv1d(hidden, channels, k, padding="same")`` per kernel width ``k``, ReLU, max
    over the tokens the mask keeps, concatenated, dropout, then ``Linear``.
    """

    def __init__(
        self,
        hidden_size: int,
        num_classes: int,
        channels: int = 32,
        kernel_sizes: Sequence[int] = (3,),
        dropout: float = 0.2,
    ) -> None:
        super().__init__()
        if num_classes < 2:
            raise ValueError(f"A classifier needs at least 2 classes, got {num_classes}.")
        self.convs = nn.ModuleList(
            nn.Conv1d(hidden_size, channels, k, padding="same") for k in kernel_sizes
        )
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(channels * len(self.convs), num_classes)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if x.ndim != 3:
            raise ValueError(f"Expected (batch, hidden, tokens), got shape {tuple(x.shape)}.")
        keep = mask[:, None, :].bool()
        x = x.masked_fill(~keep, 0.0)  # padding reads as the conv's own zero padding
        pooled = []
        for conv in self.convs:
            maps = torch.relu(conv(x)).masked_fill(~keep, 0.0)  # ReLU output >= 0
            pooled.append(maps.amax(dim=2))
        return self.out(self.dropout(torch.cat(pooled, dim=1)))


def train_step(
    head: CNNHead,
    optimizer: torch.optim.Optimizer,
    x: torch.Tensor,
    mask: torch.Tensor,
    y: torch.Tensor,
) -> float:
    """One gradient step on a batch (``x (batch, hidden, tokens)``, ``y (batch,)`` class ids);
    returns the batch loss before the step."""
    head.train()
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(head(x, mask), y)
    loss.backward()
    optimizer.step()
    return float(loss.detach())


class CNNClassifier:
    """A :class:`CNNHead` with scikit-learn's fit/predict contract, on frozen features.

    ``fit(sequences (n, tokens, hidden), mask (n, tokens), labels (n,))`` standardises each
    hidden unit with the training tokens' mean and std, then trains with Adam for
    ``epochs`` epochs of mini-batches (``batch_size=None``: a quarter of the rows, from 8 to
    32, so a few dozen rows still get several steps an epoch); ``predict`` returns labels.
    Learned attributes: ``classes_``, ``head_``, ``mean_``, ``std_``, ``batch_size_``,
    ``losses_`` (mean loss per epoch).
    Randomness (initialisation, shuffling, dropout) comes from ``random_state`` only; the
    global torch generator is left untouched.
    """

    def __init__(
        self,
        channels: int = 32,
        kernel_sizes: Sequence[int] = (3,),
        dropout: float = 0.2,
        epochs: int = 10,
        batch_size: int | None = None,
        learning_rate: float = 1e-3,
        weight_decay: float = 1e-4,
        random_state: int = 0,
    ) -> None:
        self.channels = channels
        self.kernel_sizes = tuple(kernel_sizes)
        self.dropout = dropout
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.random_state = random_state

    def _inputs(self, sequences: np.ndarray, mask: np.ndarray) -> tuple[torch.Tensor, ...]:
        x = (torch.as_tensor(sequences, dtype=torch.float32) - self.mean_) / self.std_
        keep = torch.as_tensor(mask, dtype=torch.bool)
        return x.masked_fill(~keep[:, :, None], 0.0).transpose(1, 2).contiguous(), keep

    def fit(
        self,
        sequences: np.ndarray,
        mask: np.ndarray,
        labels: Sequence[object],
        progress: Callable[[int], None] | None = None,
    ) -> CNNClassifier:
        """Train on ``sequences (n, tokens, hidden)``; ``progress(epoch)`` after each epoch."""
        sequences = np.asarray(sequences, dtype=np.float32)
        mask = np.asarray(mask, dtype=bool)
        if sequences.ndim != 3 or mask.shape != sequences.shape[:2]:
            raise ValueError(
                f"Expected sequences (n, tokens, hidden) and mask (n, tokens), got "
                f"{sequences.shape} and {mask.shape}."
            )
        labels = np.asarray([str(label) for label in labels], dtype=object)
        self.classes_, y = np.unique(labels, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError("Only one class in the training rows: need at least two.")
        tokens = sequences[mask]
        self.mean_ = torch.as_tensor(tokens.mean(axis=0))
        self.std_ = torch.as_tensor(tokens.std(axis=0) + 1e-6)
        x, keep = self._inputs(sequences, mask)
        target = torch.as_tensor(y, dtype=torch.long)
        self.batch_size_ = self.batch_size or min(32, max(8, len(target) // 4))
        self.losses_ = []
        # A head this small trains fastest on one thread (many times faster on a busy CPU).
        with torch.random.fork_rng(devices=[]), threadpool_limits(1):
            torch.manual_seed(self.random_state)
            self.head_ = CNNHead(
                sequences.shape[2],
                len(self.classes_),
                self.channels,
                self.kernel_sizes,
                self.dropout,
            )
            optimizer = torch.optim.Adam(
                self.head_.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay
            )
            for epoch in range(self.epochs):
                order = torch.randperm(len(target))
                losses = []
                for start in range(0, len(order), self.batch_size_):
                    rows = order[start : start + self.batch_size_]
                    loss = train_step(self.head_, optimizer, x[rows], keep[rows], target[rows])
                    losses.append(loss)
                self.losses_.append(float(np.mean(losses)))
                if progress is not None:
                    progress(epoch + 1)
        self.head_.eval()
        return self

    def predict(self, sequences: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Labels for ``sequences (n, tokens, hidden)``: ``(n,)``."""
        x, keep = self._inputs(np.asarray(sequences, dtype=np.float32), mask)
        with torch.inference_mode(), threadpool_limits(1):
            logits = self.head_(x, keep)
        return self.classes_[logits.argmax(dim=1).numpy()]


def cnn_scores(
    sequences: np.ndarray,
    mask: np.ndarray,
    plan: ProbePlan,
    progress: Progress | None = None,
    **params: object,
) -> pd.DataFrame:
    """Cross-validated accuracy of :class:`CNNClassifier` on ``plan``'s folds (and groups).

    Returns one row: ``accuracy_mean``, ``accuracy_std``, ``baseline``, ``fold_1`` …;
    ``progress(epochs_done, epochs_total)`` runs over all folds. ``params`` go to
    :class:`CNNClassifier`.
    """
    sequences = np.asarray(sequences, dtype=np.float32)
    if len(sequences) != len(plan):
        raise ValueError(f"Got {len(sequences)} sequences for {len(plan)} labels.")
    epochs = int(params.get("epochs", 10))
    total = epochs * plan.folds * len(plan.group_names())
    done = 0

    def fit_predict(train, train_labels, test):
        nonlocal done
        offset = done

        def step(epoch: int) -> None:
            if progress is not None:
                progress(offset + epoch, total)

        model = CNNClassifier(random_state=plan.random_state, **params)
        model.fit(sequences[train], mask[train], train_labels, step)
        done += epochs
        return model.predict(sequences[test], mask[test])

    return pd.DataFrame([summary_row(fold_accuracies(plan, fit_predict), plan)])
