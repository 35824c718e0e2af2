"""Loading a BERT-family encoder and running it, one module per job.

- :mod:`~explorer.model.tokenization`: input checks and one tokenized input
- :mod:`~explorer.model.batching`: padded batches grouped by length
- :mod:`~explorer.model.precision`: float32 or bfloat16 autocast
- :mod:`~explorer.model.encoder`: the :class:`Model` wrapper (tokenizer + encoder)
- :mod:`~explorer.model.forward`: :func:`forward_batches`, the one loop over batches
- :mod:`~explorer.model.attentions`: attention weights from the eager attention path
- :mod:`~explorer.model.size`: parameter count from a configuration
- :mod:`~explorer.model.hub`: :data:`DEFAULT_MODEL`, the local cache, the offline switch,
  hub metadata
- :mod:`~explorer.model.loading`: :func:`load_model`, with every check before any weight;
  ``load_ref``, a :class:`ModelRef` through a :class:`~explorer.model.cache.ModelCache`
- :mod:`~explorer.model.ref`: :class:`ModelRef`, which model (hub id or folder, trained or random)

Everything here is plain Python and PyTorch: no Streamlit. Constants are imported from the
module they live in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer._lazy import lazy_dir, lazy_getattr, lazy_homes

# Imported on first use (PEP 562): ``explorer.model.hub`` (the default model's name) must
# import without torch, and importing it runs this file first.
if TYPE_CHECKING:
    from explorer.model.batching import Batch as Batch
    from explorer.model.encoder import Model as Model
    from explorer.model.hub import DEFAULT_MODEL as DEFAULT_MODEL
    from explorer.model.loading import load_model as load_model
    from explorer.model.ref import ModelRef as ModelRef
    from explorer.model.size import estimate_parameters as estimate_parameters
    from explorer.model.tokenization import Tokenization as Tokenization

_HOMES = lazy_homes(__file__)
__getattr__ = lazy_getattr(__name__, _HOMES)
__dir__ = lazy_dir(__name__, _HOMES)
__all__ = list(_HOMES)
