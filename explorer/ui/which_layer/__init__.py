"""The "Which layer?" (Probe) page's Streamlit side: the cached probes (``_probes``), the rows
probed (``_rows``), one layer up close (``_layer``) and a saved corpus's rows and poolings
(``_saved``)."""

from explorer.ui.which_layer._layer import one_layer
from explorer.ui.which_layer._probes import (
    ProbeData,
    best_table,
    headline,
    layer_scores,
    sample_rows,
    word_features,
)
from explorer.ui.which_layer._rows import probe_rows
from explorer.ui.which_layer._saved import stored_poolings

__all__ = [
    "ProbeData",
    "best_table",
    "headline",
    "layer_scores",
    "one_layer",
    "probe_rows",
    "sample_rows",
    "stored_poolings",
    "word_features",
]
