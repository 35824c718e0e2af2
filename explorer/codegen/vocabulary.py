""" "Show code" for the Tokens page's vocabulary map: the input embedding table, its PCA, the
kinds of pieces, and a piece's nearest pieces in the table beside its nearest tokens in a text."""

from __future__ import annotations

from explorer.codegen import literal, model_preamble
from explorer.codegen.explain import _forward
from explorer.model.ref import ModelRef


def vocabulary_snippet(ref: ModelRef, text: str, piece: str, k: int = 10) -> str:
    """A runnable program printing what :func:`explorer.figures.vocabulary.vocabulary_notice`
    quotes: the count of each kind, the mean first principal coordinate of continuations and
    whole words with its standard deviation, ``piece``'s ``k`` nearest pieces in the static
    table and its ``k`` nearest tokens of ``text`` at the last layer. The namespace ends with
    ``table``, ``kinds``, ``xy``, ``near`` and ``context`` (``(token, contextual, static)``)."""
    return (
        "import unicodedata\n\nimport numpy as np\n"
        + model_preamble(ref)
        + f"\ntext = {literal(text)}\npiece = {literal(piece)}\nk = {int(k)}\n\n"
        "# The input embedding table: one row per piece of the vocabulary.\n"
        "table = model.get_input_embeddings().weight.detach()[: len(tokenizer)]\n"
        "table = table.double().numpy()\n"
        "pieces = tokenizer.convert_ids_to_tokens(list(range(len(table))))\n"
        "specials = set(tokenizer.all_special_ids)\n"
        'marked = any(p.startswith(("Ġ", "▁")) for p in pieces[:5000])  # BPE / SentencePiece\n\n\n'
        "def kind(i, piece):\n"
        "    if i in specials:\n"
        '        return "special"\n'
        '    body = piece[2:] if piece.startswith("##") else piece\n'
        '    body = body[1:] if body[:1] in ("Ġ", "▁") else body\n'
        "    if body.isdigit():\n"
        '        return "number"\n'
        '    if body and all(unicodedata.category(c)[0] in "PS" for c in body):\n'
        '        return "punctuation"\n'
        '    if piece.startswith("##") or (marked and not piece.startswith(("Ġ", "▁"))):\n'
        '        return "continuation"\n'
        '    return "whole word"\n\n\n'
        "kinds = np.array([kind(i, p) for i, p in enumerate(pieces)])\n"
        'for name in ("whole word", "continuation", "special", "number", "punctuation"):\n'
        "    print(f'{(kinds == name).sum():,} {name}')\n\n"
        "# PCA: the two directions of largest variance of the centred table.\n"
        "centred = table - table.mean(axis=0)\n"
        "values, vectors = np.linalg.eigh(centred.T @ centred)  # ascending order\n"
        "shares = values[[-1, -2]] / values.clip(0).sum()\n"
        'print(f"the two axes hold {shares[0]:.1%} and {shares[1]:.1%} of the variance")\n'
        "xy = centred @ vectors[:, [-1, -2]]\n"
        "x = xy[:, 0]\n"
        "print(f\"PC 1: continuations average {x[kinds == 'continuation'].mean():+.2f}, \"\n"
        "      f\"whole words {x[kinds == 'whole word'].mean():+.2f}, \"\n"
        '      f"standard deviation {x.std(ddof=1):.2f}")\n\n'
        "# The nearest pieces in the static table, by cosine (the piece itself left out).\n"
        "at = tokenizer.convert_tokens_to_ids(piece)\n"
        "norms = np.linalg.norm(table, axis=1)\n"
        "norms[norms == 0] = 1.0\n"
        "cosines = table @ table[at] / (norms * norms[at])\n"
        "cosines[at] = -np.inf\n"
        'best = np.argsort(-cosines, kind="stable")[:k]\n'
        "near = [(pieces[i], cosines[i]) for i in best]\n"
        'print(f"nearest pieces of {piece} in the static table:")\n'
        "for name, cosine in near:\n"
        "    print(f'  {name:<15} {cosine:.3f}')\n\n"
        "# Its nearest tokens in the text at the last layer, beside the same pair in the table.\n"
        + _forward("")
        + "tokens = tokenizer.convert_ids_to_tokens(inputs['input_ids'][0])\n"
        "ids = inputs['input_ids'][0].numpy()\n"
        "states = x[-1].numpy()\n"
        "where = tokens.index(piece) if piece in tokens else None  # its first occurrence\n\n\n"
        "def cosine(a, b):\n"
        "    scale = np.linalg.norm(a) * np.linalg.norm(b)\n"
        "    return a @ b / scale if scale else 0.0\n\n\n"
        "if where is None:\n"
        '    print(f"the text does not hold {piece}")\n'
        "others = [i for i in range(len(tokens)) if where not in (None, i) and not special[i]]\n"
        "others.sort(key=lambda i: -cosine(states[i], states[where]))\n"
        "context = [\n"
        "    (tokens[i], cosine(states[i], states[where]),\n"
        "     cosine(table[ids[i]], table[ids[where]]))\n"
        "    for i in others[:k]\n"
        "]\n"
        'print(f"nearest tokens of {piece} in the text (contextual, static):")\n'
        "for token, in_context, static in context:\n"
        "    print(f'  {token:<15} {in_context:.3f} {static:.3f}')\n"
        "shared = [name for name, _ in near if name in {t for t, _, _ in context}]\n"
        'print(f"{len(shared)} of its {len(near)} nearest static pieces are among its "\n'
        '      f"{len(context)} nearest tokens in the text: {shared}")\n'
    )
