"""Loading a BERT-family encoder and running it, one module per job.

- :mod:`~explorer.model.tokenization`: input checks and one tokenized input
- :mod:`~explorer.model.batching`: padded batches grouped by length
- :mod:`~explorer.model.precision`: float32 or bfloat16 autocast
- :mod:`~explorer.model.encoder`: the :class:`Model` wrapper (tokenizer + encoder)
- :mod:`~explorer.model.forward`: :func:`forward_batches`, the one loop over batches
- :mod:`~explorer.model.size`: parameter count from a configuration
- :mod:`~explorer.model.hub`: the local cache, the offline switch, hub metadata
- :mod:`~explorer.model.loading`: :func:`load_model`, with every check before any weight

Everything here is plain Python and PyTorch: no Streamlit.
"""

from __future__ import annotations

from explorer.model.batching import MAX_BATCH_SIZE, MAX_BATCH_TOKENS, Batch
from explorer.model.encoder import Model
from explorer.model.forward import PARALLEL_MIN_BATCHES, default_workers, forward_batches
from explorer.model.loading import DEFAULT_MODEL, ENCODER_TYPES, bundled_model_path, load_model
from explorer.model.precision import PRECISIONS, autocast
from explorer.model.size import estimate_parameters
from explorer.model.tokenization import MAX_CHARS, Tokenization, clean_text

__all__ = [
    "DEFAULT_MODEL",
    "ENCODER_TYPES",
    "MAX_BATCH_SIZE",
    "MAX_BATCH_TOKENS",
    "MAX_CHARS",
    "PARALLEL_MIN_BATCHES",
    "PRECISIONS",
    "Batch",
    "Model",
    "Tokenization",
    "autocast",
    "bundled_model_path",
    "clean_text",
    "default_workers",
    "estimate_parameters",
    "forward_batches",
    "load_model",
]
