""" "Show code" for the explanations: the token pairs of a cosine (or integrated gradients for
``cls`` pooling), cosines after post-processing, and layer x layer CKA."""

from __future__ import annotations

from collections.abc import Sequence

from explorer.choice import VectorChoice, validate_post, vector_choice
from explorer.codegen import literal, model_preamble
from explorer.expressions import NUM_LAYERS, joined, layers_expression
from explorer.layers import Layers, layers_label
from explorer.model.ref import ModelRef

_PARTS = {
    "mean": "mean = x * keep / keep.sum()  # every token's vector over the token count\n",
    "max": (
        "# max: each layer's maximum of each dimension, kept at the (first) token holding it\n"
        "    masked = x.masked_fill(~keep, -torch.inf)\n"
        "    maxed = torch.zeros_like(x).scatter(1, masked.argmax(dim=1, keepdim=True), "
        "masked.amax(dim=1, keepdim=True))\n"
    ),
}
_NAMES = {"mean": "mean", "max": "maxed"}


def _forward(indent: str = "    ") -> str:
    return (
        f'{indent}inputs = tokenizer(text, truncation=True, return_tensors="pt", '
        "return_special_tokens_mask=True)\n"
        f'{indent}special = inputs.pop("special_tokens_mask")[0].bool()\n'
        f"{indent}with torch.inference_mode():\n"
        f"{indent}    output = model(**inputs, output_hidden_states=True)\n"
        f"{indent}x = torch.stack(output.hidden_states)[:, 0].double()  # (L + 1, tokens, hidden)\n"
    )


def explain_snippet(
    ref: ModelRef,
    text_a: str,
    text_b: str,
    pooling: VectorChoice | str = "mean",
    layers: Layers | None = None,
    *,
    exclude_special: bool = False,
    top: int = 5,
    steps: int = 32,
) -> str:
    """A runnable program printing the cosine of two texts and where it comes from.

    Mean, max and mean_max: each text's per-token parts of its sentence vector (rows summing
    to the vector), then ``pairs = A @ B.T / (|u| |v|)``, the ``top`` pairs and the check
    that they sum to the cosine; the namespace ends with ``score``, ``pairs``, ``tokens_a``,
    ``tokens_b``. ``cls``: integrated gradients with ``steps`` trapezoid steps from a baseline
    of [PAD]s (special tokens kept); the namespace ends with ``score``, ``scores_a``,
    ``scores_b``, ``baselines``. Numbers as :func:`explorer.explain_similarity` gives them.
    """
    choice = vector_choice(pooling, layers)  # a layer number is checked by the model
    pooling, layers = choice.pooling, choice.layers
    head = (
        "import numpy as np\n" + model_preamble(ref) + "\n"
        f"text_a = {literal(text_a)}\n"
        f"text_b = {literal(text_b)}\n" + NUM_LAYERS + "\n\n"
    )
    if pooling == "cls":
        return head + _cls_body(layers, steps, top)
    keep = "~special" if exclude_special else "torch.ones_like(special)"
    parts = "".join("    " + _PARTS[p] for p in choice.parts)
    combined = joined([layers_expression(layers, _NAMES[p]) for p in choice.parts])
    return (
        head + "def parts(text):\n"
        '    """The tokens, and each token\'s part of the sentence vector (rows sum to it)."""\n'
        + _forward()
        + f"    keep = ({keep})[None, :, None]  # the tokens pooled\n"
        + parts
        + f"    return tokenizer.convert_ids_to_tokens(inputs['input_ids'][0]), {combined}\n\n\n"
        "tokens_a, parts_a = parts(text_a)\n"
        "tokens_b, parts_b = parts(text_b)\n"
        "u, v = parts_a.sum(dim=0), parts_b.sum(dim=0)  # the two sentence vectors\n"
        f"# {layers_label(layers)}, {pooling} pooling: cos(u, v) = sum_ij a_i . b_j / (|u| |v|)\n"
        "pairs = (parts_a @ parts_b.T / (u.norm() * v.norm())).numpy()\n"
        "score = float(u @ v / (u.norm() * v.norm()))\n"
        'print(f"cosine {score:.4f}; the pairs sum to {pairs.sum():.4f}")\n'
        f"for flat in np.argsort(pairs, axis=None)[::-1][:{int(top)}]:\n"
        "    i, j = np.unravel_index(flat, pairs.shape)\n"
        "    print(f'{tokens_a[i]!r} with {tokens_b[j]!r}: {pairs[i, j]:+.4f} "
        "({pairs[i, j] / score:.0%} of the similarity)')\n"
    )


def _cls_body(layers: Layers, steps: int, top: int) -> str:
    return (
        "embedding = model.get_input_embeddings()\n"
        "pad = tokenizer.pad_token_id\n\n\n"
        "def cls_vectors(points, inputs):\n"
        '    """The [CLS] vector under the layer choice for input embeddings (m, tokens, dim)."""\n'
        "    rest = {k: v.expand(len(points), -1) for k, v in inputs.items() if k != 'input_ids'}\n"
        "    output = model(inputs_embeds=points, **rest, output_hidden_states=True)\n"
        "    x = torch.stack(output.hidden_states)[:, :, 0]  # (L + 1, m, hidden)\n"
        f"    return {layers_expression(layers, 'x')}  # {layers_label(layers)}\n\n\n"
        "def prepare(text):\n"
        '    inputs = tokenizer(text, truncation=True, return_tensors="pt", '
        "return_special_tokens_mask=True)\n"
        '    special = inputs.pop("special_tokens_mask")[0].bool()\n'
        "    x = embedding(inputs['input_ids']).detach()  # (1, tokens, dim)\n"
        "    baseline = x.clone()  # [PAD] at every word, the special tokens kept\n"
        "    baseline[0, ~special] = embedding.weight[pad].detach() if pad is not None else 0.0\n"
        "    return inputs, x, baseline\n\n\n"
        f"def integrated_gradients(text, target, steps={int(steps)}):\n"
        '    """Per-token attributions of cos(cls(text), target), trapezoid rule."""\n'
        "    inputs, x, baseline = prepare(text)\n"
        "    alphas = torch.linspace(0, 1, steps + 1, dtype=torch.float64).float()[:, None, None]\n"
        "    points = (baseline + alphas * (x - baseline)).requires_grad_(True)\n"
        "    cosines = torch.nn.functional.cosine_similarity(cls_vectors(points, inputs), "
        "target[None], dim=-1)\n"
        "    (grads,) = torch.autograd.grad(cosines.sum(), points)\n"
        "    grads = grads.double()\n"
        "    mean_grad = (grads[1:-1].sum(dim=0) + (grads[0] + grads[-1]) / 2) / steps\n"
        "    scores = ((x - baseline)[0].double() * mean_grad).sum(dim=-1).numpy()\n"
        "    tokens = tokenizer.convert_ids_to_tokens(inputs['input_ids'][0])\n"
        "    ends = cosines.detach().double()\n"
        "    return tokens, scores, float(ends[0]), float(ends[-1])\n\n\n"
        "with torch.no_grad():\n"
        "    u, v = (cls_vectors(embedding(i['input_ids']), i)[0] for i, *_ in map(prepare, "
        "(text_a, text_b)))\n"
        "score = float(torch.nn.functional.cosine_similarity(u.double(), v.double(), dim=0))\n"
        'print(f"cosine {score:.4f}")\n'
        "tokens_a, scores_a, base_a, end_a = integrated_gradients(text_a, v)\n"
        "tokens_b, scores_b, base_b, end_b = integrated_gradients(text_b, u)\n"
        "baselines = (base_a, base_b)\n"
        "for name, tokens, scores, base, end in (('a', tokens_a, scores_a, base_a, end_a), "
        "('b', tokens_b, scores_b, base_b, end_b)):\n"
        "    print(f'text {name}: attributions sum to {scores.sum():.4f}; cosine minus the "
        "baseline\\'s: {end - base:.4f} (gap {abs(scores.sum() - (end - base)):.1e})')\n"
        f"    for i in np.argsort(scores)[::-1][:{int(top)}]:\n"
        "        print(f'  {tokens[i]!r}: {scores[i]:+.4f}')\n"
    )


def postprocess_snippet(
    ref: ModelRef,
    texts: Sequence[str],
    mode: str,
    *,
    components: int | None = None,
    k: int = 3,
) -> str:
    """A runnable program embedding ``texts`` (mean pooling, last layer), post-processing
    the vectors with ``mode`` (the texts are their own reference), and printing the cosine
    matrix and the share of the cosines' terms the top ``k`` dimensions carry before and
    after. The namespace ends with ``vectors``, ``processed``, ``similarity``, ``before``,
    ``after``. ``components``: all-but-the-top's D (default ``round(dim / 100)``, at least 1).
    """
    listed = "".join(f"    {literal(t)},\n" for t in texts)
    steps = postprocess_lines(mode, components=components) or "processed = vectors\n"
    return (
        "import numpy as np\n" + model_preamble(ref) + f"\ntexts = [\n{listed}]\n"
        'batch = tokenizer(texts, padding=True, truncation=True, return_tensors="pt")\n'
        "with torch.inference_mode():\n"
        "    last = model(**batch).last_hidden_state\n"
        "mask = batch['attention_mask'][:, :, None].to(last.dtype)\n"
        "vectors = ((last * mask).sum(dim=1) / mask.sum(dim=1)).double().numpy()  # mean pooling\n"
        + steps
        + "unit = processed / np.linalg.norm(processed, axis=1, keepdims=True)\n"
        "similarity = unit @ unit.T\n"
        "np.set_printoptions(precision=3, suppress=True, linewidth=120)\n"
        "print(similarity)\n\n\n"
        "def term_shares(x, dims=None):\n"
        '    """Per pair of texts, u_d v_d / (|u||v|) for every dimension d; the top dims\' share\n'
        '    of the absolute terms, averaged over pairs."""\n'
        "    u = x / np.linalg.norm(x, axis=1, keepdims=True)\n"
        "    i, j = np.triu_indices(len(u), k=1)\n"
        "    terms = u[i] * u[j]\n"
        f"    dims = np.argsort(-np.abs(terms.mean(axis=0)))[:{int(k)}] if dims is None else dims\n"
        "    share = (np.abs(terms[:, dims]).sum(axis=1) / np.abs(terms).sum(axis=1)).mean()\n"
        "    return dims, share\n\n\n"
        "dims, before = term_shares(vectors)\n"
        "_, after = term_shares(processed, dims)\n"
        f'print(f"top dimensions {{dims.tolist()}}: {{before:.0%}} of the terms before, '
        f'{{after:.0%}} after {mode}")\n'
    )


def postprocess_lines(
    mode: str,
    source: str = "vectors",
    target: str = "processed",
    components: int | None = None,
    *,
    reference: str | None = None,
    indent: str = "",
) -> str:
    """Lines of a program that set ``target`` to the ``(n, dim)`` numpy array ``source``
    post-processed with ``mode`` using the statistics of the array ``reference`` (default:
    ``source`` itself), as :func:`explorer.explain.postprocess` does; empty for ``none``
    (``target`` is then not set). ``components``: all-but-the-top's D (default
    ``round(dim / 100)``, at least 1). Each line starts with ``indent``."""
    validate_post(mode)
    ref = reference or source
    count = f"max(1, round({ref}.shape[1] / 100))" if components is None else str(int(components))
    lines = {
        "none": [],
        "center": [f"{target} = {source} - {ref}.mean(axis=0)  # centre"],
        "standardize": [
            f"std = {ref}.std(axis=0)  # standardize: every dimension a z-score",
            f"{target} = ({source} - {ref}.mean(axis=0)) / np.where(std > 1e-12, std, 1.0)",
        ],
        "abtt": [
            "# all-but-the-top: centre, then remove the top D principal directions",
            f"D = {count}",
            f"top = np.linalg.svd({ref} - {ref}.mean(axis=0), full_matrices=False)[2][:D]",
            f"centred = {source} - {ref}.mean(axis=0)",
            f"{target} = centred - centred @ top.T @ top",
        ],
    }[mode]
    return "".join(f"{indent}{line}\n" for line in lines)


def cka_snippet(ref: ModelRef, texts: Sequence[str]) -> str:
    """A runnable program printing the layer x layer linear CKA (Kornblith et al. 2019) over
    the tokens of ``texts`` ([CLS]/[SEP] left out), as :func:`explorer.explain.layer_cka`;
    the namespace ends with ``states`` ``(L + 1, tokens, hidden)`` and ``cka``."""
    listed = "".join(f"    {literal(t)},\n" for t in texts)
    return (
        "import numpy as np\n" + model_preamble(ref) + f"\ntexts = [\n{listed}]\n"
        "layers = []\n"
        "for text in texts:\n"
        + _forward()
        + "    layers.append(x[:, ~special])  # the words' tokens, every layer\n"
        "states = torch.cat(layers, dim=1).numpy()  # (L + 1, tokens, hidden)\n\n\n"
        "def linear_cka(a, b):\n"
        '    """||B^T A||_F^2 / (||A^T A||_F ||B^T B||_F) for column-centred A, B."""\n'
        "    a, b = a - a.mean(axis=0), b - b.mean(axis=0)\n"
        "    return np.linalg.norm(b.T @ a) ** 2 / (np.linalg.norm(a.T @ a) * "
        "np.linalg.norm(b.T @ b))\n\n\n"
        "cka = np.array([[linear_cka(a, b) for b in states] for a in states])\n"
        "np.set_printoptions(precision=3, suppress=True, linewidth=160)\n"
        'print("rows and columns: layer 0 (embeddings) to", len(states) - 1)\n'
        "print(cka)\n"
    )


def classic_snippet(
    ref: ModelRef, sentences: Sequence[str], senses: Sequence[str], word: str
) -> str:
    """A runnable program printing, layer by layer, the self-similarity and maximum
    explainable variance of ``word`` over ``sentences`` (Ethayarajh 2019, before the
    anisotropy adjustment) and its leave-one-out nearest-centroid sense accuracy (Coenen et
    al. 2019) with the ``senses`` of the sentences. ``word`` must be one token of the model's
    vocabulary, once per sentence at least (its first occurrence counts). The namespace ends
    with ``vectors`` ``(L + 1, n, hidden)``, ``self_similarity``, ``mev`` and ``accuracy``."""
    if len(senses) != len(sentences):
        raise ValueError(f"Got {len(senses)} senses for {len(sentences)} sentences.")
    listed = "".join(
        f"    ({literal(sense)}, {literal(text)}),\n"
        for sense, text in zip(senses, sentences, strict=True)
    )
    return (
        "import numpy as np\n" + model_preamble(ref) + f"\nword = {literal(word)}\n"
        f"labelled = [\n{listed}]\n"
        "vectors = []\n"
        "for _, text in labelled:\n"
        + _forward()
        + "    tokens = tokenizer.convert_ids_to_tokens(inputs['input_ids'][0])\n"
        "    vectors.append(x[:, tokens.index(word)].numpy())  # its first occurrence\n"
        "vectors = np.stack(vectors, axis=1)  # (L + 1, n, hidden)\n"
        "unit = vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)\n"
        "n = unit.shape[1]\n\n"
        "# Self-similarity: the mean cosine between the word's vectors in different sentences.\n"
        "cosines = np.einsum('lih,ljh->lij', unit, unit)\n"
        "self_similarity = (cosines.sum(axis=(1, 2)) - n) / (n * (n - 1))\n"
        "# Maximum explainable variance: sigma_1^2 / sum sigma_i^2 of the (uncentred) vectors.\n"
        "values = np.linalg.svd(vectors, compute_uv=False) ** 2\n"
        "mev = values[:, 0] / values.sum(axis=1)\n\n"
        "# Nearest centroid, leave one out: each vector against every sense's centroid\n"
        "# computed without it (cosine), right when its own sense's centroid is closest.\n"
        "labels = np.array([sense for sense, _ in labelled])\n"
        "names = sorted(set(labels))\n"
        "accuracy = []\n"
        "for layer in vectors:\n"
        "    right = 0\n"
        "    for i, x_i in enumerate(layer):\n"
        "        others = np.arange(n) != i\n"
        "        best = max(\n"
        "            (s for s in names if (others & (labels == s)).any()),\n"
        "            key=lambda s: np.dot(c := layer[others & (labels == s)].mean(axis=0), x_i)\n"
        "            / (np.linalg.norm(c) * np.linalg.norm(x_i)),\n"
        "        )\n"
        "        right += best == labels[i]\n"
        "    accuracy.append(right / n)\n\n"
        'print("layer  self-similarity   MEV  sense accuracy")\n'
        "for layer in range(len(vectors)):\n"
        "    print(f'{layer:>5} {self_similarity[layer]:>16.3f} {mev[layer]:>5.3f} "
        "{accuracy[layer]:>15.3f}')\n"
    )
