"""Word in context: the word's vectors and the sentences' token vectors post-processed layer
by layer before their cosines (none, centre, standardize, all-but-the-top), with the
sentences' own tokens as the reference, and what the top rogue dimensions carried.

The reference is every token of the sentences on screen ([CLS] and [SEP] left out), the
tokens the page's mean-centring always used: dozens to thousands of vectors per layer, enough
for steady statistics, and they are the sentences being compared."""

from __future__ import annotations

import numpy as np

from explorer.choice import VectorChoice
from explorer.explain import LABELS, postprocess_layers, rogue_sentence, rogue_share
from explorer.layers import combine_layers, layers_label
from explorer.ui import compute
from explorer.ui.widgets import postprocess_select

TITLES = {
    "none": "",
    "center": " (mean-centred)",
    "standardize": " (standardized)",
    "abtt": " (all-but-the-top)",
}
"""What the charts' titles add for each post-processing."""


def post_select(container) -> str:
    """The page's "Post-processing" choice (default none)."""
    return postprocess_select(
        container,
        "context.post",
        help="Applied at every layer before the cosines, with the statistics of all tokens of "
        "these sentences (the special tokens left out). Raw contextual vectors share a large "
        "common direction and a few rogue dimensions, so all cosines are high. Centre "
        "subtracts the layer's mean token vector; standardize gives every dimension the same "
        "spread; all-but-the-top also removes the top principal directions. Under a layer "
        "strategy the post-processed layers are combined.",
    )


def postprocessed(
    key: tuple, per_layer: np.ndarray, token_states: np.ndarray, choice: VectorChoice
) -> tuple[np.ndarray, np.ndarray]:
    """``(per_layer, token_states)`` (``(L + 1, n, H)`` and ``(L + 1, tokens, H)``) after the
    post-processing of ``choice``, each layer with the statistics of ``token_states``' same
    layer; cached under ``key`` (what the arrays were computed from): all-but-the-top's SVDs
    of 4,000 tokens at every layer would run at every rerun."""
    post = choice.post
    if post == "none":
        return per_layer, token_states

    def compute_both():
        both = (
            postprocess_layers(per_layer, post, token_states),
            postprocess_layers(token_states, post),
        )
        for array in both:
            array.flags.writeable = False
        return both

    return compute.cached("states", ("context post", *key, post), compute_both)


def rogue_note(raw: np.ndarray, processed: np.ndarray, choice: VectorChoice, word: str) -> str:
    """What the top rogue dimensions carried of the cosines between the occurrences
    (``raw`` and ``processed`` ``(L + 1, n, H)``, combined under ``choice``'s layers) before
    and after its post-processing."""
    post, strategy = choice.post, choice.layers
    before = rogue_share(combine_layers(raw, strategy))
    after = rogue_share(combine_layers(processed, strategy), dimensions=before.dimensions)
    what = LABELS[post].split(" (")[0]
    lead = (
        f"{what}, with the statistics of every token of these sentences; of the cosines "
        f"between the {raw.shape[1]} occurrences of “{word.strip()}” under the "
        f"{layers_label(strategy).lower()}"
    )
    return rogue_sentence(before, after, post, lead)
