"""How many times the bundled model's cost a model's token is: the factors every cap of
:mod:`explorer.server.limits` is scaled by."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

BUNDLED_WORK = 10_646_784
"""Parameters of the bundled model outside its embeddings and pooler: the weights every token
passes through, so a forward pass costs about twice this many operations per token."""

BUNDLED_STATE = 7 * 384
"""Values per token the bundled model's hidden states hold (embeddings + 6 layers, 384 wide)."""

Scale = Literal["work", "memory"]


def work_factor(model) -> float:
    """How many times the bundled model's time a token costs ``model`` (at least 1): its
    parameters outside the embeddings and pooler, the ones every token is multiplied through,
    over the bundled model's (BERT-base 8.0, BERT-large 28.5, DistilBERT-base 4.0)."""
    work = sum(
        parameter.numel()
        for name, parameter in model.encoder.named_parameters()
        if "embeddings" not in name and "pooler" not in name
    )
    return max(1.0, work / BUNDLED_WORK)


def memory_factor(model) -> float:
    """How many times the bundled model's bytes one token's hidden states take with ``model``
    (at least 1): ``(layers + 1) x hidden`` over 7 x 384 (BERT-base 3.7, BERT-large 9.5)."""
    return max(1.0, (model.num_layers + 1) * model.hidden_size / BUNDLED_STATE)


def scaled(model, budget: int, scale: Scale = "work") -> int:
    """``budget``, a cap written for the bundled model, for ``model``: divided by its
    :func:`work_factor` (a cap on time) or :func:`memory_factor` (a cap on memory)."""
    factor = work_factor(model) if scale == "work" else memory_factor(model)
    return max(1, int(budget / factor))


def costlier(model) -> str | None:
    """Why ``model`` gets smaller budgets of time and memory both, or ``None`` when it costs
    about what the bundled model costs."""
    work, memory = work_factor(model), memory_factor(model)
    if max(work, memory) < 1.5:
        return None
    return (
        f"this model reads a token about {work:.0f} times slower than the bundled "
        f"all-MiniLM-L6-v2 and keeps about {memory:.0f} times its memory per token, so its "
        "budgets are that much smaller"
    )


def slower(model, scale: Scale = "work") -> str | None:
    """Why ``model`` gets a smaller budget, in plain words, or ``None`` when it costs about
    what the bundled model costs."""
    factor = work_factor(model) if scale == "work" else memory_factor(model)
    if factor < 1.5:
        return None
    if scale == "work":
        return (
            f"this model reads a token about {factor:.0f} times slower than the bundled "
            "all-MiniLM-L6-v2, so its budget is that much smaller"
        )
    return (
        f"this model keeps about {factor:.0f} times the bundled all-MiniLM-L6-v2's memory per "
        "token, so its budget is that much smaller"
    )


def token_counts(model, texts: Sequence[str]) -> list[int]:
    """Tokens the model reads for each text (truncated to ``model.max_length``, special
    tokens included)."""
    return [len(row["input_ids"]) for row in model.encode_batch(list(texts))]
