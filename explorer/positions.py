"""Where a token is: the model's position embeddings (Wang and Chen 2020, "What Do Position
Embeddings Learn? An Empirical Study of Pre-Trained Language Model Positional Encoding").

BERT-family encoders with absolute positions add row ``p`` of a learned table (sinusoidal in
some DistilBERTs) to the token at position ``p``. :func:`position_table` reads that table, or
says that the model has none and what it uses instead; :func:`position_map` draws it in 2-D
(first two principal components, positions in order) and :func:`position_cosines` compares
every position with every other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from explorer.model import Model

RELATIVE = {
    "deberta": "no position table: its disentangled attention scores each pair of tokens by "
    "their contents and by their relative distance (He et al. 2021, DeBERTa), so positions "
    "enter inside every attention layer, not at the input",
    "deberta-v2": "no position table: its disentangled attention scores each pair of tokens by "
    "their contents and by their relative distance (He et al. 2021, DeBERTa), so positions "
    "enter inside every attention layer, not at the input",
}
"""What a model without an absolute table uses instead, by ``model_type``."""

ALSO_RELATIVE = {
    "mpnet": "MPNet also adds a relative-position bias to every attention score (distances "
    "grouped into buckets, as in T5), so the table is not all it knows of order",
}
"""What a model uses besides its absolute table, by ``model_type``."""


@dataclass(frozen=True)
class Positions:
    """A model's absolute position embeddings: ``table`` ``(positions, hidden)`` float32 (row
    ``i`` is position ``first + i`` of the model's own numbering) or ``None`` when it has no
    table; ``note`` says what else it uses (``""`` when nothing)."""

    table: np.ndarray | None
    first: int
    note: str


def position_table(model: Model) -> Positions:
    """The absolute position table of ``model`` (the embeddings' ``position_embeddings``),
    without the rows before ``padding_idx + 1`` that RoBERTa-style models never use, and
    limited to the positions the model reads (``model.max_length`` tokens); or no table with
    a note on what the model uses instead (:data:`RELATIVE`)."""
    embeddings = getattr(model.encoder, "embeddings", None)
    layer = getattr(embeddings, "position_embeddings", None)
    weight = getattr(layer, "weight", None)
    if weight is None:
        note = RELATIVE.get(
            model.model_type,
            "no absolute position table: the model encodes order some other way (inside its "
            "attention layers)",
        )
        return Positions(None, 0, note)
    first = 0 if layer.padding_idx is None else int(layer.padding_idx) + 1
    table = weight.detach().float().numpy()[first : first + model.max_length]
    return Positions(
        np.array(table, dtype=np.float32), first, ALSO_RELATIVE.get(model.model_type, "")
    )


def position_map(table: np.ndarray) -> np.ndarray:
    """``table`` ``(positions, hidden)`` on its first two principal components: ``(positions,
    2)`` float64, signs fixed so that the first position has non-negative coordinates."""
    x = np.asarray(table, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"A position table needs 2 or more rows; got shape {x.shape}.")
    x = x - x.mean(axis=0)
    with threadpool_limits(limits=1, user_api="blas"):
        _, _, vt = np.linalg.svd(x, full_matrices=False)
    coords = x @ vt[:2].T
    if coords.shape[1] < 2:
        coords = np.pad(coords, ((0, 0), (0, 2 - coords.shape[1])))
    return coords * np.where(coords[0] < 0, -1.0, 1.0)


def position_cosines(table: np.ndarray) -> np.ndarray:
    """Cosine of every position's vector with every other's: ``(positions, positions)``
    float64, 1 on the diagonal (a zero row gives 0)."""
    x = np.asarray(table, dtype=np.float64)
    unit = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    with threadpool_limits(limits=1, user_api="blas"):
        return unit @ unit.T
