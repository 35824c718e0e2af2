""" "Show code" for the Similarity & search page.

:func:`similarity_snippet` prints the cosine-similarity matrix of a list of sentences under
each pooling and the Spearman correlation between the poolings' pairwise similarities;
:func:`search_snippet` prints the top-k corpus texts for a query. Both pool every layer
over its tokens with the attention mask (padding never counts) and then combine layers,
as the library does (``mean_max`` combines mean and max separately, then concatenates).

A saved corpus (:func:`store_search_snippet`) keeps its vectors: the snippet opens the store
with :func:`explorer.open_corpus` (the one reader of the store format) and searches it with
:meth:`explorer.data.store.Corpus.search`, as the page does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from explorer.choice import VectorChoice, vector_choice
from explorer.codegen import batch_loop, literal, model_preamble
from explorer.expressions import NUM_LAYERS, pooled_lines
from explorer.layers import Layers, layers_label
from explorer.model.ref import ModelRef
from explorer.pooling import POOLINGS

MAX_TEXTS = 300
"""Most corpus texts written into a snippet; longer corpora are cut with a note."""


def _pooled_function(choices: Sequence[VectorChoice]) -> str:
    """Source of ``pooled_vectors(texts) -> {pooling: (n, dim) numpy}`` (one forward pass)."""
    entries = "".join(f"            {c.pooling!r}: {c.expression()},\n" for c in choices)
    poolings = [c.pooling for c in choices]
    return (
        NUM_LAYERS + "\n\n"
        "def pooled_vectors(texts):\n"
        '    """{pooling: (texts, dim)}: pool each layer over its tokens, then combine layers."""\n'
        "    parts = []\n"
        + batch_loop()
        + "        hidden = torch.stack(output.hidden_states)  # (L + 1, batch, tokens, hidden)\n"
        '        mask = batch["attention_mask"].bool()[None, :, :, None]  # padding never counts\n'
        + pooled_lines(poolings, "        ")
        + "        parts.append({\n"
        + entries
        + "        })\n"
        "    return {p: torch.cat([part[p] for part in parts]).numpy() for p in parts[0]}\n\n\n"
        "def cosine(a, b):\n"
        '    """Cosine similarity of the rows of a (n, d) and b (m, d): (n, m)."""\n'
        "    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)\n"
        "    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)\n"
        "    return np.clip(a.astype(np.float64) @ b.T.astype(np.float64), -1.0, 1.0)\n"
    )


def _list_block(name: str, texts: Sequence[str], limit: int | None = None) -> str:
    texts = list(texts)
    shown = texts if limit is None else texts[:limit]
    note = ""
    if len(shown) < len(texts):
        note = (
            f"# The page uses {len(texts):,} texts; the first {len(shown)} are written here, so\n"
            "# the results can differ. Read all of yours from a file, e.g.\n"
            f"# {name} = open('corpus.txt', encoding='utf-8').read().splitlines()\n"
        )
    lines = "".join(f"    {literal(t)},\n" for t in shown)
    return f"{note}{name} = [\n{lines}]\n"


def similarity_snippet(
    ref: ModelRef,
    sentences: Sequence[str],
    poolings: Sequence[VectorChoice | str] = POOLINGS,
    layers: Layers | None = None,
    post: str | None = None,
    reference: Sequence[str] = (),
) -> str:
    """A runnable program printing each pooling's similarity matrix and Spearman agreement,
    the vectors first post-processed with ``post`` using the statistics of the ``reference``
    texts' vectors (:func:`explorer.codegen.explain.postprocess_lines`). ``poolings`` are
    :class:`explorer.VectorChoice` values sharing layers and post-processing, or pooling names
    with ``layers`` and ``post`` (default ``none``) beside them.

    Leaves ``similarity`` (``{pooling: (n, n)}``) and ``agreement`` (``{(a, b): rho}``) in
    its namespace.
    """
    from explorer.codegen.explain import postprocess_lines

    choices = [vector_choice(p, layers, post=post) for p in poolings]
    poolings = [c.pooling for c in choices]
    first = choices[0] if choices else vector_choice(None, layers, post=post)
    layers, post = first.layers, first.post
    steps = ""
    if post != "none":
        if not reference:
            raise ValueError("Post-processing needs the reference texts whose statistics it uses.")
        steps = (
            _list_block("reference", reference)
            + "reference_vectors = pooled_vectors(reference)\n"
            + f"for p in poolings:  # post-processing: {post}, the reference's statistics\n"
            + "    ref = reference_vectors[p].astype(np.float64)\n"
            + postprocess_lines(post, "vectors[p]", "vectors[p]", reference="ref", indent="    ")
        )
    return (
        f"# Cosine similarity under {', '.join(poolings)} pooling · {layers_label(layers)}\n"
        "import numpy as np\n" + model_preamble(ref) + "\n" + _pooled_function(choices) + "\n\n"
        "def ranks(x):\n"
        '    """Average ranks (ties share their mean rank), as in scipy.stats.rankdata."""\n'
        "    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)\n"
        "    return (np.cumsum(counts) - (counts - 1) / 2)[inverse]\n\n\n"
        "def spearman(a, b):\n"
        '    """Spearman correlation of two similarity matrices\' pairs above the diagonal."""\n'
        "    upper = np.triu_indices(len(a), k=1)\n"
        "    # every pair the same at the two decimals shown: no ranking (nan), not noise\n"
        '    if min(len({f"{v:.2f}" for v in m[upper]}) for m in (a, b)) < 2:\n'
        "        return np.nan\n"
        "    return np.corrcoef(ranks(a[upper]), ranks(b[upper]))[0, 1]\n\n\n"
        + _list_block("sentences", sentences)
        + f"poolings = {literal(list(poolings))}\n\n"
        "vectors = pooled_vectors(sentences)\n"
        + steps
        + "similarity = {p: cosine(vectors[p], vectors[p]) for p in poolings}\n"
        "np.set_printoptions(precision=3, suppress=True, linewidth=120)\n"
        "first, second = np.triu_indices(len(sentences), k=1)  # every pair once\n"
        "for p in poolings:\n"
        '    print(f"{p} pooling: cosine similarity (sentence x sentence)")\n'
        "    print(similarity[p])\n"
        "    pairs = similarity[p][first, second]\n"
        "    hi, lo = pairs.argmax(), pairs.argmin()  # the page's headline, sentences from 1\n"
        '    print(f"  most similar: {first[hi] + 1} and {second[hi] + 1} ({pairs[hi]:.2f}); "\n'
        '          f"least: {first[lo] + 1} and {second[lo] + 1} ({pairs[lo]:.2f}); "\n'
        '          f"every pair within {pairs.min():.2f}–{pairs.max():.2f}")\n\n'
        "agreement = {}\n"
        "for i, a in enumerate(poolings):\n"
        "    for b in poolings[i + 1 :]:\n"
        "        agreement[a, b] = spearman(similarity[a], similarity[b])\n"
        '        print(f"Spearman {a} vs {b}: {agreement[a, b]:.4f}")\n'
    )


def search_snippet(
    ref: ModelRef,
    corpus: Sequence[str],
    query: str,
    choice: VectorChoice,
    k: int = 5,
) -> str:
    """A runnable program printing the ``k`` corpus texts most similar to ``query`` under
    ``choice`` (an :class:`explorer.VectorChoice`, checked when it was made).

    Leaves ``scores`` (``(n,)`` cosine of the query with every text) and ``top`` (indices,
    best first) in its namespace.
    """
    return (
        f"# Semantic search · {choice.title}\n"
        "import numpy as np\n"
        + model_preamble(ref)
        + "\n"
        + _pooled_function([choice])
        + "\n\n"
        + _list_block("corpus", corpus, MAX_TEXTS)
        + f"query = {literal(query)}\n"
        f"pooling, k = {choice.pooling!r}, {int(k)}\n\n"
        "corpus_vectors = pooled_vectors(corpus)[pooling]  # embed the corpus once, keep it\n"
        "query_vector = pooled_vectors([query])[pooling]\n"
        "scores = cosine(query_vector, corpus_vectors)[0]\n"
        'top = np.argsort(-scores, kind="stable")[:k]\n'
        "for rank, i in enumerate(top, start=1):\n"
        '    print(f"{rank}. {scores[i]:.4f}  {corpus[i]}")\n'
    )


def store_search_snippet(
    store: str,
    query: str,
    pooling: VectorChoice | str = "mean",
    layers: Layers | None = None,
    k: int = 5,
    *,
    model: ModelRef | None = None,
) -> str:
    """A runnable program printing the ``k`` rows of a saved corpus most similar to ``query``
    under one :class:`explorer.VectorChoice` (or pooling name and ``layers``).

    ``store`` is the store folder's name (written as ``"path/to/<store>"``: a snippet never
    shows where the server keeps its stores). The snippet opens the store with
    :func:`explorer.open_corpus`, loads the model named in its manifest and calls
    :meth:`explorer.data.store.Corpus.search` (only the query runs the model). ``model`` is
    the model the page embedded the query with: for random weights (a corpus embedded with
    :func:`explorer.model.loading.random_weights`, whose manifest names no loadable model)
    the snippet builds them the same way from ``model.source`` (``name = ...``, a line
    :func:`explorer.codegen.hide_folders` hides). Leaves ``found`` (``indices`` and
    ``scores``, ``(k,)``, best first) in its namespace.
    """
    choice = vector_choice(pooling, layers)
    pooling, layers = choice.pooling, choice.layers
    folder = "path/to/" + (PurePath(store).name or "corpus")
    if model is not None and model.random:
        loaded = (
            "# the corpus was embedded with random (untrained) weights: the model's architecture\n"
            "# built afresh, as the explorer builds them (seed 0)\n"
            f"name = {model.source!r}\n"
            "model = random_weights(explorer.load_model(name))\n"
        )
        imports = "import explorer\nfrom explorer.model.loading import random_weights\n\n"
    else:
        loaded = (
            "model = explorer.load_model(corpus.model_name)  # the model the corpus was "
            "embedded with\n"
        )
        imports = "import explorer\n\n"
    return (
        f"# Semantic search over a saved corpus · {choice.title}\n"
        + imports
        + f"corpus = explorer.open_corpus({folder!r})  # the folder `explorer embed --out` wrote\n"
        + loaded
        + f"query = {literal(query)}\n"
        f"pooling, layers, k = {pooling!r}, {literal(layers)}, {int(k)}\n\n"
        "# Embeds the query only (refused if the model's weights are not the store's), then\n"
        "# ranks every row of the store by cosine similarity.\n"
        "found = corpus.search(model, query, k, pooling=pooling, layers=layers)\n"
        "texts = corpus.take(found.indices)[corpus.text_column]\n"
        "for rank, (row, score, text) in enumerate(zip(found.indices, found.scores, texts), 1):\n"
        '    print(f"{rank}. {score:.4f}  row {row}  {text}")\n'
    )
