""" "Show code" for clusters with names: the map's vectors, k-means or HDBSCAN, c-TF-IDF.

The program leaves ``labels`` (one cluster per point, ``-1`` noise) and ``weights`` (the
c-TF-IDF matrix, clusters x words) behind, equal to :func:`explorer.maps._clusters.cluster` and
:func:`explorer.maps._clusters.cluster_terms` (tested), and prints each cluster's name.
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.codegen.axes import _header, vectors_program
from explorer.layers import Layers
from explorer.maps import AUTO_K_MAX, KMEANS_INIT, SILHOUETTE_SAMPLE, validate_cluster_method
from explorer.model.ref import ModelRef


def _clustering(method: str, k: int | None, random_state: int, min_cluster_size: int | None) -> str:
    if method == "hdbscan":
        size = "max(5, len(X) // 100)" if min_cluster_size is None else str(min_cluster_size)
        return (
            "from sklearn.cluster import HDBSCAN\n\n"
            "# Points in no dense group get -1 (noise).\n"
            f"labels = HDBSCAN(min_cluster_size={size}, copy=True).fit_predict(X)\n"
        )
    fit = f"KMeans(n_clusters={{k}}, n_init={KMEANS_INIT}, random_state={random_state})"
    if k is not None:
        return f"from sklearn.cluster import KMeans\n\nlabels = {fit.format(k=k)}.fit_predict(X)\n"
    return (
        "from sklearn.cluster import KMeans\n"
        "from sklearn.metrics import silhouette_score\n\n"
        f"# k chosen by the silhouette (on {SILHOUETTE_SAMPLE:,} random points above that many)\n"
        f"sample = {SILHOUETTE_SAMPLE} if len(X) > {SILHOUETTE_SAMPLE} else None\n"
        "best = None\n"
        f"for k in range(2, min({AUTO_K_MAX}, len(X) - 1) + 1):\n"
        f"    candidate = {fit.format(k='k')}.fit_predict(X)\n"
        "    if len(set(candidate)) < 2:\n"
        "        continue\n"
        "    score = silhouette_score(\n"
        f"        X, candidate, sample_size=sample, random_state={random_state}\n"
        "    )\n"
        "    print(f'k = {k}: silhouette {score:.4f}')\n"
        "    if best is None or score > best[0]:\n"
        "        best = (score, k, candidate)\n"
        "labels = best[2]\n"
        "print('chosen k:', best[1])\n"
    )


NAMING = (
    "\n# Names: class-based TF-IDF. All texts of a cluster make one document.\n"
    "from sklearn.feature_extraction.text import CountVectorizer\n\n"
    "classes = sorted(set(labels.tolist()))\n"
    "documents = [\n"
    "    ' '.join(t for t, c in zip(point_texts, labels) if c == cls) for cls in classes\n"
    "]\n"
    "vectorizer = CountVectorizer(stop_words='english').fit(documents)\n"
    "counts = vectorizer.transform(documents).toarray().astype(np.float64)\n"
    "words = vectorizer.get_feature_names_out()\n"
    "per_class = counts.sum(axis=1, keepdims=True)\n"
    "tf = counts / np.maximum(per_class, 1)  # each word's share of its cluster's words\n"
    "idf = np.log(1 + per_class.mean() / np.maximum(counts.sum(axis=0), 1))\n"
    "weights = tf * idf  # (clusters, words)\n"
    "for row, cls in enumerate(classes):\n"
    "    present = np.flatnonzero(counts[row])\n"
    "    best = sorted(present, key=lambda j: (-weights[row, j], words[j]))[:{top}]\n"
    "    name = 'noise' if cls == -1 else ' · '.join(words[j] for j in best)\n"
    "    size = int((labels == cls).sum())\n"
    "    print(f'{{cls:>3}} ({{size}} points): {{name}}')\n"
)


def clusters_snippet(
    ref: ModelRef,
    texts: Sequence[str],
    pooling: str | None = "mean",
    layers: Layers = "last",
    method: str = "kmeans",
    k: int | None = None,
    random_state: int = 0,
    *,
    normalize: bool = True,
    min_cluster_size: int | None = None,
    top: int = 3,
    word: str | None = None,
    spans: Sequence[tuple[int, int, int]] | None = None,
) -> str:
    """A runnable program: the map's vectors (see :func:`explorer.codegen.axes.vectors_program`
    for ``word``/``spans``), then :func:`explorer.maps._clusters.cluster` with these parameters
    (``k=None``: chosen by silhouette) and each cluster's ``top`` c-TF-IDF words."""
    validate_cluster_method(method)
    scale = (
        "X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)"
        "  # unit rows: clusters by cosine\n"
        if normalize
        else ""
    )
    return (
        _header("Clusters", pooling, layers, word)
        + vectors_program(ref, texts, pooling, layers, word=word, spans=spans)
        + "\nX = vectors.astype(np.float64)\n"
        + scale
        + _clustering(method, k, random_state, min_cluster_size)
        + NAMING.format(top=int(top))
    )
