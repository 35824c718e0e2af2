"""Caps on a request that runs two models: a budget written for the bundled model alone,
shared by the pair in proportion to what each costs per token."""

from __future__ import annotations

from explorer.server.limits._scale import work_factor

MAX_PAIR_TOKENS = 16_000
"""Tokens of the bundled model's work one comparison may run, both models together: 8,000
tokens through each when both are the bundled model, 1,777 through each for a BERT-base-sized
model beside it (work 8 + 1). A first visit to the Compare models page read about 2.2 such
budgets (:mod:`explorer.compare._budget`): ``python -m bench.compare`` measured 28.6 s of CPU
for it with 20,000 (bundled vs BERT-base-sized, loaded machine), so 16,000 keeps the whole
visit within 30 s alone. Since the CKA's texts are read in the maps' pass it reads about 1.7
(23.1 s of CPU at 16,000, loaded machine)."""


def pair_tokens(model_a, model_b, budget: int = MAX_PAIR_TOKENS) -> int:
    """Tokens each of two models may read in one request: ``budget`` over the sum of their
    :func:`work_factor` s (at least 1)."""
    if budget < 1:
        raise ValueError(f"budget must be at least 1, not {budget}.")
    return max(1, int(budget / (work_factor(model_a) + work_factor(model_b))))


def pair_note(kept: int, total: int, tokens: int) -> str | None:
    """What a pair cap kept, for the page, or ``None`` when it kept everything."""
    if kept >= total:
        return None
    return (
        f"Compared the first {kept:,} of {total:,} texts: one comparison runs at most "
        f"{tokens:,} tokens through each model (fewer for larger models), so it answers "
        "within seconds."
    )
