"""Cosines without rogue dimensions: post-processing sentence or token vectors, and how much
of a cosine the top few dimensions carry.

A handful of "rogue" dimensions with very large values dominate the cosines of BERT-family
vectors (Timkey and van Schijndel, 2021, "All Bark and No Bite"). The modes of
:func:`postprocess`:

* ``none``: the vectors as they are.
* ``center``: minus the mean of the reference vectors.
* ``standardize``: per-dimension z-scores over the reference (minus its mean, divided by its
  standard deviation, ``ddof=0``): every dimension gets the same spread, so none dominates
  (Timkey and van Schijndel 2021, their remedy).
* ``abtt``, all-but-the-top (Mu and Viswanath, 2018): minus the reference mean, then minus
  the projections on the reference's top ``D`` principal directions; ``D`` defaults to
  ``round(dim / 100)``, at least 1, the paper's rule of thumb (4 for the bundled 384-wide
  model, 8 for BERT-base).

The *reference* is the set whose statistics are used: a built-in corpus, or the vectors
themselves when none is given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.choice import validate_post
from explorer.context.baseline import BASELINE_PAIRS, sample_pairs

LABELS = {
    "none": "None (raw vectors)",
    "center": "Centre (subtract the mean)",
    "standardize": "Standardize (z-score every dimension)",
    "abtt": "All-but-the-top (remove top principal directions)",
}
"""Menu names of the modes."""

ROGUE_K = 3
"""Dimensions :func:`rogue_share` counts by default ("often just 1-3", Timkey and van
Schijndel 2021, abstract)."""


def abtt_components(dim: int) -> int:
    """Directions all-but-the-top removes by default: ``round(dim / 100)``, at least 1."""
    return max(1, round(dim / 100))


def _matrix(vectors, what: str) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{what} must be a non-empty (n, dim) array; got shape {array.shape}.")
    if not np.isfinite(array).all():
        raise ValueError(
            f"There are NaN or infinite values in {what.lower()}: post-processing and cosines "
            "need finite numbers."
        )
    return array


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def postprocess(
    vectors: np.ndarray,
    mode: str,
    reference: np.ndarray | None = None,
    *,
    components: int | None = None,
) -> np.ndarray:
    """``vectors`` ``(n, dim)`` post-processed with ``mode`` (of
    :data:`explorer.choice.POSTPROCESSING`) using the
    statistics of ``reference`` ``(m, dim)`` (default: ``vectors``). Returns ``(n, dim)``
    float32. ``components`` is all-but-the-top's ``D`` (:func:`abtt_components` by default).

    Computed in float64 on the vectors and reference divided by their largest ``|value|`` (no
    overflow or underflow near the float limits), in the vectors' units again at the end.

    ``ValueError`` for an unknown mode, shapes that do not match, a NaN or infinite value, a
    result beyond float32 (about 3.4e38), or an all-but-the-top reference with no more vectors
    than directions to remove (its centred vectors span at most ``m - 1`` directions; removing
    them all leaves nothing to compare).
    """
    validate_post(mode)
    vectors = _matrix(vectors, "The vectors")
    reference = vectors if reference is None else _matrix(reference, "The reference")
    if reference.shape[1] != vectors.shape[1]:
        raise ValueError(
            f"The reference vectors have {reference.shape[1]} dimensions, the vectors "
            f"{vectors.shape[1]}: take both from the same model, pooling and layers."
        )
    if mode == "none":
        return _float32(vectors, mode)
    scale = max(np.abs(vectors).max(), np.abs(reference).max()) or 1.0
    vectors, reference = vectors / scale, reference / scale
    mean = reference.mean(axis=0)
    with np.errstate(over="ignore"):
        if mode == "center":
            return _float32((vectors - mean) * scale, mode)
        if mode == "standardize":
            std = reference.std(axis=0)
            spread = std > 1e-12  # of the largest |value|; else the dimension is only centred
            z = (vectors - mean) / np.where(spread, std, 1.0)
            return _float32(np.where(spread, z, (vectors - mean) * scale), mode)
    count = abtt_components(vectors.shape[1]) if components is None else int(components)
    if not 1 <= count < len(reference):
        raise ValueError(
            f"All-but-the-top removes {count} directions, so it needs more than {count} "
            f"reference vectors (got {len(reference)}) and at least 1 direction: use a "
            "larger reference, such as a built-in corpus."
        )
    top = _top_directions(reference - mean, count)  # (D, dim), orthonormal rows
    centred = vectors - mean
    with np.errstate(over="ignore"):
        return _float32((centred - centred @ top.T @ top) * scale, mode)


def _float32(result: np.ndarray, mode: str) -> np.ndarray:
    """``result`` as float32; ``ValueError`` when a value does not fit (it would be inf)."""
    largest = np.abs(result).max()
    if not largest <= _FLOAT32_MAX:
        reach = f"{largest:.3g}" if np.isfinite(largest) else "past 1.8e308"
        raise ValueError(
            f"The vectors {'as they are' if mode == 'none' else f'after {mode}'} reach {reach}, "
            "beyond what float32 holds (about 3.4e38): divide them by a large number first "
            "(their cosines stay the same)."
        )
    return result.astype(np.float32)


def _top_directions(centred: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` principal directions of ``centred`` ``(m, dim)``: ``(count, dim)``,
    orthonormal rows. With more vectors than dimensions, the top eigenvectors of the
    ``(dim, dim)`` scatter matrix (the same directions as the SVD's: 0.2 s instead of 2.2 s
    for 4,000 x 768, a BERT-base layer of Word in context's tokens); else the SVD."""
    m, dim = centred.shape
    if m <= dim:
        return np.linalg.svd(centred, full_matrices=False)[2][:count]
    from scipy.linalg import eigh

    _, vectors = eigh(centred.T @ centred, subset_by_index=[dim - count, dim - 1])
    return vectors[:, ::-1].T


@dataclass(frozen=True)
class RogueShare:
    """How much of the cosines of a set of vectors a few dimensions carry.

    ``dimensions``: the dimensions counted (the largest mean contributions unless given).
    ``contributions`` ``(dim,)``: each dimension's mean contribution ``u_d v_d / (|u| |v|)``
    to the cosine of a pair (Timkey and van Schijndel's ``CC(f_d)``); they sum to
    ``mean_cosine``. ``share``: over pairs, the mean of the ``dimensions``' part of the
    pair's absolute contributions, ``sum_top |c_d| / sum_all |c_d|`` (in [0, 1]; a sign-free
    share stays defined when the cosines are near 0, as after standardizing).
    ``share_of_mean``: Timkey and van Schijndel's signed share of the mean cosine,
    ``sum_top CC / mean_cosine`` (NaN when the mean cosine is within 1e-6 of 0; it swings
    wildly near 0). ``pairs``: how many pairs were averaged.
    """

    dimensions: tuple[int, ...]
    contributions: np.ndarray
    mean_cosine: float
    share: float
    share_of_mean: float
    pairs: int


def rogue_share(
    vectors: np.ndarray,
    k: int = ROGUE_K,
    dimensions: tuple[int, ...] | None = None,
    *,
    max_pairs: int = BASELINE_PAIRS,
    seed: int = 0,
) -> RogueShare:
    """The share of the cosines of ``vectors`` ``(n, dim)`` that ``k`` dimensions carry.

    The dimensions are those with the largest absolute mean contribution to the cosine,
    unless ``dimensions`` names them (pass the raw vectors' dimensions to see what they
    carry after post-processing). Pairs of distinct vectors: all of them, or ``max_pairs``
    drawn with ``seed`` (:func:`explorer.context.baseline.sample_pairs`).
    """
    vectors = _matrix(vectors, "The vectors")
    if len(vectors) < 2:
        raise ValueError("A share of cosines needs at least 2 vectors.")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.maximum(norms, 1e-12)
    pairs = sample_pairs(len(unit), max_pairs, seed)
    parts = unit[pairs[:, 0]] * unit[pairs[:, 1]]  # (pairs, dim): u_d v_d / (|u||v|)
    contributions = parts.mean(axis=0)
    if dimensions is None:
        dimensions = tuple(int(d) for d in np.argsort(-np.abs(contributions))[: max(int(k), 1)])
    magnitude = np.abs(parts)
    total = magnitude.sum(axis=1)
    kept = magnitude[:, list(dimensions)].sum(axis=1)
    share = float(np.mean(np.where(total > 0, kept / np.maximum(total, 1e-300), 0.0)))
    mean_cosine = float(contributions.sum())
    top = float(contributions[list(dimensions)].sum())
    share_of_mean = top / mean_cosine if abs(mean_cosine) > 1e-6 else float("nan")
    return RogueShare(
        tuple(dimensions), contributions, mean_cosine, share, share_of_mean, len(pairs)
    )


def rogue_report(
    vectors: np.ndarray,
    mode: str,
    reference: np.ndarray | None = None,
    k: int = ROGUE_K,
) -> tuple[RogueShare, RogueShare, str]:
    """What the top ``k`` rogue dimensions of ``vectors`` carry before and after ``mode``:
    ``(before, after, sentence)``, the same dimensions measured both times, and a sentence a
    page can show ("The top 3 dimensions (223, 338, 363) carried 25% of the cosines' terms
    (mean cosine 0.25); after standardize, 1% (mean cosine -0.00).": the bundled model's
    last-layer token vectors)."""
    before = rogue_share(vectors, k)
    after = rogue_share(postprocess(vectors, mode, reference), k, before.dimensions)
    return before, after, rogue_sentence(before, after, mode)


def rogue_sentence(before: RogueShare, after: RogueShare, mode: str, lead: str = "") -> str:
    """The sentence of :func:`rogue_report` for shares measured ``before`` and ``after``
    ``mode`` (the same dimensions both times); for ``none`` the first half only. ``lead``
    (what was measured, say) opens it, followed by a colon."""
    listed = ", ".join(str(d) for d in before.dimensions)
    what = LABELS[mode].split(" (")[0].lower()
    sentence = (
        f"the top {len(before.dimensions)} dimensions ({listed}) carried {before.share:.0%} of "
        f"the cosines' terms (mean cosine {_two(before.mean_cosine)})"
        + (
            "."
            if mode == "none"
            else f"; after {what}, {after.share:.0%} (mean cosine {_two(after.mean_cosine)})."
        )
    )
    return f"{lead}: {sentence}" if lead else sentence[0].upper() + sentence[1:]


def _two(value: float) -> str:
    """``value`` with two decimals, never ``-0.00``."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def postprocess_layers(
    per_layer: np.ndarray, mode: str, reference: np.ndarray | None = None
) -> np.ndarray:
    """:func:`postprocess` at every layer: ``per_layer`` ``(L + 1, n, dim)`` with the
    statistics of the same layer of ``reference`` ``(L + 1, m, dim)`` (default: the vectors
    themselves). Returns ``(L + 1, n, dim)`` float32. A layer choice that combines layers
    then combines the post-processed layers; for ``center`` that equals centring the
    combined vectors by the combined means (every layer choice is linear)."""
    per_layer = np.asarray(per_layer)
    if per_layer.ndim != 3:
        raise ValueError(f"Expected vectors of shape (layers + 1, n, dim); got {per_layer.shape}.")
    if reference is not None and np.shape(reference)[0] != per_layer.shape[0]:
        raise ValueError(
            f"The reference has {np.shape(reference)[0]} layers, the vectors "
            f"{per_layer.shape[0]}: take both from the same model."
        )
    return np.stack(
        [
            postprocess(layer, mode, None if reference is None else reference[index])
            for index, layer in enumerate(per_layer)
        ]
    )
