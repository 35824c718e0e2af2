"""The library's named choices written as PyTorch, for the "Show code" snippets.

A snippet reproduces a library computation in plain torch, so each layer choice, pooling and
subword mode needs its expression. They live here, once each, in tables keyed by the
library's own constants (:data:`explorer.layers.LAYER_CHOICES`,
:data:`explorer.pooling.BASE_POOLINGS` with :func:`explorer.pooling.pooling_parts`,
:data:`explorer.subwords.SUBWORD_MODES`); ``tests/test_expressions.py`` checks that every
name has one, so a new choice cannot be added to the library and forgotten here.

This module stands beside :mod:`explorer.choice` (whose :meth:`~explorer.choice.VectorChoice.
expression` it serves), not in :mod:`explorer.codegen`: the snippets import the library, and
the library never imports them.

Expressions use ``L`` for the number of encoder layers (:data:`NUM_LAYERS` defines it in a
snippet); index 0 of a hidden-state stack is the embedding output.
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.layers import LAYER_CHOICES, Layers
from explorer.pooling import pooling_parts
from explorer.subwords import validate_subwords

NUM_LAYERS = "L = model.config.num_hidden_layers  # hidden states: 0 = embeddings, L = last layer\n"
"""The snippet line that defines ``L`` for :func:`layers_expression`."""

_LAST_FOUR = "[L, L - 1, L - 2, L - 3]"

# {x}: a stack (L + 1, ..., hidden); the result drops the first axis.
LAYER_EXPRESSIONS = {
    "last": "{x}[L]",
    "second_to_last": "{x}[L - 1]",
    "sum_last4": "{x}[" + _LAST_FOUR + "].sum(dim=0)",
    "mean_last4": "{x}[" + _LAST_FOUR + "].mean(dim=0)",
    "concat_last4": "torch.cat([{x}[L], {x}[L - 1], {x}[L - 2], {x}[L - 3]], dim=-1)",
    "sum_all": "{x}[1:].sum(dim=0)",
    "embeddings": "{x}[0]",
}

# {h}: hidden states with tokens on axis {t} ({lead} indexes the axes before it); {m}: the
# attention mask as bool, broadcastable to {h}. Padding never counts in mean and max.
POOLING_EXPRESSIONS = {
    "cls": "{h}[{lead}0]",
    "mean": "({h} * {m}).sum(dim={t}) / {m}.sum(dim={t}).clamp(min=1e-9)",
    "max": "{h}.masked_fill(~{m}, torch.finfo({h}.dtype).min).amax(dim={t})",
}

# {x}: one occurrence's subword vectors with the subwords on axis {t}.
SUBWORD_EXPRESSIONS = {
    "first": "{x}[{lead}0]",
    "last": "{x}[{lead}-1]",
    "mean": "{x}.mean(dim={t})",
    "max": "{x}.amax(dim={t})",
    "sum": "{x}.sum(dim={t})",
}

POOLED_NAMES = {"cls": "cls", "mean": "mean", "max": "maxed"}
"""Variable each base pooling of all layers gets in a snippet (``max`` would shadow a builtin)."""

_POOLED_COMMENTS = {
    "cls": "  # the first token ([CLS]) of every layer",
    "mean": "  # (L + 1, batch, hidden)",
    "max": "",
}


def layers_expression(layers: Layers, stack: str = "x") -> str:
    """Expression combining ``stack`` ``(L + 1, ..., hidden)`` the way ``layers`` does.

    ``layers_expression("sum_all", "mean") == "mean[1:].sum(dim=0)"``; a layer number picks
    that layer (negative numbers count from the end, as in the library).
    """
    if isinstance(layers, int) and not isinstance(layers, bool):
        return f"{stack}[{layers}]"
    if not isinstance(layers, str) or layers not in LAYER_EXPRESSIONS:
        raise ValueError(f"Unknown layer choice {layers!r}; choose one of {LAYER_CHOICES}")
    return LAYER_EXPRESSIONS[layers].format(x=stack)


def joined(expressions: Sequence[str], separator: str = ", ") -> str:
    """One expression as is; several put side by side (``torch.cat`` on the last axis)."""
    if len(expressions) == 1:
        return expressions[0]
    return f"torch.cat([{separator.join(expressions)}], dim=-1)"


def pooling_expression(
    pooling: str,
    hidden: str = "hidden",
    mask: str = "mask",
    token_axis: int = 1,
    separator: str = ", ",
) -> str:
    """Expression pooling ``hidden`` over its tokens (axis ``token_axis``) as ``pooling`` does.

    For one layer's ``(batch, tokens, hidden)`` with ``mask`` ``(batch, tokens, 1)``, the
    default axis. ``mean_max`` concatenates the mean and max expressions (``separator``
    between them, e.g. to break the line).
    """
    parts = [
        POOLING_EXPRESSIONS[part].format(h=hidden, m=mask, t=token_axis, lead=":, " * token_axis)
        for part in pooling_parts(pooling)
    ]
    return joined(parts, separator)


def pooled_lines(poolings: Sequence[str], indent: str = "    ") -> str:
    """Snippet lines that pool ``hidden`` ``(L + 1, batch, tokens, hidden)`` of every layer.

    One assignment per base pooling the ``poolings`` need, to :data:`POOLED_NAMES`, each
    ``(L + 1, batch, hidden)``; ``mask`` must be ``(1, batch, tokens, 1)`` bool.
    """
    needed = [p for p in POOLING_EXPRESSIONS if any(p in pooling_parts(q) for q in poolings)]
    return "".join(
        f"{indent}{POOLED_NAMES[p]} = {pooling_expression(p, token_axis=2)}{_POOLED_COMMENTS[p]}\n"
        for p in needed
    )


def pooled_layers_expression(pooling: str, layers: Layers) -> str:
    """Expression for the sentence vectors of ``pooling`` and ``layers`` from :func:`pooled_lines`.

    Each part of the pooling has its layers combined, then the parts are put side by side:
    the order of :func:`explorer.pooling.combine_pooled`.
    """
    return joined([layers_expression(layers, POOLED_NAMES[p]) for p in pooling_parts(pooling)])


def subwords_expression(subwords: str, span: str = "span", token_axis: int = 0) -> str:
    """Expression combining one word's subword vectors (subwords on ``token_axis``).

    ``subwords`` is one of :data:`explorer.subwords.SUBWORD_MODES` (``ValueError`` otherwise).
    """
    validate_subwords(subwords)
    return SUBWORD_EXPRESSIONS[subwords].format(x=span, t=token_axis, lead=":, " * token_axis)
