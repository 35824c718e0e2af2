"""The Attention page's "what to notice" sentences, each derived from the numbers on screen.

Every claim (which special token gets the most, whether a share rises or falls once weights
are scaled by the vectors they mix in) is read from the arrays, so the sentence holds for any
model: BERT-base parks its heads on [SEP], the bundled MiniLM on [CLS], a random model on
neither. Sentences are Markdown without user text; token names are the model's own special
tokens, shown as code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from explorer.attention import LayerInfluence, column_share

LOWER = 0.8
"""A share that falls below this fraction of the raw share (and by 2 points) is called lower."""
HIGHER = 1.25
"""A share above this multiple of the raw share (and by 2 points) is called higher."""


def percent(share: float) -> int:
    """``share`` as the whole percent the page prints (``f"{share:.0%}"``)."""
    return int(f"{share * 100:.0f}")


def change(raw: float, weighted: float) -> str:
    """``"lower"``, ``"higher"`` or ``"same"``: how the weighted share compares with the raw
    one, judged on the percents the page prints."""
    before, after = percent(raw), percent(weighted)
    if after <= before * LOWER and before - after >= 2:
        return "lower"
    if after >= before * HIGHER and after - before >= 2:
        return "higher"
    return "same"


def _layers(layers: Sequence[int]) -> str:
    layers = sorted(layers)
    if len(layers) == 1:
        return f"layer {layers[0]}"
    if layers[-1] - layers[0] == len(layers) - 1:
        return f"layers {layers[0]}-{layers[-1]}"
    return "layers " + ", ".join(map(str, layers[:-1])) + f" and {layers[-1]}"


def what_to_notice(stats: pd.DataFrame, cls: str = "[CLS]", sep: str = "[SEP]") -> str:
    """A sentence on :func:`explorer.attention._weights.head_statistics`: which of the two special
    tokens (named ``cls`` and ``sep`` by the model) gets more of all attention, the two layers
    where it gets most, and the most positional head."""
    shares = {"cls": float(stats["cls"].mean()), "sep": float(stats["sep"].mean())}
    names = {"cls": cls, "sep": sep}
    first = max(shares, key=shares.get)
    second = "sep" if first == "cls" else "cls"
    by_layer = stats.groupby("layer")[first].mean()
    top = [int(layer) for layer in by_layer.nlargest(2).index]
    sentence = (
        f"**{shares[first]:.0%}** of all attention lands on `{names[first]}` (most in "
        f"{_layers(top)}) and **{shares[second]:.0%}** on `{names[second]}`"
    )
    best = stats.loc[stats[["previous", "next"]].max(axis=1).idxmax()]
    side = "previous" if best["previous"] >= best["next"] else "next"
    return sentence + (
        f"; layer {int(best['layer'])} head {int(best['head'])} sends "
        f"{best[side]:.0%} of its attention to the {side} token."
    )


def head_sentence(
    layer: int,
    head: int,
    pattern: str,
    share: float,
    entropy: float,
    cls: str = "[CLS]",
    sep: str = "[SEP]",
) -> str:
    """One sentence on head ``head`` of layer ``layer`` (Markdown): where it puts most of its
    attention (``pattern``, a share column of :func:`explorer.attention.strongest_pattern`:
    ``cls``, ``sep``, ``self``, ``previous``, ``next`` or ``punctuation``; the special tokens
    named ``cls`` and ``sep`` by the model, as code), how much (``share``) and its entropy."""
    where = {
        "cls": f"on `{cls}`",
        "sep": f"on `{sep}`",
        "self": "on itself",
        "previous": "on the previous token",
        "next": "on the next token",
        "punctuation": "on punctuation",
    }
    if pattern not in where:
        raise ValueError(f"Unknown attention pattern {pattern!r}; choose one of {list(where)}.")
    return (
        f"Layer {layer}, head {head} puts **{share:.0%}** of its attention {where[pattern]} "
        f"(entropy {entropy:.2f} bits)."
    )


def special_shares(
    influence: LayerInfluence, tokens: Sequence[str], specials: Sequence[str]
) -> dict[str, tuple[float, float | None]]:
    """For each special token of ``specials`` present in ``tokens``: its share of the layer's
    raw attention and of the norm-weighted attention (``None`` without norms)."""
    found = {}
    for name in dict.fromkeys(specials):
        mask = np.array([token == name for token in tokens])
        if not mask.any():
            continue
        weighted = influence.weighted
        found[name] = (
            column_share(influence.raw, mask),
            None if weighted is None else column_share(weighted, mask),
        )
    return found


def influence_notice(
    influence: LayerInfluence, tokens: Sequence[str], specials: Sequence[str]
) -> str:
    """What the raw vs norm-weighted comparison of one layer shows, for the special token
    of ``specials`` that gets the most raw attention, with the direction read from the
    numbers (Kobayashi et al. 2020's "attention is not only a weight")."""
    shares: Mapping[str, tuple[float, float | None]] = special_shares(influence, tokens, specials)
    rollout = (
        " Rollout follows the mixing through the residual path of every layer up to this one "
        "(Abnar & Zuidema 2020)."
    )
    if not shares:
        return "This input has no special tokens to follow." + rollout
    name = max(shares, key=lambda token: shares[token][0])
    raw, weighted = shares[name]
    others = [f"{shares[other][0]:.0%} to `{other}`" for other in shares if other != name]
    sentence = (
        f"In layer {influence.layer} (heads averaged), **{raw:.0%}** of the raw attention "
        f"goes to `{name}`" + (f" ({', '.join(others)})" if others else "")
    )
    if weighted is None:
        return sentence + "." + rollout
    scaled = "once each weight is scaled by the size of the vector it actually mixes in"
    direction = change(raw, weighted)
    if direction == "lower":
        sentence += (
            f", but only **{weighted:.0%}** {scaled}: the vectors `{name}` passes on are "
            "small, so much of the attention parked there changes little, a way of doing "
            "nothing (Kobayashi et al. 2020)."
        )
    elif direction == "higher":
        sentence += (
            f", and **{weighted:.0%}** {scaled}: the vectors `{name}` passes on are larger "
            "than the other tokens', so the raw weights understate its influence."
        )
    else:
        sentence += (
            f", and about as much, **{weighted:.0%}**, {scaled}: in this layer the raw "
            f"weights on `{name}` are a fair guide to its influence."
        )
    return sentence + rollout
