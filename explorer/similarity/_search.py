"""Sentence similarity under several poolings, how much the poolings agree, and search.

* :func:`similarity_matrices`: the cosine-similarity matrix of a list of sentences under
  each pooling (same layers);
* :func:`spearman_agreement`: Spearman's rank correlation between two poolings' pairwise
  similarities (the ``n (n - 1) / 2`` pairs above the diagonal): 1.0 means they rank every
  pair of sentences the same way, even if the similarity values differ;
* :func:`top_k`: the corpus texts most similar to a query vector.

Plain Python and NumPy; vectors come from :class:`explorer.CorpusEmbeddings`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from explorer.data.uploads import texts_from_lines
from explorer.embeddings import CorpusEmbeddings
from explorer.layers import Layers
from explorer.pooling import POOLINGS, validate_pooling
from explorer.similarity._cosine import cosine_similarity
from explorer.similarity._nearest import neighbors

MAX_SENTENCES = 60
"""Most sentences the side-by-side heatmaps take (beyond that the cells are unreadable)."""

MAX_K = 50


def sentence_lines(text: str | None) -> list[str]:
    """Non-blank, stripped lines of ``text``; ``ValueError`` if there are none.

    :func:`explorer.data.uploads.texts_from_lines` without a limit: :func:`similarity_matrices`
    caps the sentences with its own message.
    """
    return texts_from_lines(text, None)


def similarity_matrices(
    corpus: CorpusEmbeddings,
    poolings: Sequence[str] = POOLINGS,
    layers: Layers = "last",
) -> dict[str, np.ndarray]:
    """Cosine similarity of every pair of texts under each pooling: ``{pooling: (n, n)}``.

    Raises ``ValueError`` for no poolings, an unknown pooling or layer choice, or more
    than :data:`MAX_SENTENCES` texts.
    """
    if not poolings:
        raise ValueError(f"Choose at least one pooling from {POOLINGS}.")
    if len(corpus) > MAX_SENTENCES:
        raise ValueError(
            f"{len(corpus)} sentences is too many to compare side by side; the limit is "
            f"{MAX_SENTENCES}. Use the search below for a larger corpus."
        )
    for pooling in poolings:
        validate_pooling(pooling)
    return {
        pooling: np.asarray(cosine_similarity(corpus.sentence(pooling, layers)), np.float64)
        for pooling in poolings
    }


def pair_values(matrix: np.ndarray) -> np.ndarray:
    """The ``n (n - 1) / 2`` entries above the diagonal of a square matrix, row by row."""
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"Expected a square matrix, got shape {matrix.shape}.")
    return matrix[np.triu_indices(matrix.shape[0], k=1)]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman correlation of two similarity matrices' pairs (ties get average ranks).

    Raises ``ValueError`` with fewer than 3 sentences (under 3 pairs, a rank correlation
    says nothing). A pooling whose pairs are all equal gives ``nan``.
    """
    x, y = pair_values(a), pair_values(b)
    if x.shape != y.shape:
        raise ValueError(f"Matrices of different sizes: {np.shape(a)} and {np.shape(b)}.")
    if len(x) < 3:
        raise ValueError("Rank agreement needs at least 3 sentences (3 pairs).")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(spearmanr(x, y).statistic)


def spearman_agreement(matrices: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Spearman correlation between every two poolings' pairwise similarities.

    ``matrices`` maps a name to an ``(n, n)`` similarity matrix; returns a symmetric
    ``k x k`` DataFrame indexed and labelled by the names, 1.0 on the diagonal.
    """
    names = list(matrices)
    if not names:
        raise ValueError("No similarity matrices to compare.")
    table = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            table.loc[a, b] = table.loc[b, a] = spearman(matrices[a], matrices[b])
    return table


def top_k(
    query: np.ndarray,
    vectors: np.ndarray,
    texts: Sequence[str],
    k: int = 5,
) -> pd.DataFrame:
    """The ``k`` rows of ``vectors (n, d)`` most cosine-similar to ``query (d,)``, found by
    :func:`explorer.similarity.neighbors` (the one k-NN of the explorer).

    Returns columns ``rank`` (1 = best), ``score`` (cosine), ``text`` and ``index`` (row in
    the corpus), best first; ties keep corpus order. ``k`` is capped at ``n``.
    """
    vectors = np.asarray(vectors)
    query = np.asarray(query).reshape(-1)
    if vectors.ndim != 2 or len(vectors) != len(texts):
        raise ValueError(f"Expected ({len(texts)}, d) corpus vectors, got {vectors.shape}.")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= MAX_K:
        raise ValueError(f"k must be a whole number from 1 to {MAX_K}, not {k!r}.")
    found = neighbors(vectors, query, min(int(k), len(vectors)))
    return pd.DataFrame(
        {
            "rank": np.arange(1, len(found.indices) + 1),
            "score": found.scores.astype(np.float64),
            "text": [texts[i] for i in found.indices],
            "index": found.indices,
        }
    )


def corpus_texts(frame: pd.DataFrame) -> list[str]:
    """The non-empty texts of a table's ``text`` column (or its only column).

    Raises ``ValueError`` when there is no such column or no text.
    """
    columns = {str(c).strip().lower(): c for c in frame.columns}
    if "text" in columns:
        column = columns["text"]
    elif len(frame.columns) == 1:
        column = frame.columns[0]
    else:
        found = ", ".join(repr(str(c)) for c in frame.columns) or "none"
        raise ValueError(f"The table has no 'text' column (found: {found}).")
    texts = [t.strip() for t in frame[column].fillna("").astype(str) if t.strip()]
    if not texts:
        raise ValueError("The corpus has no texts.")
    return texts


def similarity_notice(matrices: dict[str, np.ndarray], labels: dict[str, str] | None = None) -> str:
    """The page's opening sentence from the similarity matrices it shows (plain text).

    ``matrices[pooling]`` ``(n, n)``. For the first pooling: the most and the least similar
    pair (sentences numbered from 1); for every pooling, the range of its off-diagonal values,
    so a pooling that makes every pair look alike stands out.
    """
    if not matrices:
        raise ValueError("No similarity matrices: choose at least one pooling.")
    labels = labels or {}
    first = next(iter(matrices))
    matrix = np.asarray(matrices[first], dtype=np.float64)
    n = matrix.shape[0]
    if n < 2:
        raise ValueError("Need at least two sentences to compare pairs.")
    rows, cols = np.triu_indices(n, k=1)
    values = matrix[rows, cols]
    high, low = int(values.argmax()), int(values.argmin())
    text = (
        f"Under {labels.get(first, first)}, sentences {rows[high] + 1} and {cols[high] + 1} "
        f"are the most similar ({values[high]:.2f}) and {rows[low] + 1} and {cols[low] + 1} "
        f"the least ({values[low]:.2f})."
    )
    spans = []
    for name, other in matrices.items():
        pairs = np.asarray(other, dtype=np.float64)[rows, cols]
        spans.append((pairs.max() - pairs.min(), name, pairs.min(), pairs.max()))
    if len(spans) > 1:
        narrow = min(spans)
        name = str(labels.get(narrow[1], narrow[1]))
        text += (
            f" {name[:1].upper() + name[1:]} squeezes every pair into "
            f"{narrow[2]:.2f}–{narrow[3]:.2f}, the narrowest range: it tells the pairs apart "
            "least."
        )
    return text
