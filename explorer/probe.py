"""Compatibility names: the probe lives in :mod:`explorer.probing`, one module per job.

Every name importable from ``explorer.probe`` before the split still is; new code imports
from :mod:`explorer.probing` (or its modules) directly.
"""

# ruff: noqa: F401  (a module of re-exports)
from __future__ import annotations

from explorer.pooling import POOLINGS
from explorer.probing import *  # noqa: F403
from explorer.words import SUBWORD_MODES, Occurrence, find_occurrences

SENTENCE_STRATEGIES = POOLINGS
"""Old name: the poolings a sentence task can use (:data:`explorer.pooling.POOLINGS`)."""
WORD_STRATEGIES = SUBWORD_MODES
"""Old name: the subword modes a word task can use (:data:`explorer.words.SUBWORD_MODES`)."""
