"""Corpus stores: a corpus embedded once by ``explorer embed`` and opened in seconds.

- :mod:`~explorer.store.format`: the folder layout, the manifest, atomic writes, checks
- :mod:`~explorer.store.inputs`: CSV, TSV, JSON Lines, Parquet or plain text, read in chunks
- :mod:`~explorer.store.writer`: :func:`embed_to_store`, shard by shard, resumable
- :mod:`~explorer.store.engine`: texts of a shard -> vectors (the local engine);
  :mod:`~explorer.store.ray_engine` does the same with Ray Data actors (``--engine ray``)
- :mod:`~explorer.store.catalog`: the stores in the operator's ``EXPLORER_CORPORA`` folders
- :mod:`~explorer.store.corpus`: :func:`open_corpus` and the opened :class:`Corpus`
- :mod:`~explorer.store.project`: :func:`save_projection` (``explorer project``)

Plain Python: no Streamlit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.lazy import lazy_getattr

# Imported on first use (PEP 562): `explorer info` and the manifest checks need neither torch
# nor pandas.
_HOMES = {
    "FORMAT_VERSION": "explorer.store.format",
    "model_fingerprint": "explorer.store.format",
    "read_manifest": "explorer.store.format",
    "Corpus": "explorer.store.corpus",
    "open_corpus": "explorer.store.corpus",
    "save_projection": "explorer.store.project",
    "Progress": "explorer.store.writer",
    "Settings": "explorer.store.writer",
    "embed_to_store": "explorer.store.writer",
}

if TYPE_CHECKING:
    from explorer.store.corpus import Corpus, open_corpus
    from explorer.store.format import FORMAT_VERSION, model_fingerprint, read_manifest
    from explorer.store.project import save_projection
    from explorer.store.writer import Progress, Settings, embed_to_store


__getattr__ = lazy_getattr(__name__, _HOMES)


__all__ = [
    "FORMAT_VERSION",
    "Corpus",
    "Progress",
    "Settings",
    "embed_to_store",
    "model_fingerprint",
    "open_corpus",
    "read_manifest",
    "save_projection",
]
