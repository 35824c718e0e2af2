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

MAX_ROWS = 800
"""The library's default row budget (the app's, :data:`explorer.server.limits.MAX_PROBE_TEXTS`,
for the bundled model; the app scales it by the model's memory per token)."""

MAX_TOKENS = 60_000
"""The library's default token budget (the app's,
:data:`explorer.server.limits.MAX_PROBE_TOKENS`, for the bundled model; the app scales it by the
model's work per token)."""


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
    max_rows: int = MAX_ROWS,
    max_tokens: int = MAX_TOKENS,
    seed: int = 0,
    why: str | None = None,
) -> ProbeSample:
    """The rows one probe reads: all of them when they fit ``max_rows`` and ``max_tokens`` (tokens
    the model reads, truncation and special tokens included), else the longest prefix of
    :func:`stratified_order` (by label, and by word when ``groups`` gives one per row) that fits
    both, with a note (ending with ``why`` the budget is what it is, when given). The app passes
    its caps scaled by the model (:func:`explorer.server.limits.probe_caps`). Raises
    ``ValueError`` for mismatched lengths, budgets below 1 and unreadable texts (from the
    tokenizer)."""
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
        for count in _token_counts(model, [texts[i] for i in chunk]):
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


def _token_counts(model, texts: Sequence[str]) -> list[int]:
    """Tokens the model reads for each text (truncated, special tokens included)."""
    return [len(row["input_ids"]) for row in model.encode_batch(list(texts))]
