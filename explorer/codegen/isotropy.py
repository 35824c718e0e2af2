""" "Show code" for How contextual?'s isotropy view: IsoScore (Rudman et al. 2022) of every
layer's tokens beside their average cosine."""

from __future__ import annotations

from collections.abc import Sequence

from explorer.codegen import literal, model_preamble
from explorer.codegen.explain import _forward
from explorer.model.ref import ModelRef


def isoscore_snippet(ref: ModelRef, texts: Sequence[str]) -> str:
    """A runnable program printing, layer by layer, the IsoScore of all the tokens of
    ``texts`` ([CLS]/[SEP] left out), the number of dimensions it stands for, and the average
    cosine of tokens from different texts (every such pair; the page samples pairs). The
    IsoScores equal the ``isoscore`` column of :func:`explorer.explain.classic_measures`; the
    namespace ends with ``states`` ``(L + 1, tokens, hidden)``, ``scores`` and ``cosines``."""
    listed = "".join(f"    {literal(t)},\n" for t in texts)
    return (
        "import numpy as np\n" + model_preamble(ref) + f"\ntexts = [\n{listed}]\n"
        "layers, owner = [], []\n"
        "for n, text in enumerate(texts):\n"
        + _forward()
        + "    layers.append(x[:, ~special].numpy())  # every token but [CLS]/[SEP]\n"
        "    owner += [n] * int((~special).sum())\n"
        "states = np.concatenate(layers, axis=1)  # (L + 1, tokens, hidden)\n"
        "owner = np.array(owner)\n\n\n"
        "def isoscore(points):\n"
        '    """IsoScore (Rudman et al. 2022) of points (m, n): 1 isotropic, 0 one direction."""\n'
        "    m, n = points.shape\n"
        "    centred = points - points.mean(axis=0)\n"
        "    # 1-2. The variance along each principal axis: the covariance's eigenvalues.\n"
        "    values = np.linalg.eigvalsh(centred.T @ centred if m >= n else centred @ centred.T)\n"
        "    variances = np.zeros(n)\n"
        "    variances[: len(values)] = np.clip(values[::-1], 0, None) / (m - 1)\n"
        "    # 3. Scaled to length sqrt(n), that of an isotropic cloud's diagonal (all ones).\n"
        "    diagonal = variances * np.sqrt(n) / np.linalg.norm(variances)\n"
        "    # 4. Isotropy defect: the distance from all ones, 0 (isotropic) to 1 (one axis).\n"
        "    defect = np.linalg.norm(diagonal - 1) / np.sqrt(2 * (n - np.sqrt(n)))\n"
        "    # 5. The fraction of the dimensions used, 1 / n to 1.\n"
        "    used = (n - defect**2 * (n - np.sqrt(n))) ** 2 / n**2\n"
        "    # 6. Rescaled to run from 0 to 1.\n"
        "    return (n * used - 1) / (n - 1)\n\n\n"
        "def average_cosine(points):\n"
        '    """Mean cosine of every pair of tokens from different texts."""\n'
        "    unit = points / np.linalg.norm(points, axis=1, keepdims=True)\n"
        "    total = unit.sum(axis=0)\n"
        "    sums = [unit[owner == t].sum(axis=0) for t in np.unique(owner)]\n"
        "    same = sum(v @ v for v in sums)  # pairs within a text, each token with itself too\n"
        "    pairs = len(unit) ** 2 - (np.bincount(owner) ** 2).sum()\n"
        "    return (total @ total - same) / pairs\n\n\n"
        "scores = [isoscore(layer) for layer in states]\n"
        "cosines = [average_cosine(layer) for layer in states]\n"
        "hidden = states.shape[2]\n"
        'print("layer  IsoScore  dimensions used evenly  average cosine")\n'
        "for layer, (score, cosine) in enumerate(zip(scores, cosines)):\n"
        "    used = 1 + score * (hidden - 1)\n"
        "    print(f'{layer:>5} {score:>9.3f} {used:>16.0f} of {hidden} {cosine:>14.3f}')\n"
    )
