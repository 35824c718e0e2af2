"""Two models compared: the cross-model CKA heatmap, the tokenizers' counts as a table, and the
sentences that say what to notice in them (computed from the numbers shown)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

ANNOTATE_CELLS = 13 * 13
"""Heatmaps with at most this many cells get their values written in."""

SAME_SHARE = 0.01
"""Two shares of split words closer than this (one percentage point) count as the same."""


AXIS_CHAR_PX = 7.5
"""About the width of one character of an axis title at the page's normal font, in pixels."""


def cross_cka_heatmap(
    matrix: np.ndarray, label_a: str, label_b: str, scale: float = 1.0
) -> go.Figure:
    """CKA of every layer of model A (rows, ``label_a``) with every layer of model B (columns)
    ``(La + 1, Lb + 1)`` as a heatmap on a 0-to-1 scale, B's best-matching layer for each
    layer of A ringed. Layer 0 is the embedding output. The rows' title names model A on a
    line of its own, and the figure is tall enough for its longer line at the page's font
    (``scale``: how much larger presentation mode draws text), so it never runs into the
    chart's title."""
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2 or matrix.size == 0:
        raise ValueError(
            f"Expected a (layers of A + 1, layers of B + 1) matrix; got {matrix.shape}."
        )
    rows, cols = [str(i) for i in range(matrix.shape[0])], [str(j) for j in range(matrix.shape[1])]
    annotate = matrix.size <= ANNOTATE_CELLS
    best = np.argmax(matrix, axis=1)
    figure = go.Figure(
        go.Heatmap(
            z=matrix,
            x=cols,
            y=rows,
            zmin=0,
            zmax=1,
            colorscale="Viridis",
            colorbar={"title": "CKA"},
            text=np.vectorize(lambda v: f"{v:.2f}")(matrix) if annotate else None,
            texttemplate="%{text}" if annotate else None,
            hovertemplate="A's layer %{y} vs B's layer %{x}: CKA %{z:.3f}<extra></extra>",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=[cols[j] for j in best],
            y=rows,
            mode="markers",
            marker={"symbol": "square-open", "size": 30, "color": "white", "line": {"width": 3}},
            name="white box: B's best-matching layer for each layer of A",
            showlegend=True,
            hovertemplate="A's layer %{y}: closest B layer %{x}<extra></extra>",
        )
    )
    figure.update_xaxes(title_text=f"layer of model B: {label_b}", type="category")
    y_title = ("layer of model A:", label_a)
    figure.update_yaxes(title_text="<br>".join(y_title), type="category", autorange="reversed")
    fits_title = 160 + AXIS_CHAR_PX * scale * max(len(line) for line in y_title)
    figure.update_layout(
        title="How alike each layer of A is to each layer of B (linear CKA over shared words)",
        height=round(max(380, 34 * len(rows) + 160, fits_title)),
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1},
    )
    return figure


FLAT_ROWS = 0.05
"""Mean spread (best minus worst CKA) of A's rows below which B's layers are called about
equally alike to each layer of A: which of them matches best then says little."""


def cross_cka_notice(matrix: np.ndarray, label_a: str, label_b: str) -> str:
    """What to notice in ``matrix`` (A's layers x B's layers): where B's best match for A's
    layers lies on B's depth (unless B's layers are about equally alike to each of A's, rows
    spread by less than :data:`FLAT_ROWS` on average: then it says so), A's last layer's best
    match, and the highest value."""
    matrix = np.asarray(matrix, dtype=float)
    best = np.argmax(matrix, axis=1)
    last_a, last_b = matrix.shape[0] - 1, matrix.shape[1] - 1
    i, j = np.unravel_index(int(np.argmax(matrix)), matrix.shape)
    monotone = bool(np.all(np.diff(best) >= 0))
    depth = best[-1] / last_b if last_b else 1.0
    spread = float(np.mean(matrix.max(axis=1) - matrix.min(axis=1))) if last_b else 1.0
    if spread < FLAT_ROWS:
        order = (
            f"Each layer of A is about as alike to every layer of B (its best and worst match "
            f"differ by {spread:.2f} on average): B's layers look the same from A, so which "
            "of them matches best says little"
        )
    elif monotone and best[-1] > best[0]:
        order = (
            f"The higher A's layer, the higher its best match in B (B's layer {best[0]} for "
            f"A's layer 0, {best[-1]} for A's last): the two models' layers line up in the "
            "same order"
        )
    else:
        order = "B's best-matching layers do not follow A's order"
    return (
        f"{order}. A's last layer (layer {last_a}) is most like B's layer {best[-1]} of "
        f"{last_b}, {depth:.0%} of the way up B (CKA {matrix[-1, best[-1]]:.2f}); the most "
        f"alike pair is A's layer {i} and B's layer {j} (CKA {matrix[i, j]:.2f}), the least "
        f"alike {matrix.min():.2f}."
    )


def token_stats_table(stats: Sequence, labels: Sequence[str]) -> pd.DataFrame:
    """One row per tokenizer: words, tokens, tokens per word, % of words split, unknown
    tokens (``stats``: :class:`explorer.compare.TokenStats`, ``labels`` their names)."""
    return pd.DataFrame(
        {
            "model": list(labels),
            "words": [s.words for s in stats],
            "tokens": [s.tokens for s in stats],
            "tokens per word": [round(s.fertility, 3) for s in stats],
            "% of words split": [round(100 * s.split_share, 1) for s in stats],
            "unknown tokens": [s.unknown for s in stats],
        }
    )


def token_stats_notice(
    stats_a, stats_b, label_a: str, label_b: str, same_tokenizer: bool = False
) -> str:
    """What to notice in two tokenizers' counts over the same texts: who splits more words,
    with both shares, and unknown tokens when there are any (``same_tokenizer``: model B
    uses model A's, as its random weights do)."""
    share_a, share_b = stats_a.split_share, stats_b.split_share
    if same_tokenizer:
        sentence = (
            f"Model B has model A's tokenizer: both split {share_a:.0%} of the corpus's words, and "
            "every difference further down comes from the weights alone."
        )
    elif stats_a == stats_b:
        sentence = (
            f"The two tokenizers cut the corpus into the same {stats_a.words:,} words and "
            f"{stats_a.tokens:,} tokens, and both split {share_a:.0%} of the words."
        )
    elif abs(share_a - share_b) < SAME_SHARE:
        sentence = (
            f"Both tokenizers split about as many of the corpus's words: model A ({label_a}) "
            f"{share_a:.0%}, model B ({label_b}) {share_b:.0%}."
        )
    else:
        more, less = ("B", "A") if share_b > share_a else ("A", "B")
        shares = {"A": (label_a, share_a), "B": (label_b, share_b)}
        sentence = (
            f"Model {more} ({shares[more][0]}) splits {shares[more][1]:.0%} of the corpus's words, "
            f"model {less} ({shares[less][0]}) {shares[less][1]:.0%}."
        )
    sentence += (
        f" Tokens per word: model A {stats_a.fertility:.2f}, model B {stats_b.fertility:.2f}."
    )
    unknown = [(n, s.unknown) for n, s in (("A", stats_a), ("B", stats_b)) if s.unknown]
    if unknown:
        sentence += (
            " Unknown tokens (the model reads nothing of the word): "
            + ", ".join(f"model {n} {count:,}" for n, count in unknown)
            + "."
        )
    return sentence
