""" "Show code" for the Layers page's "Where is a token?" section: the absolute position table,
its first two principal components and the cosine of every position with every other."""

from __future__ import annotations

from explorer.codegen import literal, model_preamble
from explorer.model.ref import ModelRef

NO_TABLE = (
    "no absolute position table: the model encodes order some other way (inside its "
    "attention layers)"
)
"""What the snippet prints for a model without a table when the page gives no better note."""


def positions_snippet(ref: ModelRef, note: str = "") -> str:
    """A runnable program printing what :func:`explorer.figures.positions.position_notice`
    quotes: the number of positions, the first one's number, and the mean cosine of positions
    1, 10 and 100 apart; with the first positions' coordinates on the first two principal
    components. ``note``: :attr:`explorer.positions.Positions.note` (for a model without a
    table, what it uses instead, printed as the page says it). The namespace ends with
    ``table`` ``(positions, hidden)`` (``None`` without a table), ``first``, ``xy`` and
    ``cosines`` as :mod:`explorer.positions` computes them."""
    return (
        "import numpy as np\n" + model_preamble(ref) + f"\nnote = {literal(note)}\n\n"
        "# The table added to the input: row p goes to the token at position p.\n"
        'layer = getattr(getattr(model, "embeddings", None), "position_embeddings", None)\n'
        "table = first = xy = cosines = None\n"
        "if layer is None:\n"
        f'    print(f"This model has {{note or {literal(NO_TABLE)}}}.")\n'
        "else:\n"
        "    # RoBERTa-style models number positions from padding_idx + 1 (rows before: unused).\n"
        "    first = 0 if layer.padding_idx is None else layer.padding_idx + 1\n"
        "    weight = layer.weight.detach().double().numpy()\n"
        "    table = weight[first:][: tokenizer.model_max_length]  # the positions it reads\n\n"
        "    # PCA: the centred table on its two directions of largest variance.\n"
        "    centred = table - table.mean(axis=0)\n"
        "    _, _, directions = np.linalg.svd(centred, full_matrices=False)\n"
        "    xy = centred @ directions[:2].T\n"
        "    xy = xy * np.where(xy[0] < 0, -1.0, 1.0)  # signs: the first position non-negative\n\n"
        "    # The cosine of every position with every other.\n"
        "    unit = table / np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1e-12)\n"
        "    cosines = unit @ unit.T\n\n"
        '    print(f"{len(table)} positions (from {first}), {table.shape[1]} numbers each")\n'
        '    print("the first positions on the two principal components:")\n'
        "    for p in range(min(5, len(xy))):\n"
        "        print(f'  position {first + p:>4}: {xy[p, 0]:+.3f} {xy[p, 1]:+.3f}')\n"
        '    print("mean cosine of positions g apart:")\n'
        "    for g in (1, 10, 100):\n"
        "        if g < len(table):\n"
        "            mean = np.diagonal(cosines, offset=g).mean()\n"
        "            print(f'  g = {g:>3}: {round(mean, 2) + 0.0:.2f} ({mean:.4f})')\n"
        "    if note:\n"
        "        print(note)\n"
    )
