"""The Layers page's "Show code": hidden states of every layer and one token's statistics."""

from __future__ import annotations

from explorer.codegen import literal, model_preamble


def layers_snippet(model_name: str, text: str, layer: int, token: int) -> str:
    """A runnable program printing what the Layers page shows for ``text``.

    It prints the shape of the stacked hidden states ``(layers + 1, tokens, hidden)`` and,
    for token ``token`` at layer ``layer`` (0 = embedding output), the mean, std
    (population, ``ddof=0``), L2 norm and max |value| of its vector. The exec namespace ends
    with ``hidden`` (NumPy ``(L + 1, T, H)``), ``vector``, ``mean``, ``std``, ``norm`` and
    ``max_abs``.
    """
    return (
        "import numpy as np\n" + model_preamble(model_name) + "\n"
        f"text = {literal(text)}\n"
        f"layer, token = {int(layer)}, {int(token)}  # layer 0 = embedding output\n\n"
        'inputs = tokenizer(text, return_tensors="pt", truncation=True)\n'
        "with torch.inference_mode():\n"
        "    outputs = model(**inputs, output_hidden_states=True)\n"
        "# A tuple of layers + 1 tensors (1, tokens, hidden): stack them, drop the batch axis.\n"
        "hidden = torch.stack(outputs.hidden_states)[:, 0].numpy()\n"
        'print("hidden states (layers + 1, tokens, hidden):", hidden.shape)\n\n'
        'tokens = tokenizer.convert_ids_to_tokens(inputs["input_ids"][0])\n'
        "vector = hidden[layer, token]\n"
        "mean, std = vector.mean(), vector.std()  # population std (ddof=0)\n"
        "norm, max_abs = np.linalg.norm(vector), np.abs(vector).max()\n"
        'print(f"layer {layer}, token {token}: {tokens[token]!r}")\n'
        'print(f"mean {mean:.4f}  std {std:.4f}  norm {norm:.4f}  max |value| {max_abs:.4f}")\n'
    )
