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

from explorer._shown import all_tie, extremes, join, shown
from explorer.choice import VectorChoice, vector_choice
from explorer.embeddings import CorpusEmbeddings
from explorer.layers import Layers, layers_label
from explorer.pooling import POOLINGS
from explorer.similarity._cosine import cosine_similarity
from explorer.similarity._nearest import neighbors

MAX_SENTENCES = 60
"""Most sentences the side-by-side heatmaps take (beyond that the cells are unreadable)."""

MAX_K = 50


def similarity_matrices(
    corpus: CorpusEmbeddings,
    poolings: Sequence[VectorChoice | str] = POOLINGS,
    layers: Layers | None = None,
) -> dict[str, np.ndarray]:
    """Cosine similarity of every pair of texts under each choice of vectors: ``{pooling:
    (n, n)}``. ``poolings`` are :class:`explorer.VectorChoice` values, or pooling names that
    share ``layers``.

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
    choices = [vector_choice(pooling, layers) for pooling in poolings]
    return {
        choice.pooling: np.asarray(cosine_similarity(corpus.sentence(choice)), np.float64)
        for choice in choices
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
    says nothing). A pooling whose pairs all show the same value at the heatmaps' two
    decimals gives ``nan``: it cannot rank the pairs, and a ρ from differences smaller than
    what is shown (0.999 against 1.000) would be a ranking from noise.
    """
    x, y = pair_values(a), pair_values(b)
    if x.shape != y.shape:
        raise ValueError(f"Matrices of different sizes: {np.shape(a)} and {np.shape(b)}.")
    if len(x) < 3:
        raise ValueError("Rank agreement needs at least 3 sentences (3 pairs).")
    if all_tie(x) or all_tie(y):
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


def similarity_notice(
    matrices: dict[str, np.ndarray],
    labels: dict[str, str] | None = None,
    choice: VectorChoice | None = None,
) -> str:
    """The page's opening sentence from the similarity matrices it shows (plain text).

    ``matrices[pooling]`` ``(n, n)`` under the layers and post-processing of ``choice`` (a
    :class:`VectorChoice` whose pooling each key replaces; its layers and post-processing
    named in the sentence when given, e.g. ``"(last layer, mean-centred)"``). For the first
    pooling: the most and the least similar pair (sentences numbered
    from 1; pairs that tie at the two decimals shown are named together); for every pooling,
    the range of its off-diagonal values, so a pooling that makes every pair look alike stands
    out; a pooling whose pairs all show the same value cannot rank them, and the sentence says
    so instead of a Spearman ρ (:func:`spearman` gives ``nan`` for it).
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
    name = labels.get(first, first)
    where = ", ".join(
        part
        for part in (
            layers_label(choice.layers).lower() if choice is not None else "",
            choice.post_name if choice is not None else "",
        )
        if part
    )
    under = f"Under {name}" + (f" ({where})" if where else "")
    if all_tie(values):
        text = (
            f"{under}, every pair of sentences scores {shown(values[0])}: this pooling does not "
            "tell them apart."
        )
    else:
        high, low = _extreme_pairs(values, rows, cols)
        text = f"{under}, {high[0]} {high[1]} the most similar ({shown(values.max())}) and "
        text += (
            f"{low[0].removeprefix('sentences ')} the least ({shown(values.min())})."
            if low[1] == "are"
            else f"{low[0]} {low[1]} the least similar ({shown(values.min())})."
        )
    spans = []
    for pooling, other in matrices.items():
        pairs = np.asarray(other, dtype=np.float64)[rows, cols]
        low_text, high_text = shown(pairs.min()), shown(pairs.max())
        hundredths = round(float(high_text) * 100) - round(float(low_text) * 100)
        spans.append((hundredths, pooling, low_text, high_text))
    narrow = min(spans)
    # "the narrowest" only when the ranges as shown (two decimals) single one pooling out
    said = narrow[1] == first and narrow[2] == narrow[3]  # "every pair scores ..." above
    if len(spans) > 1 and not said and sum(span[0] == narrow[0] for span in spans) == 1:
        label = str(labels.get(narrow[1], narrow[1]))
        label = label[:1].upper() + label[1:]
        squeeze = (
            f"scores every pair {narrow[2]}"
            if narrow[2] == narrow[3]
            else f"squeezes every pair into {narrow[2]}–{narrow[3]}"
        )
        text += f" {label} {squeeze}, the narrowest range: it tells the pairs apart least."
    flat = [str(labels.get(p, p)) for hundredths, p, _, _ in spans if hundredths == 0]
    if len(spans) > 1 and flat:
        names = join(flat)
        text += (
            f" {names[:1].upper() + names[1:]} cannot rank the pairs (every pair shows the "
            f"same value), so no Spearman ρ is given for {'it' if len(flat) == 1 else 'them'}."
        )
    return text


MAX_NAMED_PAIRS = 3
"""More pairs than this tying at an extreme are counted, not named."""


def _extreme_pairs(values: np.ndarray, rows: np.ndarray, cols: np.ndarray):
    """``((subject, verb), (subject, verb))`` naming the pairs that show the highest and the
    lowest value (``"sentences 1 and 5", "are"``, or ``"pairs 1–5 and 2–3", "tie as"``)."""
    named = []
    for found in extremes(values):
        if len(found) == 1:
            named.append((f"sentences {rows[found[0]] + 1} and {cols[found[0]] + 1}", "are"))
        elif len(found) <= MAX_NAMED_PAIRS:
            pairs = join([f"{rows[i] + 1}–{cols[i] + 1}" for i in found])
            named.append((f"pairs {pairs}", "tie as"))
        else:
            named.append((f"{len(found)} pairs", "tie as"))
    return named[0], named[1]
