"""The anisotropy baseline: the mean cosine of random token pairs, layer by layer.

Contextual vectors share a large common direction, so even two unrelated tokens have a high
cosine (Ethayarajh, 2019); the baseline says how high, on the same sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from explorer.context.centring import centred
from explorer.context.pairs import pair_indices

BASELINE_PAIRS = 2000
"""Random token pairs the anisotropy baseline averages over when there are more pairs."""


def baseline_pair_count(n_tokens: int, max_pairs: int = BASELINE_PAIRS) -> int:
    """How many token pairs :func:`anisotropy_baseline` averages over for ``n_tokens`` tokens."""
    return min(max_pairs, n_tokens * (n_tokens - 1) // 2)


def describe_baseline_pairs(n_tokens: int, max_pairs: int = BASELINE_PAIRS) -> str:
    """``"all 820 pairs"`` or ``"2,000 random pairs"``: what the baseline averages over."""
    count = baseline_pair_count(n_tokens, max_pairs)
    sampled = n_tokens * (n_tokens - 1) // 2 > max_pairs
    return f"{count:,} random pairs" if sampled else f"all {count:,} pairs"


def sample_pairs(n: int, max_pairs: int = BASELINE_PAIRS, seed: int = 0) -> np.ndarray:
    """Pairs of distinct items of ``n``: all ``n(n-1)/2`` if that is at most ``max_pairs``,
    else ``max_pairs`` random pairs from ``np.random.default_rng(seed)``. ``(n_pairs, 2)``.
    """
    if n < 2:
        raise ValueError(f"Need at least 2 tokens to pair up, got {n}.")
    if n * (n - 1) // 2 <= max_pairs:
        return np.array(pair_indices(n), dtype=np.int64).reshape(-1, 2)
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, size=max_pairs)
    second = (first + rng.integers(1, n, size=max_pairs)) % n  # never equal to `first`
    return np.stack([first, second], axis=1)


def anisotropy_baseline(
    token_states: np.ndarray | Sequence[np.ndarray],
    center: np.ndarray | None = None,
    max_pairs: int = BASELINE_PAIRS,
    seed: int = 0,
) -> np.ndarray:
    """Mean cosine similarity of random token pairs at every layer: the anisotropy baseline.

    ``token_states`` is ``(L+1, n_tokens, H)`` (as from
    :func:`explorer.context.centring.content_token_states`) or a list of per-sentence
    ``(L+1, T_i, H)`` arrays, which are joined. Pairs are of two
    different tokens (all pairs when there are at most ``max_pairs``, otherwise that many
    drawn with a fixed ``seed``; the same pairs at every layer). ``center`` ``(L+1, H)`` is
    subtracted first. Returns ``(L+1,)`` float64, each value in [-1, 1].
    """
    if not isinstance(token_states, np.ndarray):
        token_states = np.concatenate([np.asarray(s) for s in token_states], axis=1)
    states = centred(token_states, center)
    pairs = sample_pairs(states.shape[1], max_pairs, seed)
    means = np.empty(states.shape[0], dtype=np.float64)
    # One layer at a time: the pairs' vectors of all layers at once, in float64, were
    # (L + 1, pairs, H) twice, 320 MB for BERT-base at 2,000 pairs, in every session that
    # opened Word in context (30 at once took 35-46 s, python -m bench.classroom).
    for layer, vectors in enumerate(states):
        first = vectors[pairs[:, 0]].astype(np.float64)
        second = vectors[pairs[:, 1]].astype(np.float64)
        norms = np.maximum(np.linalg.norm(first, axis=1), 1e-12) * np.maximum(
            np.linalg.norm(second, axis=1), 1e-12
        )
        means[layer] = (np.einsum("ph,ph->p", first, second) / norms).mean()
    return np.clip(means, -1.0, 1.0)
