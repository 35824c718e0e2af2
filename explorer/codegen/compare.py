"""Show code for the Compare models page: two models loaded side by side, their tokenizers'
counts, and the CKA of every layer of one with every layer of the other over shared words."""

from __future__ import annotations

from collections.abc import Sequence

from explorer.codegen import literal, model_preamble
from explorer.model.ref import ModelRef

_IMPORTS = "import torch\nfrom transformers import AutoModel, AutoTokenizer\n\n"
_RANDOM_IMPORTS = "import torch\nfrom transformers import AutoConfig, AutoModel, AutoTokenizer\n\n"


def _loaded(ref: ModelRef, suffix: str) -> str:
    """:func:`model_preamble` of ``ref`` without its imports, its names ending in
    ``_<suffix>`` (``tokenizer_a``, ``model_a``)."""
    body = model_preamble(ref)
    imports = _RANDOM_IMPORTS if ref.random else _IMPORTS
    if not body.startswith(imports):
        raise AssertionError("model_preamble no longer starts with its imports")
    body = body.removeprefix(imports)
    for word in ("name", "tokenizer", "model", "config"):
        body = body.replace(f"{word} = ", f"{word}_{suffix} = ")
    for word in ("name", "config"):
        body = body.replace(f"({word})", f"({word}_{suffix})")
        body = body.replace(f"({word}, ", f"({word}_{suffix}, ")
    return body


def two_models(a: ModelRef, b: ModelRef) -> str:
    """Imports and both models: ``tokenizer_a``/``model_a`` of ``a`` and
    ``tokenizer_b``/``model_b`` of ``b``, each with its trained weights or with random ones
    built as the explorer builds them (:func:`explorer.codegen.model_preamble`). When ``b`` is
    ``a``'s source with random weights, B reuses A's name and tokenizer."""
    if b.random and b.source == a.source:
        second = (
            ("" if a.random else "from transformers import AutoConfig\n\n")
            + "torch.manual_seed(0)  # model B: A's architecture with random (untrained) weights\n"
            "model_b = AutoModel.from_config(AutoConfig.from_pretrained(name_a), "
            "dtype=torch.float32).eval()\n"
            "tokenizer_b = tokenizer_a\n"
        )
    else:
        second = _loaded(b, "b")
    imports = _RANDOM_IMPORTS if a.random or (b.random and b.source != a.source) else _IMPORTS
    return "import numpy as np\n" + imports + _loaded(a, "a") + "\n" + second


def tokens_compare_snippet(a: ModelRef, b: ModelRef, text: str, texts: Sequence[str]) -> str:
    """A runnable program printing ``text``'s tokens under both tokenizers, then each
    tokenizer's words, tokens per word, share of words split and unknown tokens over
    ``texts`` (words: the tokenizer's own, those with a letter or digit), as
    :func:`explorer.compare.token_stats`. The namespace ends with ``stats`` (one dict per
    model)."""
    listed = "".join(f"    {literal(t)},\n" for t in texts)
    return (
        two_models(a, b) + f"\ntext = {literal(text)}\n"
        'for label, tokenizer in (("A", tokenizer_a), ("B", tokenizer_b)):\n'
        "    ids = tokenizer(text, truncation=True)['input_ids']\n"
        "    print(label, tokenizer.convert_ids_to_tokens(ids))\n\n"
        f"texts = [\n{listed}]\n"
        "stats = {}\n"
        'for label, tokenizer in (("A", tokenizer_a), ("B", tokenizer_b)):\n'
        "    words = tokens = split = unknown = 0\n"
        "    for text in texts:\n"
        "        encoding = tokenizer(text, truncation=True, return_offsets_mapping=True)\n"
        "        pieces = {}  # word number -> its token positions\n"
        "        for position, word in enumerate(encoding.word_ids()):\n"
        "            if word is not None:\n"
        "                pieces.setdefault(word, []).append(position)\n"
        "        for positions in pieces.values():\n"
        "            start = encoding['offset_mapping'][positions[0]][0]\n"
        "            end = encoding['offset_mapping'][positions[-1]][1]\n"
        "            if not any(ch.isalnum() for ch in text[start:end]):\n"
        "                continue  # punctuation: not counted\n"
        "            words += 1\n"
        "            tokens += len(positions)\n"
        "            split += len(positions) > 1\n"
        "            ids = [encoding['input_ids'][p] for p in positions]\n"
        "            unknown += ids.count(tokenizer.unk_token_id)\n"
        "    stats[label] = {'words': words, 'tokens per word': tokens / words,\n"
        "                    'share split': split / words, 'unknown': unknown}\n"
        "    print(label, stats[label])\n"
    )


def cross_cka_snippet(a: ModelRef, b: ModelRef, texts: Sequence[str], max_words: int) -> str:
    """A runnable program printing the linear CKA of every layer of model A (rows) with every
    layer of model B (columns) over the words of ``texts`` both tokenizers read alike (a word
    the mean of its pieces; at most ``max_words``, the first ones), and B's best-matching
    layer for each layer of A, as :func:`explorer.compare.cross_cka`. The namespace ends with
    ``states_a``, ``states_b`` ``(L + 1, words, hidden)`` and ``cka``."""
    listed = "".join(f"    {literal(t)},\n" for t in texts)
    return (
        two_models(a, b) + f"\ntexts = [\n{listed}]\n\n\n"
        "def word_vectors(tokenizer, model, text):\n"
        '    """{(start, end) of a word in text: its vector at every layer, the mean of its\n'
        '    pieces} (special tokens are no word)."""\n'
        "    inputs = tokenizer(text, truncation=True, return_tensors='pt',\n"
        "                       return_offsets_mapping=True)\n"
        "    offsets = inputs.pop('offset_mapping')[0].tolist()\n"
        "    pieces = {}\n"
        "    for position, word in enumerate(inputs.word_ids(0)):\n"
        "        if word is not None:\n"
        "            pieces.setdefault(word, []).append(position)\n"
        "    with torch.inference_mode():\n"
        "        output = model(**inputs, output_hidden_states=True)\n"
        "    states = torch.stack(output.hidden_states)[:, 0].double()  # (L + 1, tokens, hidden)\n"
        "    return {\n"
        "        (offsets[p[0]][0], offsets[p[-1]][1]): states[:, p].mean(dim=1)\n"
        "        for p in pieces.values()\n"
        "    }\n\n\n"
        "# The words both tokenizers cut alike (same characters), in text order.\n"
        "words_a, words_b = [], []\n"
        "for text in texts:\n"
        "    a = word_vectors(tokenizer_a, model_a, text)\n"
        "    b = word_vectors(tokenizer_b, model_b, text)\n"
        "    for span in sorted(set(a) & set(b)):\n"
        "        words_a.append(a[span])\n"
        "        words_b.append(b[span])\n"
        f"max_words = {int(max_words)}  # the first ones\n"
        "states_a = torch.stack(words_a[:max_words], dim=1).numpy()  # (L_a + 1, words, H_a)\n"
        "states_b = torch.stack(words_b[:max_words], dim=1).numpy()  # (L_b + 1, words, H_b)\n\n\n"
        "def linear_cka(a, b):\n"
        '    """||B^T A||_F^2 / (||A^T A||_F ||B^T B||_F) for column-centred A, B."""\n'
        "    a, b = a - a.mean(axis=0), b - b.mean(axis=0)\n"
        "    return np.linalg.norm(b.T @ a) ** 2 / (np.linalg.norm(a.T @ a) * "
        "np.linalg.norm(b.T @ b))\n\n\n"
        "cka = np.array([[linear_cka(a, b) for b in states_b] for a in states_a])\n"
        "np.set_printoptions(precision=3, suppress=True, linewidth=160)\n"
        'print(states_a.shape[1], "words; rows: layers of A, columns: layers of B")\n'
        "print(cka)\n"
        'print("best layer of B for each layer of A:", cka.argmax(axis=1))\n'
    )


def _both_vectors(a: ModelRef, b: ModelRef, texts: Sequence[str], pooling: str, layers) -> str:
    """Both models and ``vectors_a``/``vectors_b`` ``(n, dim)`` of ``texts`` under
    ``pooling`` and ``layers`` (the Similarity page's ``pooled_vectors``, run once per model:
    it reads the globals ``tokenizer``, ``model`` and ``L``)."""
    from explorer.choice import vector_choice
    from explorer.codegen.similarity import _pooled_function

    choice = vector_choice(pooling, layers)
    pooling = choice.pooling
    listed = "".join(f"    {literal(t)},\n" for t in texts)
    return (
        two_models(a, b)
        + "\ntokenizer, model = tokenizer_a, model_a\n"
        + _pooled_function([choice])
        + f"\n\ntexts = [\n{listed}]\n"
        f"pooling = {pooling!r}\n"
        "vectors_a = pooled_vectors(texts)[pooling]\n"
        "tokenizer, model = tokenizer_b, model_b  # pooled_vectors now runs model B\n"
        "L = model.config.num_hidden_layers\n"
        "vectors_b = pooled_vectors(texts)[pooling]\n"
    )


def neighbours_snippet(
    a: ModelRef,
    b: ModelRef,
    texts: Sequence[str],
    pooling: str,
    layers,
    k: int,
) -> str:
    """A runnable program printing, per text, the share of its ``k`` nearest neighbours
    (cosine, itself left out) both models agree on, as
    :func:`explorer.compare.neighbour_agreement`; the namespace ends with ``vectors_a``,
    ``vectors_b`` and ``agreement`` ``(n,)``."""
    return (
        _both_vectors(a, b, texts, pooling, layers) + f"k = {int(k)}\n\n\n"
        "def nearest(vectors):\n"
        '    """Each text\'s k nearest other texts by cosine, best first."""\n'
        "    scores = cosine(vectors, vectors)\n"
        "    np.fill_diagonal(scores, -np.inf)  # not itself\n"
        "    return np.argsort(-scores, axis=1, kind='stable')[:, :k]\n\n\n"
        "agreement = np.array([\n"
        "    len(set(a) & set(b)) / k for a, b in zip(nearest(vectors_a), nearest(vectors_b))\n"
        "])\n"
        "print(f'mean agreement {agreement.mean():.3f}')\n"
        "for i in np.argsort(agreement, kind='stable')[:5]:  # the texts they disagree about most\n"
        "    print(f'{agreement[i]:.0%}', texts[i])\n"
    )


def search_compare_snippet(
    a: ModelRef,
    b: ModelRef,
    texts: Sequence[str],
    query: str,
    pooling: str,
    layers,
    k: int,
) -> str:
    """A runnable program printing both models' ``k`` texts most similar to ``query`` and how
    many they share; the namespace ends with ``top_a`` and ``top_b`` (indices, best first)."""
    return (
        _both_vectors(a, b, texts, pooling, layers) + f"query, k = {literal(query)}, {int(k)}\n"
        "top_b = np.argsort(-cosine(pooled_vectors([query])[pooling], vectors_b)[0], "
        "kind='stable')[:k]\n"
        "tokenizer, model = tokenizer_a, model_a\n"
        "L = model.config.num_hidden_layers\n"
        "top_a = np.argsort(-cosine(pooled_vectors([query])[pooling], vectors_a)[0], "
        "kind='stable')[:k]\n"
        "for rank, (a, b) in enumerate(zip(top_a, top_b), start=1):\n"
        "    print(rank, 'A:', texts[a], '| B:', texts[b])\n"
        "print('shared:', len(set(top_a) & set(top_b)), 'of', k)\n"
    )


def depth_curves_snippet(a: ModelRef, b: ModelRef, senses: int, topics: int) -> str:
    """A runnable program with the library: both models (each with its trained weights or
    random ones, :func:`explorer.model.loading.random_weights`),
    :func:`explorer.compare.depth_curves` over the first ``senses`` built-in sense sentences
    and ``topics`` topic texts, each taken in turn from every group
    (:func:`explorer.compare.interleaved`), then where each model's measures peak in relative
    depth. The namespace ends with ``curves``."""
    first = _library_model(a, "model_a")
    if b.random and b.source == a.source and not a.random:
        models = first + (
            "from explorer.model.loading import random_weights\n\n"
            "model_b = random_weights(model_a)  # A's architecture with random weights (seed 0)\n"
        )
    else:
        models = first + _library_model(b, "model_b")
        if a.random or b.random:
            models = "from explorer.model.loading import random_weights\n\n" + models
    return (
        "import explorer\n"
        "from explorer.compare import depth_curves, interleaved\n"
        "from explorer.data import corpora\n\n" + models + "\n"
        "senses = interleaved(corpora.load_senses(), ['word', 'sense'])"
        f".head({int(senses)}).reset_index(drop=True)\n"
        f"topics = interleaved(corpora.load_topics(), ['topic']).head({int(topics)})\n"
        "curves = depth_curves(model_a, model_b, senses, topics['text'].tolist(),\n"
        "                      topics['topic'].tolist())\n"
        "# model, layer, depth (layer / layers), measure, value\n"
        "for (model, measure), rows in curves.groupby(['model', 'measure'], sort=False):\n"
        "    best = rows.loc[rows['value'].idxmax()]\n"
        "    print(f\"{model} {measure}: peak {best['value']:.3f} at layer {int(best['layer'])}\"\n"
        "          f\" ({best['depth']:.0%} deep)\")\n"
    )


def _library_model(ref: ModelRef, variable: str) -> str:
    """The line setting ``variable`` to ``ref`` loaded with the library (random weights:
    :func:`explorer.model.loading.random_weights` of it, as the explorer builds them)."""
    load = f"explorer.load_model({literal(ref.source)})"
    if ref.random:
        return f"{variable} = random_weights({load})  # random weights (seed 0)\n"
    return f"{variable} = {load}\n"
