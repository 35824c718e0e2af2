"""Why are two texts close? :func:`explain_similarity` splits the cosine of their sentence
vectors into token pairs (exactly, for ``mean``, ``max`` and ``mean_max`` pooling) or into
input-token attributions (integrated gradients, for ``cls``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from explorer.choice import VectorChoice, vector_choice
from explorer.explain._gradients import integrated_gradients
from explorer.explain._pairs import contributions, pair_matrix
from explorer.layers import Layers
from explorer.model import Model
from explorer.pooling import pool_hidden

SIDES = ("a", "b")


@dataclass(frozen=True)
class Explanation:
    """The cosine of two sentence vectors and where it comes from.

    ``score``: the cosine (as :func:`explorer.sentence_embeddings` gives it).
    ``tokens_a``, ``tokens_b``: every token the model reads, special tokens included;
    ``special_a``, ``special_b`` flag the special ones.
    ``pairs``: ``(len(tokens_a), len(tokens_b))`` float64 whose entries sum to ``score``
    (``method == "exact"``); ``None`` for ``cls`` pooling, whose one vector per text has no
    exact pairwise split: read ``token_scores_*`` instead.
    ``token_scores_a``, ``token_scores_b``: each token's part. Exact methods: the row and
    column sums of ``pairs`` (each sums to ``score``). Integrated gradients: the attribution
    of each input token, summing to ``score - baseline_scores[side]`` up to ``gap``.
    ``baseline_scores``: for ``cls``, the cosine with text a (then b) replaced by the
    baseline text (its special tokens, [PAD] everywhere else); ``None`` otherwise.
    ``gap``: ``|sum(pairs) - score|`` (float rounding) or the larger completeness gap of
    integrated gradients; ``steps``: trapezoid steps (0 for exact).
    """

    score: float
    tokens_a: tuple[str, ...]
    tokens_b: tuple[str, ...]
    special_a: tuple[bool, ...]
    special_b: tuple[bool, ...]
    pairs: np.ndarray | None
    token_scores_a: np.ndarray
    token_scores_b: np.ndarray
    pooling: str
    layers: Layers
    method: str
    baseline_scores: tuple[float, float] | None = None
    gap: float = 0.0
    steps: int = 0
    pad_token: str | None = None

    def special_tokens(self) -> list[str]:
        """The special tokens the two texts hold (the model's own: ``[CLS]``, ``<s>``, ...),
        each once, in the order they first appear."""
        tokens, flags = [*self.tokens_a, *self.tokens_b], [*self.special_a, *self.special_b]
        flagged = zip(tokens, flags, strict=True)
        return list(dict.fromkeys(token for token, special in flagged if special))

    def baseline_name(self) -> str:
        """What the words are replaced by in the baseline text: ``"[PAD]s"``, ``"<pad>s"``,
        or zero vectors for a tokenizer without a padding token."""
        return f"{self.pad_token}s" if self.pad_token else "zero vectors"

    def __post_init__(self) -> None:
        for array in (self.pairs, self.token_scores_a, self.token_scores_b):
            if array is not None:
                array.flags.writeable = False  # shared between sessions by a page's cache

    def tokens(self, side: str) -> tuple[str, ...]:
        """The tokens of text ``"a"`` or ``"b"``."""
        return self.tokens_a if _side(side) == "a" else self.tokens_b

    def token_scores(self, side: str) -> np.ndarray:
        """``token_scores_a`` or ``token_scores_b``."""
        return self.token_scores_a if _side(side) == "a" else self.token_scores_b

    def explained(self, side: str = "a") -> float:
        """What the token scores of ``side`` add up to: ``score`` for the exact methods,
        ``score`` minus that side's baseline score for integrated gradients."""
        if self.baseline_scores is None:
            return self.score
        return self.score - self.baseline_scores[SIDES.index(_side(side))]

    def token_shares(self, side: str) -> np.ndarray:
        """Each token's score as a fraction of :meth:`explained` (sums to 1; zeros when
        there is nothing to share). A negative share pulls the texts apart."""
        total = self.explained(side)
        scores = self.token_scores(side)
        return scores / total if abs(total) > 1e-12 else np.zeros_like(scores)

    def top_pairs(self, k: int = 5) -> list[tuple[int, int, float]]:
        """The ``k`` largest entries of ``pairs`` as ``(i, j, value)``, largest first;
        ``[]`` for ``cls`` (no pairs)."""
        if self.pairs is None:
            return []
        flat = np.argsort(self.pairs, axis=None)[::-1][: max(int(k), 0)]
        rows, cols = np.unravel_index(flat, self.pairs.shape)
        return [(int(i), int(j), float(self.pairs[i, j])) for i, j in zip(rows, cols, strict=True)]

    def top_tokens(self, side: str, k: int = 5) -> list[tuple[int, float]]:
        """The ``k`` tokens of ``side`` with the largest scores, as ``(index, score)``."""
        scores = self.token_scores(side)
        order = np.argsort(scores)[::-1][: max(int(k), 0)]
        return [(int(i), float(scores[i])) for i in order]

    def describe(self, k: int = 3) -> list[str]:
        """The top pairs in words: ``"'invoice' with 'bill' gives 31 % of the similarity"``
        (for ``cls``: the top tokens of each text, as shares of what their words add over
        the baseline). Token strings are the model's, quoted with ``repr``; a page must
        still escape them."""
        if self.pairs is not None:
            return [
                f"{self.tokens_a[i]!r} with {self.tokens_b[j]!r} {_gives(value, self.score)}"
                for i, j, value in self.top_pairs(k)
            ]
        lines = []
        for side, name in zip(SIDES, ("first", "second"), strict=True):
            shares = self.token_shares(side)
            for i, value in self.top_tokens(side, k):
                lines.append(
                    f"{self.tokens(side)[i]!r} in the {name} text adds {value:+.3g} to the "
                    f"cosine ({shares[i]:.0%} of what its words add over a text of "
                    f"{self.baseline_name()})"
                )
        return lines


def _half(report: Callable[[int, int], None] | None, which: int):
    """``report`` for one of the two texts' integrated gradients: the second text's points
    count after the first's, out of both texts' most."""
    if report is None:
        return None

    def step(done: int, total: int) -> None:
        report(which * total + done, 2 * total)

    return step


def _side(side: str) -> str:
    if side not in SIDES:
        raise ValueError(f"Unknown side {side!r}; choose 'a' (first text) or 'b' (second).")
    return side


def _gives(value: float, score: float) -> str:
    if abs(score) < 1e-9:
        return f"adds {value:+.3f} to a cosine of about 0"
    share = value / score
    verb = "gives" if share >= 0 else "takes away"
    return f"{verb} {abs(share):.0%} of the similarity ({value:+.3f} of {score:.3f})"


def explain_similarity(
    model: Model,
    text_a: str,
    text_b: str,
    pooling: VectorChoice | str = "mean",
    layers: Layers | None = None,
    *,
    exclude_special: bool = False,
    report: Callable[[int, int], None] | None = None,
) -> Explanation:
    """Why ``text_a`` and ``text_b`` are close: their cosine and its parts.

    ``pooling`` (a :class:`explorer.VectorChoice`, or a pooling name with ``layers``) as in
    :func:`explorer.sentence_embeddings` (and
    ``exclude_special``, which leaves [CLS]/[SEP] out of mean and max: their rows and
    columns are then 0). One batched forward pass of the library gives the hidden states;
    the sentence vectors are pooled with :func:`explorer.pooling.pool_hidden` and combined by
    :meth:`explorer.VectorChoice.combine`, so ``score`` equals ``sentence_embeddings``'s
    cosine (to float rounding).

    Mean, max and mean_max: the exact decomposition of :mod:`explorer.explain._pairs`
    (every layer choice: the per-layer token parts are formed and then combined with the
    layer choice's own linear map, so the pairs still sum to the score). ``cls``: integrated
    gradients of each text's cosine to the other's (fixed) vector over its input word
    embeddings (:mod:`explorer.explain._gradients`); ``pairs`` is ``None``.

    Costs one forward pass of the two texts for the exact methods (two 128-token texts on
    the bundled model: 0.09 CPU seconds, ``python -m bench.explain``); ``cls`` adds 2 x (17
    to 257) forward and backward passes (about 12 s for the same texts on one busy core).
    ``report(done, total)``: progress of the integrated gradients (``cls`` only; interpolation
    points run of the most both texts can need), for a progress bar; it may raise to stop.
    ``ValueError`` for an empty text or an unknown pooling or layer choice.
    """
    choice = vector_choice(pooling, layers)
    choice.indices(model.num_layers)
    pooling, layers = choice.pooling, choice.layers
    hidden_a, hidden_b = model.hidden_states_batch([text_a, text_b])
    tokenizations = [model.tokenize(text) for text in (text_a, text_b)]
    specials = [np.asarray(t.special, dtype=bool) for t in tokenizations]
    masks = [~s if exclude_special else np.ones_like(s) for s in specials]
    u = _sentence_vector(hidden_a, masks[0], choice)
    v = _sentence_vector(hidden_b, masks[1], choice)
    score = float(u @ v / max(np.linalg.norm(u) * np.linalg.norm(v), 1e-300))
    common = dict(
        score=score,
        tokens_a=tuple(tokenizations[0].tokens),
        tokens_b=tuple(tokenizations[1].tokens),
        special_a=tuple(bool(s) for s in specials[0]),
        special_b=tuple(bool(s) for s in specials[1]),
        pooling=pooling,
        layers=layers,
    )
    if pooling != "cls":
        pairs = pair_matrix(
            contributions(hidden_a, pooling, layers, masks[0]),
            contributions(hidden_b, pooling, layers, masks[1]),
        )
        return Explanation(
            **common,
            pairs=pairs,
            token_scores_a=pairs.sum(axis=1),
            token_scores_b=pairs.sum(axis=0),
            method="exact",
            gap=abs(float(pairs.sum()) - score),
        )
    first = integrated_gradients(model, text_a, v, layers, report=_half(report, 0))
    second = integrated_gradients(model, text_b, u, layers, report=_half(report, 1))
    return Explanation(
        **common,
        pairs=None,
        token_scores_a=first.scores,
        token_scores_b=second.scores,
        method="integrated gradients",
        baseline_scores=(first.start, second.start),
        pad_token=model.tokenizer.pad_token,
        gap=max(first.gap, second.gap),
        steps=max(first.steps, second.steps),
    )


def _sentence_vector(hidden: np.ndarray, mask: np.ndarray, choice: VectorChoice):
    """The library's sentence vector of one text, ``(D,)`` float64: pooled per layer by
    :func:`explorer.pooling.pool_hidden`, combined by :meth:`explorer.VectorChoice.combine`."""
    with torch.inference_mode():
        pooled = pool_hidden(torch.from_numpy(hidden)[:, None], torch.from_numpy(mask)[None])
    arrays = {name: value.numpy() for name, value in pooled.items()}
    return choice.combine(arrays)[0].astype(np.float64)
