"""Which rows of a labelled table one probe request reads: a stratified random sample that fits a
row and a token budget (the "Which layer?" page caps uploads with it; notebooks need not).

A probe's time grows with the tokens the model reads (one forward pass) and with the rows every
layer's probe trains on (layers x strategies x folds fits). :func:`probe_sample` orders the rows
so that every prefix keeps each class's share (and at least :data:`MIN_PER_CLASS` of every
class first), then keeps the longest prefix within both budgets. Texts are tokenized in chunks
along that order and only until a budget is reached, so a 20 MB upload costs the tokenization of
the rows kept, not of all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explorer.probing.stored import MIN_PER_CLASS

CHUNK = 256
"""Texts tokenized at a time while filling the budget."""


@dataclass(frozen=True)
class ProbeSample:
    """``rows (k,)``: sorted indices of the rows kept, of ``total``; ``tokens`` they hold;
    ``note`` says what was left out and why (``None`` when every row was kept)."""

    rows: np.ndarray
    total: int
    tokens: int
    note: str | None = None


def stratified_order(strata: Sequence[object], seed: int = 0) -> np.ndarray:
    """A random order of the rows, ``(n,)`` indices, in which every prefix keeps each stratum's
    share of the rows: the first :data:`MIN_PER_CLASS` rows of every stratum come first, then
    row ``j`` of a stratum of ``n_c`` rows at about position ``j / n_c`` of the rest."""
    keys = np.asarray([str(s) for s in strata], dtype=object)
    rng = np.random.default_rng(seed)
    priority = np.empty(len(keys))
    for key in dict.fromkeys(keys.tolist()):
        members = rng.permutation(np.flatnonzero(keys == key))
        ranks = (np.arange(len(members)) + rng.random(len(members))) / len(members)
        ranks[:MIN_PER_CLASS] -= 2.0  # a few of every class first, whatever the budget
        priority[members] = ranks
    return np.argsort(priority, kind="stable")


def probe_sample(
    model,
    texts: Sequence[str],
    labels: Sequence[object],
    groups: Sequence[str] | None = None,
    max_rows: int | None = None,
    max_tokens: int | None = None,
    seed: int = 0,
) -> ProbeSample:
    """The rows one probe reads: all of them when they fit ``max_rows`` and ``max_tokens`` (tokens
    the model reads, truncation and special tokens included), else the longest prefix of
    :func:`stratified_order` (by label, and by word when ``groups`` gives one per row) that fits
    both, with a note. Defaults: :data:`explorer.server.limits.MAX_PROBE_TEXTS` rows, scaled by the
    model's :func:`~explorer.server.limits.memory_factor` (a probe's fits grow with its layers and
    width), and :data:`explorer.server.limits.MAX_PROBE_TOKENS`, scaled by its
    :func:`~explorer.server.limits.work_factor`. Raises ``ValueError`` for mismatched lengths,
    budgets below 1 and unreadable texts (from the tokenizer)."""
    from explorer.server import limits

    why = None
    if max_rows is None or max_tokens is None:
        why = limits.costlier(model)
    if max_rows is None:
        max_rows = limits.scaled(model, limits.MAX_PROBE_TEXTS, "memory")
    if max_tokens is None:
        max_tokens = limits.scaled(model, limits.MAX_PROBE_TOKENS, "work")
    if max_rows < 1 or max_tokens < 1:
        raise ValueError(f"Budgets must be at least 1, not {max_rows} rows, {max_tokens} tokens.")
    texts = list(texts)
    if len(labels) != len(texts) or (groups is not None and len(groups) != len(texts)):
        raise ValueError(f"Got {len(texts)} texts but {len(labels)} labels (or words).")
    strata = (
        [str(y) for y in labels]
        if groups is None
        else [f"{g}\x00{y}" for g, y in zip(groups, labels, strict=True)]
    )
    order = stratified_order(strata, seed)
    kept, tokens, full = 0, 0, False
    for start in range(0, len(order), CHUNK):
        chunk = order[start : start + CHUNK]
        for count in limits.token_counts(model, [texts[i] for i in chunk]):
            if kept and (kept >= max_rows or tokens + count > max_tokens):
                full = True
                break
            tokens += count
            kept += 1
        if full:
            break
    rows = np.sort(order[:kept]).astype(np.int64)
    if kept == len(texts):
        return ProbeSample(rows, len(texts), tokens)
    by = "label and word" if groups is not None else "label"
    note = (
        f"Probing {kept:,} of {len(texts):,} rows ({tokens:,} tokens), sampled at random "
        f"(stratified by {by}, seed {seed}): one probe reads at most {max_rows:,} rows and "
        f"{max_tokens:,} tokens" + (f" ({why})" if why else "") + ", so the page answers "
        "within 30 seconds."
    )
    return ProbeSample(rows, len(texts), tokens, note)
