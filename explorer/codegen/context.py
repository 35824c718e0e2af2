""" "Show code" for the "Word in context" page: the similarity matrix of a word's occurrences."""

from __future__ import annotations

from collections.abc import Sequence

from explorer.choice import VectorChoice, vector_choice
from explorer.codegen import literal, model_preamble
from explorer.expressions import NUM_LAYERS, layers_expression, subwords_expression
from explorer.layers import Layers, layers_label
from explorer.model.ref import ModelRef


def context_snippet(
    ref: ModelRef,
    sentences: Sequence[str],
    word: str,
    layers: VectorChoice | Layers = "last",
    subwords: str | None = None,
    *,
    post: str | None = None,
    senses: Sequence[str | None] | None = None,
) -> str:
    """A runnable program printing the cosine-similarity matrix of ``word``'s occurrences.

    It finds the word's subword tokens with the tokenizer's ``word_ids`` and offsets (the
    same whole-word, normalized matching as :func:`explorer.find_occurrences`), takes all
    hidden states, combines subwords with ``subwords`` and layers as ``layers`` says,
    optionally post-processing every layer first with ``post`` (the statistics of all
    non-special tokens of that layer: ``center`` subtracts their mean;
    :func:`explorer.explain.postprocess_layers`), and leaves the ``(n, n)`` matrix in the
    variable ``similarity``. Then it prints what the page's headline quotes: with ``senses``
    (one per sentence, ``None`` when unlabelled) the mean same-sense and different-sense
    cosines, their gap and the gap at every layer, else the most and least similar pair; and
    the pairs from one sentence against the others.

    ``layers`` is the page's :class:`~explorer.VectorChoice` (its layers, subwords and
    post-processing; its pooling is unused: a word's vector is its subwords'), or a layer
    choice with ``subwords`` (default ``mean``) and ``post`` (default ``none``) beside it.
    """
    from explorer.codegen.explain import postprocess_lines

    if isinstance(layers, VectorChoice):
        choice = vector_choice(layers, subwords=subwords, post=post)
    else:
        choice = vector_choice(None, layers, subwords, post)
    layers, subwords, post = choice.layers, choice.subwords, choice.post
    combine_subwords = subwords_expression(subwords, "span", token_axis=1)
    combine = layers_expression(layers, "occurrences")
    listed = "".join(f"    {literal(s)},\n" for s in sentences)
    centring = (
        "# Mean-centring: subtract each layer's mean over all non-special tokens.\n"
        "mean = torch.cat(token_states, dim=1).mean(dim=1, keepdim=True)  # (L+1, 1, hidden)\n"
        "occurrences = occurrences - mean\n"
        if post == "center"
        else ""
    )
    if post not in ("none", "center"):
        centring = (
            f"# Post-processing ({post}) at every layer, with the statistics of all\n"
            "# non-special tokens of that layer.\n"
            "states = torch.cat(token_states, dim=1).double().numpy()  # (L+1, tokens, hidden)\n"
            "processed = []\n"
            "for layer, ref in zip(occurrences.double().numpy(), states):\n"
            + postprocess_lines(post, "layer", "layer", reference="ref", indent="    ")
            + "    processed.append(layer)\n"
            "occurrences = torch.from_numpy(np.stack(processed))\n"
        )
    return (
        "import numpy as np\n"
        + model_preamble(ref)
        + f"\nsentences = [\n{listed}]\n"
        + f"word = {literal(word.strip())}\n"
        + f"senses = {literal(list(senses) if senses is not None else [None] * len(sentences))}"
        + "  # each sentence's sense (None: unlabelled)\n\n"
        + NUM_LAYERS
        + "normalizer = tokenizer.backend_tokenizer.normalizer  # lower-cases uncased models\n"
        "normalize = normalizer.normalize_str if normalizer else (lambda s: s)\n\n\n"
        "def words_of(text, encoding):\n"
        '    """(first token, end token, normalized word) for every word of one text."""\n'
        "    spans = {}\n"
        "    for i, word_id in enumerate(encoding.word_ids()):\n"
        "        if word_id is not None:\n"
        "            start, end = encoding['offset_mapping'][i]\n"
        "            span = spans.setdefault(word_id, [i, i + 1, start, end])\n"
        "            span[1], span[3] = i + 1, end\n"
        "    return [(a, b, normalize(text[s:e]).strip()) for a, b, s, e in spans.values()]\n\n\n"
        "target = [w for *_, w in words_of(word, tokenizer(word, return_offsets_mapping=True))]\n"
        "labels, vectors, token_states, where = [], [], [], []\n"
        "for n, text in enumerate(sentences, start=1):\n"
        "    encoding = tokenizer(text, truncation=True, return_offsets_mapping=True)\n"
        "    inputs = tokenizer(text, truncation=True, return_tensors='pt')\n"
        "    with torch.inference_mode():\n"
        "        output = model(**inputs, output_hidden_states=True)\n"
        "    stack = torch.stack(output.hidden_states)[:, 0]  # (layers + 1, tokens, hidden)\n"
        "    is_word = torch.tensor([w is not None for w in encoding.word_ids()])\n"
        "    token_states.append(stack[:, is_word])  # every token but [CLS]/[SEP]\n"
        "    words = words_of(text, encoding)\n"
        "    for i in range(len(words) - len(target) + 1):\n"
        "        if [w for *_, w in words[i : i + len(target)]] == target:\n"
        "            span = stack[:, words[i][0] : words[i + len(target) - 1][1]]\n"
        f"            vectors.append({combine_subwords})  # subwords -> (layers + 1, hidden)\n"
        "            labels.append(f'#{len(labels) + 1} (sentence {n})')\n"
        "            where.append(n - 1)\n\n"
        "occurrences = torch.stack(vectors, dim=1)  # (layers + 1, n, hidden)\n"
        + centring
        + f"combined = {combine}  # {layers_label(layers)}: (n, dim)\n"
        "unit = torch.nn.functional.normalize(combined.double(), dim=-1)\n"
        "similarity = (unit @ unit.T).numpy()\n"
        "np.set_printoptions(precision=3, suppress=True, linewidth=120)\n"
        "print(labels)\n"
        "print(similarity)\n" + HEADLINE
    )


HEADLINE = """
# The page's headline: the pairs' cosines under this choice, and at every layer.
first, second = np.triu_indices(len(labels), k=1)
pairs = similarity[first, second]
unit = torch.nn.functional.normalize(occurrences.double(), dim=-1)
by_layer = (unit @ unit.transpose(1, 2)).numpy()[:, first, second]  # (layers + 1, pairs)
sense = [senses[n] and senses[n].casefold() for n in where]
kind = np.array([
    'same sentence' if where[a] == where[b]
    else 'unlabelled' if sense[a] is None or sense[b] is None
    else 'same sense' if sense[a] == sense[b] else 'different senses'
    for a, b in zip(first, second)
])
same, different = kind == 'same sense', kind == 'different senses'
if same.any() and different.any():
    print(f'same sense {pairs[same].mean():.2f}, different senses '
          f'{pairs[different].mean():.2f}: gap {pairs[same].mean() - pairs[different].mean():.2f}')
    gaps = by_layer[:, same].mean(axis=1) - by_layer[:, different].mean(axis=1)
    print('gap by layer:', ', '.join(f'{layer}: {gap:.2f}' for layer, gap in enumerate(gaps)))
elif len(pairs):  # (a word met once has no pair)
    high, low = pairs.argmax(), pairs.argmin()
    print(f'most similar {labels[first[high]]} vs {labels[second[high]]}: {pairs[high]:.2f}')
    print(f'least similar {labels[first[low]]} vs {labels[second[low]]}: {pairs[low]:.2f}')
together = kind == 'same sentence'
if together.any() and not together.all():
    print(f'pairs from one sentence {pairs[together].mean():.2f}, '
          f'the others {pairs[~together].mean():.2f}')
"""
