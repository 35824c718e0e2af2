"""Compatibility module: the model code now lives in :mod:`explorer.model`, one module per
job. Every name importable from here before the split still is (new code imports from
``explorer.model``)."""

# ruff: noqa: F401  (a module of re-exports)
from __future__ import annotations

from explorer.model.batching import _PADDING_STEP, MAX_BATCH_SIZE, MAX_BATCH_TOKENS, Batch
from explorer.model.encoder import Model
from explorer.model.hub import HUB_PROBE_TIMEOUT as _HUB_PROBE_TIMEOUT
from explorer.model.hub import cached_snapshot as _cached_snapshot
from explorer.model.hub import hub_reachable as _hub_reachable
from explorer.model.hub import offline as _offline
from explorer.model.loading import (
    _HF_ID,
    _URL,
    DEFAULT_MODEL,
    ENCODER_TYPES,
    _choose_weights,
    _resolve,
    bundled_model_path,
    load_model,
)
from explorer.model.precision import PRECISIONS
from explorer.model.size import estimate_parameters
from explorer.model.tokenization import MAX_CHARS, Tokenization, clean_text
