"""The Projections page's settings: how texts become vectors (pooling, layers, the map to
compare with) and how vectors become a map (method, dimensions, the method's own slider and
seed, as one :class:`~explorer.maps.ProjectionParams`)."""

from __future__ import annotations

from collections.abc import Sequence

from explorer import maps
from explorer.choice import VectorChoice
from explorer.layers import LAYER_CHOICES
from explorer.maps import ProjectionParams
from explorer.ui import messages
from explorer.ui.projection_maps._compare import COMPARISONS
from explorer.ui.widgets import (
    choose,
    layers_select,
    option_labels,
    pooling_select,
    postprocess_select,
)

LIMITS_NOTE = (
    "Uploaded vectors are drawn as they are: pooling, layers, layers in motion, custom axes "
    "and comparisons with other settings need texts embedded by the explorer."
)
"""What uploaded vectors cannot do (they carry no model and one layer)."""

SETTINGS = {
    "umap": (
        "Neighbours (UMAP)",
        "n_neighbors",
        15,
        "How many neighbours shape each point's surroundings: small values show fine local "
        "structure, large values the global shape.",
    ),
    "tsne": (
        "Perplexity (t-SNE)",
        "perplexity",
        30,
        "Roughly the number of neighbours each point pays attention to.",
    ),
}
"""Each method's own slider: label, :class:`ProjectionParams` field, default, help."""


def projection_controls(prefix: str, top: Sequence, bottom: Sequence) -> ProjectionParams:
    """The method and dimension radios (in ``top[0]``, ``top[1]``) and the method's own
    settings (in ``bottom[0]``, ``bottom[1]``), as :class:`ProjectionParams`."""
    method = top[0].radio(
        "Method",
        maps.PROJECTIONS,
        format_func=maps.LABELS.get,
        horizontal=True,
        key=f"{prefix}.method",
        bind="query-params",
    )
    dims = top[1].radio(
        "Dimensions",
        maps.DIMENSIONS,
        format_func=option_labels((k, f"{k}-D") for k in maps.DIMENSIONS),
        horizontal=True,
        key=f"{prefix}.dims",
        bind="query-params",
    )
    settings: dict[str, float] = {}
    if method in SETTINGS:
        label, field, default, help = SETTINGS[method]
        settings[field] = bottom[0].slider(
            label, 2, 100, default, key=f"{prefix}.{field}", help=help
        )
    if method == "umap":
        settings["random_state"] = bottom[1].number_input(
            "Random seed",
            0,
            9999,
            0,
            key=f"{prefix}.seed",
            help="UMAP is random: another seed gives another (equally valid) picture, and a "
            "fixed seed makes it reproducible. (t-SNE starts from the PCA layout here, so it "
            "needs no seed.)",
        )
    params = ProjectionParams(method, dims, **settings)
    return params


def embedding_controls(
    middle: Sequence, bottom: Sequence, *, words: bool, uploaded: bool, cls_token: str | None = None
):
    """Pooling (sentence maps) in ``middle[0]``, layers and post-processing in ``middle[1]``
    and the map to compare with in ``bottom[2]``: ``(choice, compare)``, the
    :class:`explorer.VectorChoice` of the points (a word map's keeps the default pooling,
    which does not apply to it). Uploaded vectors have none of them (``(None, "none")``,
    saying why in ``middle[0]``). ``cls_token``: the model's first token, as the pooling menu
    names it (``None``: "First token")."""
    if uploaded:
        messages.caption(LIMITS_NOTE, middle[0])
        return None, "none"
    pooling = (
        "mean" if words else pooling_select(middle[0], "projections.pooling", cls_token=cls_token)
    )
    layers = layers_select(
        middle[1],
        "projections.layers",
        LAYER_CHOICES,
        help="Which hidden layers are used, and how they are combined (after pooling each one).",
    )
    compare = choose(
        bottom[2],
        "Compare with",
        [c for c in COMPARISONS if not (words and c == "poolings")],
        COMPARISONS.get,
        "projections.compare",
        "none",
        "A second map of the same texts: under the same architecture with untrained weights "
        "(what training added), another layer choice, or every pooling; points selected on one "
        "map are ringed on the other.",
    )
    post = postprocess_select(
        middle[1],
        "projections.post",
        help="Applied to the vectors before the map is fitted (and to its neighbours), with "
        "the statistics of the points on the map: a few rogue dimensions with huge values "
        "dominate raw cosines and distances. Texts embedded here only: a saved corpus is drawn "
        "as it was saved.",
    )
    return VectorChoice(pooling, layers, post=post), compare
