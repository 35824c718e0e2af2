""" "Show code" for the Attention page's head ablation: heads switched off with a forward
pre-hook on each layer's attention output projection, and the page's numbers printed."""

from __future__ import annotations

from explorer.codegen import literal, model_preamble
from explorer.context.sentences import DEFAULT_SENSES, DEFAULT_SENTENCES, DEFAULT_WORD
from explorer.model.ref import ModelRef


def ablation_snippet(ref: ModelRef, heads: dict, first: str, second: str) -> str:
    """A runnable program printing the sense gap of Word in context's "bank" example and the
    cosine of ``first`` and ``second`` (mean of the last layer's token vectors), with all heads
    and with ``heads`` (``{layer: [head, ...]}``, from 1) switched off."""
    chosen = {int(layer): [int(h) for h in hs] for layer, hs in sorted(heads.items())}
    sentences = "".join(f"    {literal(s)},\n" for s in DEFAULT_SENTENCES)
    return (
        model_preamble(ref) + "import re\n\n"
        f"OFF = {literal(chosen)}  # {{layer: [head, ...]}}, counted from 1\n"
        "NAMES = (  # each family's attention output projection (layer counted from 0)\n"
        '    r"layer\\.(\\d+)\\.attention\\.output\\.dense$",  # BERT, RoBERTa, ELECTRA, ...\n'
        '    r"layer\\.(\\d+)\\.attention\\.out_lin$",  # DistilBERT\n'
        '    r"layer\\.(\\d+)\\.attention\\.attn\\.o$",  # MPNet\n'
        '    r"layers\\.(\\d+)\\.attn\\.Wo$",  # ModernBERT\n'
        ")\n"
        "heads = model.config.num_attention_heads\n"
        "switched_off = {}  # {layer from 0: heads from 0} while a pass should ablate\n\n\n"
        "def zero_heads(layer, width):\n"
        "    def hook(module, args):  # args[0]: the heads' context vectors, concatenated\n"
        "        if layer not in switched_off:\n"
        "            return None\n"
        "        context = args[0].clone()\n"
        "        for head in switched_off[layer]:\n"
        "            context[..., head * width : (head + 1) * width] = 0\n"
        "        return (context, *args[1:])\n\n"
        "    return hook\n\n\n"
        "for name, module in model.named_modules():\n"
        "    for pattern in NAMES:\n"
        "        if match := re.search(pattern, name):\n"
        "            width = module.in_features // heads\n"
        "            module.register_forward_pre_hook(zero_heads(int(match.group(1)), width))\n\n\n"
        "def last_layer(text):\n"
        '    batch = tokenizer(text, return_tensors="pt", return_offsets_mapping=True)\n'
        '    offsets = batch.pop("offset_mapping")[0]\n'
        "    with torch.inference_mode():\n"
        "        return model(**batch).last_hidden_state[0], offsets\n\n\n"
        "def cosine(a, b):\n"
        "    return torch.nn.functional.cosine_similarity(a, b, dim=0).item()\n\n\n"
        f"SENTENCES = [\n{sentences}]\n"
        f"SENSES = {literal(list(DEFAULT_SENSES))}\n\n\n"
        "def measures():\n"
        f"    # Sense gap: the {DEFAULT_WORD!r} vectors (mean of its pieces), same-sense minus\n"
        "    # different-sense mean cosine over every pair of sentences.\n"
        "    words = []\n"
        "    for sentence in SENTENCES:\n"
        "        states, offsets = last_layer(sentence)\n"
        f'        start, end = re.search(r"\\b{DEFAULT_WORD}\\b", sentence.lower()).span()\n'
        "        inside = (offsets[:, 0] >= start) & (offsets[:, 1] <= end) & (offsets[:, 1] > 0)\n"
        "        words.append(states[inside].mean(dim=0))\n"
        "    same, different = [], []\n"
        "    for i in range(len(words)):\n"
        "        for j in range(i + 1, len(words)):\n"
        "            kind = same if SENSES[i] == SENSES[j] else different\n"
        "            kind.append(cosine(words[i], words[j]))\n"
        "    gap = sum(same) / len(same) - sum(different) / len(different)\n"
        "    # Cosine of two sentences: the mean of each one's last-layer token vectors.\n"
        f"    a = last_layer({literal(first)})[0].mean(dim=0)\n"
        f"    b = last_layer({literal(second)})[0].mean(dim=0)\n"
        "    return gap, cosine(a, b)\n\n\n"
        "full = measures()\n"
        "switched_off.update({layer - 1: [h - 1 for h in hs] for layer, hs in OFF.items()})\n"
        "ablated = measures()\n"
        "switched_off.clear()\n"
        'for label, before, after in zip(["sense gap", "sentence cosine"], full, ablated):\n'
        '    print(f"{label}: all heads {before:.4f}, heads off {after:.4f}, "\n'
        '          f"change {after - before:+.4f}")\n'
    )
