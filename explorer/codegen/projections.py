""" "Show code" for the Projections page: sentence (or word) vectors, then PCA/UMAP/t-SNE.

The snippets reproduce the library's semantics exactly: pooling runs over each layer's
tokens with the attention mask (so padding never counts), and the layer choice then
combines the pooled per-layer vectors (``mean_max`` combines mean and max separately, then
concatenates them). For PCA the printed explained variance and trustworthiness are the
page's numbers; UMAP and t-SNE coordinates depend on the random seed and the machine, so
those snippets print the vectors' shape and first values as well. The t-SNE snippet calls
openTSNE step by step with the settings of :func:`explorer.maps._tsne.fit_tsne`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from explorer import maps
from explorer.choice import VectorChoice, vector_choice
from explorer.codegen import literal, model_preamble
from explorer.codegen.datafile import data_file, inline, read_lines
from explorer.codegen.explain import postprocess_lines
from explorer.expressions import (
    NUM_LAYERS,
    layers_expression,
    pooled_lines,
    subwords_expression,
)
from explorer.layers import Layers, layers_label
from explorer.maps import ProjectionParams, validate_method
from explorer.model.ref import ModelRef
from explorer.pooling import POOLING_LABELS

DATA_FILE = "projection_data.json"
"""The file a snippet of more than :data:`explorer.codegen.datafile.INLINE_ROWS` texts reads."""

DEFAULT_PARAMS = ProjectionParams()
"""The snippets' projection when none is given: 2-D PCA."""


def _texts_block(texts: Sequence[str], what: str = "texts") -> str:
    if not inline(len(texts)):
        return read_lines(DATA_FILE, ["texts"])
    lines = "".join(f"    {literal(t)},\n" for t in texts)
    return f"texts = [\n{lines}]\n"


def projection_data(texts: Sequence[str], values: Sequence | None = None) -> bytes | None:
    """The data file :func:`projection_snippet` of ``texts`` reads (:data:`DATA_FILE`, with
    the map's colour ``values`` when the program draws them), or None when the program writes
    its texts out."""
    if inline(len(texts)):
        return None
    return data_file({"texts": list(texts), **({} if values is None else {"values": values})})


def _word_rows(texts: Sequence[str], spans: Sequence[tuple[int, int, int]]):
    """The texts with an occurrence, and the occurrences renumbered to match."""
    used = sorted({int(t) for t, _, _ in spans})
    renumber = {t: i for i, t in enumerate(used)}
    return [texts[t] for t in used], [(renumber[int(t)], int(a), int(b)) for t, a, b in spans]


def word_projection_data(
    texts: Sequence[str], spans: Sequence[tuple[int, int, int]], values: Sequence | None = None
) -> bytes | None:
    """The data file :func:`word_projection_snippet` reads (texts with the word, occurrences,
    and the colour ``values``), or None when the program writes them out."""
    texts, spans = _word_rows(texts, spans)
    if inline(len(spans)):
        return None
    columns = {"texts": texts, "occurrences": [list(s) for s in spans]}
    return data_file({**columns, **({} if values is None else {"values": values})})


def method_title(params: ProjectionParams) -> str:
    """``"PCA 2-D"``: the method's label and the dimensions, for a snippet's first line."""
    return f"{maps.LABELS[validate_method(params.method)]} {params.n_components}-D"


def _pieces(text: str, indent: str, width: int = 76) -> str:
    """``text`` as string literals of at most about ``width`` characters, one a line, the
    lines after the first starting with ``indent`` (Python joins adjacent literals)."""
    pieces = textwrap.wrap(text, width, drop_whitespace=False, break_long_words=False)
    return f"\n{indent}".join(literal(p) for p in pieces)


def _trust_reading() -> str:
    """Snippet lines printing the page's reading of ``trust`` with ``k`` neighbours (read at
    the two decimals shown: :data:`explorer.maps.TRUST_READINGS`) and what
    trustworthiness does not say."""
    lines = ""
    for index, (lowest, text) in enumerate(maps.TRUST_READINGS):
        if lowest == float("-inf"):
            lines += "else:\n"
        else:
            shown = "  # the page reads the score as it shows it" if index == 0 else ""
            lines += f"{'if' if index == 0 else 'elif'} round(trust, 2) >= {lowest}:{shown}\n"
        pieces = _pieces(text, " " * 15)
        lines += f"    reading = ({pieces})\n" if "\n" in pieces else f"    reading = {pieces}\n"
    caution = _pieces(" " + maps.TRUST_CAUTION + ".", " " * 6)
    return (
        lines + "print(f'Trustworthiness {trust:.2f} (with {k} neighbour{\"s\" * (k != 1)}): '\n"
        f"      f'{{reading}}.'\n      {caution})\n"
    )


def _projection_block(params: ProjectionParams, n_points: int) -> str:
    """The projection of ``vectors`` (``n_points`` of them) with ``params``, then its numbers."""
    method, n_components, random_state = params.method, params.n_components, params.random_state
    validate_method(method)
    trust = (
        "k = min(5, (len(vectors) - 1) // 2)  # neighbours checked (at most 5)\n"
        + (
            f"# The page estimates this from {maps.TRUSTWORTHINESS_QUERIES:,} random points when "
            "there are more;\n# here it is exact (slower: all pairs of points).\n"
            if n_points > maps.TRUSTWORTHINESS_QUERIES
            else ""
        )
        + "trust = trustworthiness(vectors, coords, n_neighbors=k)\n"
        "print(f'trustworthiness ({k} neighbours): {trust:.4f}')\n" + _trust_reading()
    )
    if method == "pca":
        return (
            "from sklearn.decomposition import PCA\n"
            "from sklearn.manifold import trustworthiness\n\n"
            f"pca = PCA(n_components={n_components}, random_state={random_state})\n"
            "coords = pca.fit_transform(vectors)\n"
            "ratios = ' '.join(f'{r:.4f}' for r in pca.explained_variance_ratio_)\n"
            "print(f'explained variance per axis: [{ratios}]')\n"
            "total = pca.explained_variance_ratio_.sum()\n"
            "print(f'total: {total:.4f}, {100 * total:.1f} % of the variance')\n" + trust
        )
    shape = (
        "# Coordinates depend on the seed and the machine; the vectors do not.\n"
        "print('vectors:', vectors.shape)\n"
        "print(np.round(vectors[:3, :6], 4))\n"
    )
    if method == "umap":
        umap_params = (
            f"n_components={n_components}, n_neighbors={params.n_neighbors}, "
            f"random_state={random_state}, n_jobs=1"
        )
        if n_points < maps.EXACT_NEIGHBORS_BELOW:
            fit = (
                "import warnings\n\n"
                "from sklearn.metrics import pairwise_distances\n\n"
                "# Below 4,096 points UMAP compares every pair of points; scikit-learn's\n"
                "# distance matrix gives it the same neighbours much faster.\n"
                "warnings.filterwarnings('ignore', message='using precomputed metric')\n"
                f"reducer = umap.UMAP(\n    {umap_params}, metric='precomputed'\n)\n"
                "coords = reducer.fit_transform(pairwise_distances(vectors))\n"
            )
        elif n_points <= maps.EXACT_KNN_UP_TO:
            fit = (
                "import warnings\n\n"
                "from sklearn.neighbors import NearestNeighbors\n\n"
                "# Above 4,096 points UMAP would search neighbours approximately (NN-descent,\n"
                "# whose compilation takes a minute); the page gives it the exact ones.\n"
                "distances, indices = NearestNeighbors(\n"
                f"    n_neighbors={params.n_neighbors}\n"
                ").fit(vectors).kneighbors(vectors)\n"
                "warnings.filterwarnings('ignore', message='.*knn_search_index')\n"
                f"reducer = umap.UMAP(\n    {umap_params},\n"
                "    precomputed_knn=(indices.astype('int32'), distances.astype('float32')),\n)\n"
                "coords = reducer.fit_transform(vectors)\n"
            )
        else:
            fit = f"\nreducer = umap.UMAP({umap_params})\ncoords = reducer.fit_transform(vectors)\n"
        return (
            shape + "\nimport umap  # pip install umap-learn; the first call compiles (~20 s)\n"
            "from sklearn.manifold import trustworthiness\n" + fit + trust
        )
    return shape + _tsne_block(n_components, random_state, params.perplexity, n_points) + trust


def _tsne_block(n_components: int, random_state: int, perplexity: float, n_points: int) -> str:
    """openTSNE with the settings of :func:`explorer.maps._tsne.fit_tsne`, written out."""
    fft = "".join(f"    {name}={value!r},\n" for name, value in maps.TSNE_FFT.items())
    return (
        "\nfrom openTSNE import TSNEEmbedding, affinity, initialization  # pip install openTSNE\n"
        "from sklearn.decomposition import PCA\n"
        "from sklearn.manifold import trustworthiness\n\n"
        f"# The first {maps.TSNE_PCA_DIMENSIONS} principal components, exact neighbours there "
        f"({maps.TSNE_NEIGHBORS_PER_PERPLEXITY:g} x perplexity\n"
        "# of them), PCA start, then a short schedule: the page's t-SNE, step by step.\n"
        f"reduced = vectors if vectors.shape[1] <= {maps.TSNE_PCA_DIMENSIONS} else PCA(\n"
        f"    min({maps.TSNE_PCA_DIMENSIONS}, *vectors.shape), svd_solver='covariance_eigh', "
        f"random_state={random_state}\n"
        ").fit_transform(vectors).astype(np.float32)\n"
        "affinities = affinity.PerplexityBasedNN(\n"
        f"    reduced, perplexity={float(perplexity)!r}, method='exact', "
        f"k_neighbors={maps.tsne_neighbors(n_points, perplexity)},\n"
        f"    n_jobs={maps.TSNE_NEIGHBOR_JOBS}, random_state={random_state},\n"
        ")\n"
        f"init = initialization.pca(reduced, {n_components}, random_state={random_state})\n"
        "embedding = TSNEEmbedding(\n"
        "    init.astype(np.float64),\n"
        "    affinities,\n"
        f"    negative_gradient_method={maps.tsne_gradient_method(n_components)!r},\n"
        "    learning_rate='auto',\n"
        "    n_jobs=1,\n"
        f"    random_state={random_state},\n" + fft + ")\n"
        f"embedding = embedding.optimize(n_iter={maps.TSNE_EARLY_ITERATIONS}, "
        f"exaggeration={maps.TSNE_EARLY_EXAGGERATION:g}, momentum={maps.TSNE_MOMENTUM:g})\n"
        f"embedding = embedding.optimize(n_iter={maps.TSNE_ITERATIONS}, "
        f"momentum={maps.TSNE_MOMENTUM:g})\n"
        "coords = np.asarray(embedding)\n"
    )


def _pooling_lines(choice: VectorChoice) -> str:
    """Body of ``sentence_vectors``: pool every layer, then combine the layers."""
    lines = pooled_lines([choice.pooling])
    if len(choice.parts) > 1:
        lines += "    # Combine the layers of each pooling, then put the two side by side.\n"
    return lines + f"    return {choice.expression()}\n"


def projection_snippet(
    ref: ModelRef,
    texts: Sequence[str],
    pooling: VectorChoice | str = "mean",
    layers: Layers | None = None,
    params: ProjectionParams = DEFAULT_PARAMS,
    post: str | None = None,
) -> str:
    """A runnable program: sentence vectors for ``texts`` (``pooling`` per layer, then
    ``layers`` combined), post-processed with ``post`` (the texts their own reference,
    :func:`explorer.codegen.explain.postprocess_lines`), then the projection ``params``,
    printing its numbers.

    The result leaves ``vectors`` ``(n, d)`` numpy float32 and ``coords`` ``(n, k)`` in its
    namespace. ``params.n_neighbors`` and ``params.perplexity`` should be the values the
    projection used (:meth:`ProjectionParams.as_used_by`).
    """
    choice = vector_choice(pooling, layers, post=post)
    pooling, layers, post = choice.pooling, choice.layers, choice.post
    header = f"# {POOLING_LABELS[pooling]} · {layers_label(layers)} · {method_title(params)}\n"
    header += "" if post == "none" else f"# post-processing: {post}\n"
    body = (
        "\nimport numpy as np\n\n" + NUM_LAYERS + "\n\n"
        "def sentence_vectors(batch_texts):\n"
        '    """One vector per text: pool every layer over its tokens, then combine layers."""\n'
        "    batch = tokenizer(batch_texts, padding=True, truncation=True, "
        'return_tensors="pt")\n'
        "    with torch.inference_mode():\n"
        "        output = model(**batch, output_hidden_states=True)\n"
        "    hidden = torch.stack(output.hidden_states)  # (L + 1, batch, tokens, hidden)\n"
        '    mask = batch["attention_mask"].bool()[None, :, :, None]  # padding never counts\n'
        + _pooling_lines(choice)
        + "\n\n"
        + _texts_block(texts)
        + "vectors = np.concatenate(\n"
        "    [sentence_vectors(texts[i : i + 32]).numpy() for i in range(0, len(texts), 32)]\n"
        ")  # (texts, dim)\n" + postprocess_lines(post, "vectors", "vectors")
    )
    return header + model_preamble(ref) + body + _projection_block(params, len(texts))


def word_projection_snippet(
    ref: ModelRef,
    texts: Sequence[str],
    spans: Sequence[tuple[int, int, int]],
    word: str,
    layers: VectorChoice | Layers = "last",
    params: ProjectionParams = DEFAULT_PARAMS,
    post: str | None = None,
) -> str:
    """A runnable program: the vector of every occurrence of ``word`` (mean of its subword
    tokens at every layer, then ``layers`` combined), post-processed with ``post`` (the
    occurrences their own reference), then the projection ``params``. ``layers`` is the map's
    :class:`~explorer.VectorChoice` (its layers and post-processing; its pooling is unused),
    or a layer choice with ``post`` (default ``none``) beside it.

    ``spans`` lists ``(text_index, char_start, char_end)`` of each occurrence in ``texts``
    (from :func:`explorer.find_occurrences`). Leaves ``vectors`` and ``coords`` behind.
    """
    if isinstance(layers, VectorChoice):
        choice = vector_choice(layers, post=post)
    else:
        choice = vector_choice(None, layers, post=post)
    layers, post = choice.layers, choice.post
    header = f"# Occurrences of {word!r} · {layers_label(layers)} · {method_title(params)}\n"
    header += "" if post == "none" else f"# post-processing: {post}\n"
    texts, spans = _word_rows(texts, spans)
    if inline(len(spans)):
        occurrence_lines = "".join(f"    {s!r},\n" for s in spans)
        data = (
            _texts_block(texts, "texts with the word")
            + "# (text index, first character, end character) of each occurrence\n"
            + f"occurrences = [\n{occurrence_lines}]\n"
        )
    else:  # (text index, first character, end character) of each occurrence
        data = read_lines(DATA_FILE, ["texts", "occurrences"])
    body = (
        "\nimport numpy as np\n\n" + NUM_LAYERS + "\n\n"
        "def word_vector(text, start, end):\n"
        '    """Mean of the word\'s subword tokens at every layer, then layers combined."""\n'
        "    batch = tokenizer(text, truncation=True, return_offsets_mapping=True, "
        'return_tensors="pt")\n'
        '    offsets = batch.pop("offset_mapping")[0].tolist()\n'
        "    with torch.inference_mode():\n"
        "        output = model(**batch, output_hidden_states=True)\n"
        "    hidden = torch.stack(output.hidden_states)[:, 0]  # (L + 1, tokens, hidden)\n"
        "    tokens = [i for i, (a, b) in enumerate(offsets) if b > a and a < end and b > start]\n"
        f"    x = {subwords_expression('mean', 'hidden[:, tokens]', token_axis=1)}"
        "  # (L + 1, hidden)\n"
        f"    return {layers_expression(layers, 'x')}\n\n\n"
        + data
        + "vectors = np.stack([word_vector(texts[t], a, b).numpy() for t, a, b in occurrences])\n"
        + postprocess_lines(post, "vectors", "vectors")
    )
    return header + model_preamble(ref) + body + _projection_block(params, len(spans))
