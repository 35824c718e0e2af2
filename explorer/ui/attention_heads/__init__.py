"""The Attention page's Streamlit side: one input's cached analysis and the masked-LM caches
(``_analysis``), the table of head statistics (``_heads``), the masked-LM lens (``_lens``)
and head ablation (``_ablation``)."""

from explorer.ui.attention_heads._ablation import ablation_section, prewarm_measures
from explorer.ui.attention_heads._analysis import (
    MEMO,
    Analysis,
    analysis,
    layer_predictions,
    masked_lm,
)
from explorer.ui.attention_heads._heads import head_table
from explorer.ui.attention_heads._lens import lens_section

__all__ = [
    "MEMO",
    "Analysis",
    "ablation_section",
    "analysis",
    "head_table",
    "layer_predictions",
    "lens_section",
    "masked_lm",
    "prewarm_measures",
]
