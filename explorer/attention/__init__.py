"""What attention does: head statistics, attention rollout, norm-weighted attention, and the
masked-LM lens (the top predictions of every layer).

The weights of one input come from :mod:`explorer.model.attentions` (the eager attention
path); private modules hold the rest: ``_weights`` (what each head does, two corrections of
raw weights) and ``_lens`` (the masked-LM head read at every layer).
"""

from __future__ import annotations

from explorer.attention._ablation import (
    ABLATION_MEASURES,
    all_heads,
    measure,
    rank_heads,
    spread_heads,
)
from explorer.attention._lens import Lens, MaskedLM, layer_predictions, masked_lm_of
from explorer.attention._weights import (
    LayerInfluence,
    column_share,
    head_statistics,
    layer_influence,
    rollout,
    strongest_pattern,
    value_norms,
)
from explorer.model.attentions import AttentionPass, attention_pass, attentions

__all__ = [
    "ABLATION_MEASURES",
    "all_heads",
    "AttentionPass",
    "LayerInfluence",
    "Lens",
    "MaskedLM",
    "attention_pass",
    "attentions",
    "column_share",
    "head_statistics",
    "layer_influence",
    "layer_predictions",
    "masked_lm_of",
    "measure",
    "rank_heads",
    "rollout",
    "spread_heads",
    "strongest_pattern",
    "value_norms",
]
