"""The Layers page's "Show code": hidden states of every layer and one token's statistics."""

from __future__ import annotations

from explorer.codegen import literal, model_preamble
from explorer.model.ref import ModelRef


def layers_snippet(
    ref: ModelRef, text: str, layer: int, token: int, include_special: bool = True
) -> str:
    """A runnable program printing what the Layers page shows for ``text``.

    It prints the shape of the stacked hidden states ``(layers + 1, tokens, hidden)``, the
    page's summary of every layer (its headline's numbers: mean norm, top dimension and its
    |value| in stds, over every token or, without ``include_special``, the others; token
    ``token``'s norm and cosine with the layer before) and,
    for token ``token`` at layer ``layer`` (0 = embedding output), the mean, std
    (population, ``ddof=0``), L2 norm and max |value| of its vector. The exec namespace ends
    with ``hidden`` (NumPy ``(L + 1, T, H)``), ``vector``, ``mean``, ``std``, ``norm`` and
    ``max_abs``.
    """
    return (
        "import numpy as np\n" + model_preamble(ref) + "\n"
        f"text = {literal(text)}\n"
        f"layer, token = {int(layer)}, {int(token)}  # layer 0 = embedding output\n\n"
        'inputs = tokenizer(text, return_tensors="pt", truncation=True)\n'
        "with torch.inference_mode():\n"
        "    outputs = model(**inputs, output_hidden_states=True)\n"
        "# A tuple of layers + 1 tensors (1, tokens, hidden): stack them, drop the batch axis.\n"
        "hidden = torch.stack(outputs.hidden_states)[:, 0].numpy()\n"
        'print("hidden states (layers + 1, tokens, hidden):", hidden.shape)\n\n'
        f"# Every layer at a glance (special tokens counted: {bool(include_special)})\n"
        + (
            "used = hidden\n"
            if include_special
            else "special = tokenizer.get_special_tokens_mask(\n"
            '    inputs["input_ids"][0].tolist(), already_has_special_tokens=True\n'
            ")\n"
            "used = hidden[:, [not s for s in special]]\n"
        )
        + "sigma = used.reshape(len(used), -1).std(axis=1)  # each layer's std of all values\n"
        "peaks = np.abs(used).max(axis=1)  # (layers + 1, hidden): largest |value| per dimension\n"
        "top = peaks.argmax(axis=1)\n"
        "word = hidden[:, token]\n"
        "norms = np.linalg.norm(word, axis=1)\n"
        "change = (word[1:] * word[:-1]).sum(axis=1) / (norms[1:] * norms[:-1])\n"
        'print("layer  mean norm  top dimension  |value| / std  token norm  cosine to previous")\n'
        "for i in range(len(hidden)):\n"
        "    mean_norm = np.linalg.norm(used[i], axis=1).mean()\n"
        "    previous = f'{change[i - 1]:.2f}' if i else ''\n"
        "    sigmas = peaks[i, top[i]] / sigma[i]\n"
        "    print(f'{i:>5} {mean_norm:>10.2f} {top[i]:>14} {sigmas:>14.1f} '\n"
        "          f'{norms[i]:>11.2f} {previous:>19}')\n\n"
        'tokens = tokenizer.convert_ids_to_tokens(inputs["input_ids"][0])\n'
        "vector = hidden[layer, token]\n"
        "mean, std = vector.mean(), vector.std()  # population std (ddof=0)\n"
        "norm, max_abs = np.linalg.norm(vector), np.abs(vector).max()\n"
        'print(f"layer {layer}, token {token}: {tokens[token]!r}")\n'
        'print(f"mean {mean:.4f}  std {std:.4f}  norm {norm:.4f}  max |value| {max_abs:.4f}")\n'
    )
