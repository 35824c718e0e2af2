"""Statistics of hidden states layer by layer: value distributions, norms, outlier dimensions.

Everything takes the hidden states of one input, ``hidden`` of shape
``(num_layers + 1, num_tokens, hidden_size)`` (index 0 = embedding output, as returned by
:meth:`explorer.model.Model.hidden_states`), and returns NumPy arrays or pandas tables.

"Outlier" or "rogue" dimensions are the few coordinates whose values are many standard
deviations larger than the rest of the layer. In BERT-family models they dominate dot
products and cosine similarities (Timkey & van Schijndel, 2021, "All Bark and No Bite:
Rogue Dimensions in Transformer Language Models Obscure Representational Quality";
Kovaleva et al., 2021, "BERT Busters").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

STATISTICS = ("mean", "std", "norm", "max_abs", "kurtosis")
"""Columns of :func:`layer_statistics` besides ``layer`` and ``tokens``."""

STATISTIC_LABELS = {
    "mean": "mean",
    "std": "std",
    "norm": "mean norm",
    "max_abs": "max |value|",
    "kurtosis": "kurtosis",
}
"""Human-readable names of :data:`STATISTICS`, for tables and axis titles."""

DEFAULT_THRESHOLD = 6.0
"""Outlier threshold in standard deviations of the layer (``|value| > 6 std``)."""


def _check_hidden(hidden: np.ndarray) -> np.ndarray:
    hidden = np.asarray(hidden)
    if hidden.ndim != 3:
        raise ValueError(
            f"Expected hidden states of shape (layers + 1, tokens, hidden); got {hidden.shape}."
        )
    if 0 in hidden.shape:
        raise ValueError(f"Hidden states are empty: shape {hidden.shape}.")
    return hidden.astype(np.float64, copy=False)


def token_mask(
    num_tokens: int, include_special: bool = True, special: Sequence[bool] | None = None
) -> np.ndarray:
    """Boolean ``(num_tokens,)`` mask of the tokens that statistics use.

    With ``include_special=False`` the special tokens are dropped: those flagged in
    ``special`` (e.g. :attr:`Tokenization.special`), or, when ``special`` is ``None``, the
    first and the last token (``[CLS] ... [SEP]`` of a single encoded text). Raises
    ``ValueError`` when no token is left or ``special`` has the wrong length.
    """
    mask = np.ones(num_tokens, dtype=bool)
    if include_special:
        return mask
    if special is None:
        mask[[0, -1]] = False
    else:
        if len(special) != num_tokens:
            raise ValueError(f"special has {len(special)} flags for {num_tokens} tokens.")
        mask = ~np.asarray(special, dtype=bool)
    if not mask.any():
        raise ValueError("Only special tokens in this input: include them to see statistics.")
    return mask


def kurtosis(values: np.ndarray, axis: int | None = None) -> np.ndarray | float:
    """Fisher (excess) kurtosis: ``m4 / m2**2 - 3`` with central moments ``m_k``.

    0 for a normal distribution, positive for heavy tails (a few huge values), negative for
    light tails (uniform: -1.2). The biased moment estimator, as ``scipy.stats.kurtosis``
    with its defaults (``fisher=True, bias=True``). A constant input gives 0.
    """
    values = np.asarray(values, dtype=np.float64)
    centred = values - values.mean(axis=axis, keepdims=True)
    m2 = (centred**2).mean(axis=axis)
    m4 = (centred**4).mean(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = np.where(m2 > 0, m4 / np.where(m2 > 0, m2, 1.0) ** 2 - 3.0, 0.0)
    return float(result) if np.ndim(result) == 0 else result


def vector_statistics(vector: np.ndarray) -> dict[str, float]:
    """Mean, std (population, ``ddof=0``), L2 norm, max |value| and kurtosis of one vector.

    ``vector`` is ``(hidden,)``, e.g. ``hidden[layer, token]``.
    """
    vector = np.asarray(vector, dtype=np.float64)
    if vector.ndim != 1 or vector.size == 0:
        raise ValueError(f"Expected one non-empty vector; got shape {vector.shape}.")
    return {
        "mean": float(vector.mean()),
        "std": float(vector.std()),
        "norm": float(np.linalg.norm(vector)),
        "max_abs": float(np.abs(vector).max()),
        "kurtosis": float(kurtosis(vector)),
    }


def layer_statistics(
    hidden: np.ndarray, include_special: bool = True, special: Sequence[bool] | None = None
) -> pd.DataFrame:
    """One row per layer (0 = embeddings .. L) of statistics over the chosen tokens.

    ``hidden`` is ``(L + 1, T, H)``. Columns: ``layer``; ``tokens`` (how many token vectors
    were used); ``mean``, ``std`` (population std, ``ddof=0``), ``max_abs`` (max |value|)
    and ``kurtosis`` (Fisher, see :func:`kurtosis`) over all ``tokens x H`` values of the
    layer; ``norm``, the mean L2 norm of the token vectors. ``include_special`` and
    ``special`` choose the tokens as in :func:`token_mask`.
    """
    hidden = _check_hidden(hidden)
    mask = token_mask(hidden.shape[1], include_special, special)
    used = hidden[:, mask]  # (L + 1, T', H)
    flat = used.reshape(used.shape[0], -1)
    return pd.DataFrame(
        {
            "layer": np.arange(hidden.shape[0]),
            "tokens": np.full(hidden.shape[0], int(mask.sum())),
            "mean": flat.mean(axis=1),
            "std": flat.std(axis=1),
            "norm": np.linalg.norm(used, axis=2).mean(axis=1),
            "max_abs": np.abs(flat).max(axis=1),
            "kurtosis": kurtosis(flat, axis=1),
        }
    )


def token_norms(hidden: np.ndarray) -> np.ndarray:
    """L2 norm of every token vector at every layer: ``(T, L + 1)`` (tokens down, layers across)."""
    hidden = _check_hidden(hidden)
    return np.linalg.norm(hidden, axis=2).T


def outlier_dimensions(
    hidden: np.ndarray,
    threshold: float = DEFAULT_THRESHOLD,
    include_special: bool = True,
    special: Sequence[bool] | None = None,
    tokens: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Dimensions whose values exceed ``threshold`` standard deviations of their layer.

    For every layer ``l`` of ``hidden`` ``(L + 1, T, H)``, ``sigma_l`` is the std of all
    values of the chosen tokens at that layer (as in :func:`layer_statistics`); a value
    *fires* when ``|value| > threshold * sigma_l``. One row per (layer, dimension) that fires
    for at least one token, sorted by layer then dimension, with columns ``layer``,
    ``dimension``, ``count`` (tokens where it fires), ``max_abs`` (largest |value| of that
    dimension over the chosen tokens), ``sigmas`` (``max_abs / sigma_l``) and ``positions``
    (tuple of token positions where it fires). With ``tokens`` (one string per token) a
    ``tokens`` column lists them as ``"5: bank"``. Pure Gaussian noise almost never fires at
    the default 6 std (probability about 2e-9 per value).
    """
    hidden = _check_hidden(hidden)
    if not np.isfinite(threshold) or threshold <= 0:
        raise ValueError(f"The threshold must be a positive number of stds; got {threshold}.")
    if tokens is not None and len(tokens) != hidden.shape[1]:
        raise ValueError(f"Got {len(tokens)} token strings for {hidden.shape[1]} tokens.")
    mask = token_mask(hidden.shape[1], include_special, special)
    positions = np.flatnonzero(mask)
    used = hidden[:, mask]  # (L + 1, T', H)
    sigma = used.reshape(used.shape[0], -1).std(axis=1)  # (L + 1,)
    magnitude = np.abs(used)
    fires = magnitude > threshold * sigma[:, None, None]
    labels = token_labels(tokens) if tokens is not None else None
    rows = []
    for layer, dimension in zip(*np.nonzero(fires.any(axis=1)), strict=True):
        where = positions[fires[layer, :, dimension]]
        largest = float(magnitude[layer, :, dimension].max())
        row = {
            "layer": int(layer),
            "dimension": int(dimension),
            "count": len(where),
            "max_abs": largest,
            "sigmas": largest / sigma[layer] if sigma[layer] > 0 else float("inf"),
            "positions": tuple(int(p) for p in where),
        }
        if labels is not None:
            row["tokens"] = ", ".join(labels[p] for p in where)
        rows.append(row)
    columns = ["layer", "dimension", "count", "max_abs", "sigmas", "positions"]
    if tokens is not None:
        columns.append("tokens")
    return pd.DataFrame(rows, columns=columns)


def dimension_peaks(
    hidden: np.ndarray,
    layer: int,
    include_special: bool = True,
    special: Sequence[bool] | None = None,
) -> pd.DataFrame:
    """Largest |value| of every dimension at one layer, over the chosen tokens.

    ``hidden`` is ``(L + 1, T, H)``. One row per dimension (``H`` rows): ``dimension``,
    ``max_abs``, ``sigmas`` (``max_abs`` in stds of the layer, the quantity
    :func:`outlier_dimensions` compares to its threshold) and ``position`` (the token where
    the peak is). Tokens are chosen as in :func:`token_mask`.
    """
    hidden = _check_hidden(hidden)
    if not 0 <= layer < hidden.shape[0]:
        raise ValueError(f"Layer {layer} is out of range: choose 0 to {hidden.shape[0] - 1}.")
    mask = token_mask(hidden.shape[1], include_special, special)
    used = np.abs(hidden[layer, mask])  # (T', H)
    sigma = hidden[layer, mask].std()
    peak = used.max(axis=0)
    return pd.DataFrame(
        {
            "dimension": np.arange(hidden.shape[2]),
            "max_abs": peak,
            "sigmas": peak / sigma if sigma > 0 else np.full_like(peak, np.inf),
            "position": np.flatnonzero(mask)[used.argmax(axis=0)],
        }
    )


def outlier_summary(outliers: pd.DataFrame, num_layers: int, threshold: float) -> str:
    """One sentence (Markdown) saying which dimensions :func:`outlier_dimensions` found.

    ``num_layers`` is ``L`` (the table covers layers 0..L).
    """
    if outliers.empty:
        return (
            f"No dimension exceeds {threshold:g} std in any layer for this text: "
            "lower the threshold to see the largest ones."
        )
    per_dimension = (
        outliers.groupby("dimension")
        .agg(layers=("layer", "nunique"), tokens=("count", "max"), peak=("max_abs", "max"))
        .sort_values(["layers", "peak"], ascending=False)
    )
    parts = [
        f"**{row.Index}** ({row.layers} of {num_layers + 1} layers, up to {row.tokens} "
        f"token{'s' if row.tokens != 1 else ''}, |value| up to {row.peak:.1f})"
        for row in per_dimension.itertuples()
    ]
    found = len(per_dimension)
    return (
        f"At {threshold:g} std, {found} dimension{'s' if found != 1 else ''} "
        f"stand{'s' if found == 1 else ''} out: " + "; ".join(parts) + "."
    )


def token_labels(tokens: Sequence[str]) -> list[str]:
    """``"position: token"`` labels, e.g. ``["0: [CLS]", "1: after", ...]``."""
    return [f"{i}: {token}" for i, token in enumerate(tokens)]


def histogram(
    values: np.ndarray, bins: int = 50, value_range: tuple[float, float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Counts and edges of a histogram of ``values`` (any shape, flattened).

    ``value_range`` fixes the outer edges (values outside are dropped) so histograms of
    several vectors share the same bins. Returns ``(counts (bins,), edges (bins + 1,))``.
    """
    if bins < 1:
        raise ValueError(f"bins must be at least 1; got {bins}.")
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size == 0:
        raise ValueError("No values to draw a histogram of.")
    if value_range is None:
        value_range = shared_range(values)
    counts, edges = np.histogram(values, bins=bins, range=value_range)
    return counts, edges


def shared_range(values: np.ndarray) -> tuple[float, float]:
    """``(min, max)`` of ``values``, widened a little when all values are equal."""
    values = np.asarray(values, dtype=np.float64)
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    return low, high


# -- the one-screen summary -----------------------------------------------------------------

FUNCTION_WORDS = frozenset(
    "a an the of to in on at by for from with and or but as is was were be been are it its "
    "this that these those he she they we you i his her their our my your after before "
    "while when then than so not no".split()
)
"""Words a default token should not be: they carry little of the sentence's meaning."""


def default_token(
    tokens: Sequence[str], special: Sequence[bool] | None = None, words: Sequence[str] = ()
) -> int:
    """The position to show first: the first token that is one of ``words`` (e.g. the
    ambiguous words of :data:`explorer.data.corpora.SENSE_WORDS`), else the first content word
    (letters, not special, not a ``##`` continuation, not in :data:`FUNCTION_WORDS`), else
    the first non-special token, else 0."""
    special = [False] * len(tokens) if special is None else list(special)
    if len(special) != len(tokens):
        raise ValueError(f"special has {len(special)} flags for {len(tokens)} tokens.")
    wanted = {w.lower() for w in words}
    candidates = [i for i, s in enumerate(special) if not s]
    for test in (
        lambda t: t.lower() in wanted,
        lambda t: t.isalpha() and t.lower() not in FUNCTION_WORDS,
        lambda t: True,
    ):
        found = next((i for i in candidates if test(tokens[i])), None)
        if found is not None:
            return found
    return 0


def layer_summary(
    hidden: np.ndarray,
    token: int,
    include_special: bool = True,
    special: Sequence[bool] | None = None,
) -> pd.DataFrame:
    """One row per layer: what a reader needs from the page at a glance.

    ``hidden`` ``(L + 1, T, H)``. Columns: ``layer``; ``mean norm`` (mean L2 norm of the
    chosen tokens' vectors, tokens as in :func:`token_mask`); ``top dimension`` and
    ``top sigmas`` (the dimension with the largest |value| over the chosen tokens, and that
    value in stds of the layer); ``token norm`` (the norm of ``token``'s vector) and
    ``change`` (cosine of ``token``'s vector with its vector at the previous layer; NaN at
    layer 0).
    """
    hidden = _check_hidden(hidden)
    if not 0 <= token < hidden.shape[1]:
        raise ValueError(f"Token {token} is out of range: choose 0 to {hidden.shape[1] - 1}.")
    mask = token_mask(hidden.shape[1], include_special, special)
    used = hidden[:, mask]
    sigma = used.reshape(used.shape[0], -1).std(axis=1)
    peaks = np.abs(used).max(axis=1)  # (L + 1, H)
    top = peaks.argmax(axis=1)
    vectors = hidden[:, token]
    norms = np.linalg.norm(vectors, axis=1)
    change = np.full(hidden.shape[0], np.nan)
    change[1:] = np.einsum("lh,lh->l", vectors[1:], vectors[:-1]) / np.maximum(
        norms[1:] * norms[:-1], 1e-12
    )
    return pd.DataFrame(
        {
            "layer": np.arange(hidden.shape[0]),
            "mean norm": np.linalg.norm(used, axis=2).mean(axis=1),
            "top dimension": top,
            "top sigmas": peaks[np.arange(len(top)), top] / np.maximum(sigma, 1e-12),
            "token norm": norms,
            "change": change,
        }
    )
