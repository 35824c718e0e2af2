"""A choice of vectors: which pooling, which layers, which subword mode, which post-processing.

:class:`VectorChoice` is one frozen, hashable value for the four choices a page, a cache key, a
saved corpus or a snippet carries. It is checked when it is made (an unknown name raises
``ValueError`` naming the valid ones), so whatever receives one need not check it again; only a
layer *number* waits for the model, whose depth says which numbers exist (:meth:`VectorChoice.
indices`, :meth:`VectorChoice.dim`).

The rules stay where their names live: the parts of a pooling (``mean_max`` is ``mean`` then
``max``) in :mod:`explorer.pooling`, the hidden states a layer choice takes and how many blocks
it puts side by side in :mod:`explorer.layers`, the subword modes in :mod:`explorer.subwords`, the
torch expressions in :mod:`explorer.expressions`. The value asks them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from explorer.expressions import pooled_layers_expression
from explorer.layers import (
    Layers,
    combine_layers,
    layer_choice,
    layer_indices,
    layers_label,
    layers_width,
)
from explorer.pooling import Pooling, pooling_parts, validate_pooling
from explorer.subwords import SubwordMode, validate_subwords

if TYPE_CHECKING:
    from explorer.model import Model

Postprocessing = Literal["none", "center", "standardize", "abtt"]
POSTPROCESSING: tuple[str, ...] = get_args(Postprocessing)
"""Every post-processing mode (:func:`explorer.explain.postprocess`), in the order a page lists
them. Named here, below the vector machinery that :mod:`explorer.explain` imports, so that the
choice can check a mode without importing it."""


POST_NAMES = {
    "none": "",
    "center": "mean-centred",
    "standardize": "standardized",
    "abtt": "all-but-the-top",
}
"""What a sentence about post-processed numbers says of each mode (nothing for none)."""


def validate_post(post: str) -> str:
    """Return ``post`` if it is one of :data:`POSTPROCESSING`, else raise ``ValueError``."""
    if post not in POSTPROCESSING:
        raise ValueError(f"Unknown post-processing {post!r}; choose one of {POSTPROCESSING}")
    return post


@dataclass(frozen=True)
class VectorChoice:
    """How token vectors become one vector: ``pooling`` over the tokens (of
    :data:`explorer.POOLINGS`), ``layers`` (a name of :data:`explorer.LAYER_CHOICES` or one
    layer's number), ``subwords`` (how a word's subwords combine, of
    :data:`explorer.SUBWORD_MODES`) and ``post`` (of :data:`POSTPROCESSING`).

    Equal by value and hashable, so it serves as a cache key. ``ValueError`` when made with an
    unknown name; a NumPy integer layer is kept as an ``int``.
    """

    pooling: Pooling = "mean"
    layers: Layers = "last"
    subwords: SubwordMode = "mean"
    post: Postprocessing = "none"

    def __post_init__(self) -> None:
        validate_pooling(self.pooling)
        object.__setattr__(self, "layers", layer_choice(self.layers))
        validate_subwords(self.subwords)
        validate_post(self.post)

    @property
    def parts(self) -> tuple[str, ...]:
        """The base poolings the vectors are made of, side by side in this order
        (:func:`explorer.pooling.pooling_parts`): ``("mean", "max")`` for ``mean_max``."""
        return pooling_parts(self.pooling)

    @property
    def label(self) -> str:
        """The choice in the words a sentence uses: ``"mean pooling, last layer"``, with the
        post-processing after it when there is one (``"..., post-processing: center"``)."""
        words = f"{self.pooling} pooling, {layers_label(self.layers).lower()}"
        return words if self.post == "none" else f"{words}, post-processing: {self.post}"

    @property
    def title(self) -> str:
        """The pooling and layers as a snippet's or a figure's heading writes them:
        ``"mean pooling · Last layer"``."""
        return f"{self.pooling} pooling · {layers_label(self.layers)}"

    @property
    def post_name(self) -> str:
        """What a sentence about the vectors' numbers says of the post-processing
        (:data:`POST_NAMES`: ``"mean-centred"``; empty for none)."""
        return POST_NAMES[self.post]

    def indices(self, num_layers: int) -> list[int]:
        """The hidden states (0 = embedding output, ``num_layers`` = last) the layer choice
        combines, in combination order (:func:`explorer.layers.layer_indices`). ``ValueError``
        for a layer number or a choice this depth does not have."""
        return layer_indices(self.layers, num_layers)

    def dim(self, model: Model | int) -> int:
        """Size of the vectors for ``model`` (a :class:`explorer.Model`, whose depth the layer
        choice is checked against) or for a hidden size: the hidden size, times 2 for
        ``mean_max``, times 4 for ``concat_last4``."""
        if isinstance(model, int | np.integer):
            hidden = int(model)
        else:
            self.indices(model.num_layers)
            hidden = model.hidden_size
        return hidden * len(self.parts) * layers_width(self.layers)

    def combine(self, pooled: Mapping[str, np.ndarray]) -> np.ndarray:
        """Sentence vectors from per-layer pooled vectors: ``pooled`` maps each base pooling
        the choice needs (:attr:`parts`) to ``(num_layers + 1, n, hidden)``; each part has its
        layers combined (:func:`explorer.layers.combine_layers`), then the parts are put side
        by side. Returns ``(n, dim(hidden))`` float32. Pooling each layer first lets one forward
        pass serve every choice (:mod:`explorer.pooling`)."""
        blocks = [combine_layers(pooled[name], self.layers) for name in self.parts]
        return blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=-1)

    def expression(self) -> str:
        """The torch expression a snippet writes for the sentence vectors, from the pooled
        stacks :func:`explorer.expressions.pooled_lines` assigns
        (``"mean[L]"``, ``"torch.cat([mean[L], maxed[L]], dim=-1)"``)."""
        return pooled_layers_expression(self.pooling, self.layers)

    def replace(self, **changes) -> VectorChoice:
        """A copy with ``changes`` (checked as when made)."""
        return dataclasses.replace(self, **changes)


def vector_choice(
    choice: VectorChoice | str | None = None,
    layers: Layers | None = None,
    subwords: str | None = None,
    post: str | None = None,
) -> VectorChoice:
    """The :class:`VectorChoice` a function was given, in either form its callers use: a
    choice, returned as it is, or the separate arguments (a ``pooling`` name, ``layers``,
    ``subwords``, ``post``), each left out (``None``) taking the default.

    This is the one place the separate arguments become a value, so a library function keeps
    accepting them with the same behaviour. ``ValueError`` for a choice with separate
    arguments beside it (which should win is not clear) or an unknown name."""
    given = {
        name: value
        for name, value in (("layers", layers), ("subwords", subwords), ("post", post))
        if value is not None
    }
    if isinstance(choice, VectorChoice):
        if given:
            raise ValueError(
                f"Give a VectorChoice or separate names, not both: {choice!r} with {given}."
            )
        return choice
    if choice is not None:
        given["pooling"] = choice
    return VectorChoice(**given)
