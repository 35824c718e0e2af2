"""The Layers page's Streamlit side: the summary table, every layer's statistics, the outlier
dimensions and the norms (``_sections``), the layers compared by CKA beside random weights
(``_cka``) and where a token is, the position table (``_positions``)."""

from explorer.ui.layer_by_layer._cka import cka_section
from explorer.ui.layer_by_layer._positions import positions_section
from explorer.ui.layer_by_layer._sections import norms, outliers, statistics, summary_table

__all__ = ["cka_section", "norms", "outliers", "positions_section", "statistics", "summary_table"]
