"""Corpus stores: a corpus embedded once by ``explorer embed`` and opened in seconds.

- :mod:`~explorer.data.store.format`: the folder layout, the manifest, atomic writes, checks
- :mod:`~explorer.data.store.inputs`: CSV, TSV, JSON Lines, Parquet or plain text, read in chunks
- :mod:`~explorer.data.store.writer`: :func:`embed_to_store`, shard by shard, resumable
- :mod:`~explorer.data.store.jobs`: what every engine shares, and :func:`embed_texts`;
  :mod:`~explorer.data.store.engine`: texts of a shard -> vectors (the local engine);
  :mod:`~explorer.data.store.ray_engine` does the same with Ray Data actors (``--engine ray``)
- :mod:`~explorer.data.store.catalog`: the stores in the operator's ``EXPLORER_CORPORA`` folders
- :mod:`~explorer.data.store.corpus`: :func:`open_corpus` and the opened :class:`Corpus`;
  :mod:`~explorer.data.store.rows`: its input columns, read from the shards
- :mod:`~explorer.data.store.project`: :func:`save_projection` (``explorer project``)

Plain Python: no Streamlit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer._lazy import lazy_getattr, lazy_homes

# Imported on first use (PEP 562): `explorer info` and the manifest checks need neither torch
# nor pandas.
if TYPE_CHECKING:
    from explorer.data.store.corpus import Corpus as Corpus
    from explorer.data.store.corpus import open_corpus as open_corpus
    from explorer.data.store.format import FORMAT_VERSION as FORMAT_VERSION
    from explorer.data.store.format import model_fingerprint as model_fingerprint
    from explorer.data.store.format import read_manifest as read_manifest
    from explorer.data.store.project import save_projection as save_projection
    from explorer.data.store.writer import Progress as Progress
    from explorer.data.store.writer import Settings as Settings
    from explorer.data.store.writer import embed_to_store as embed_to_store

_HOMES = lazy_homes(__file__)
__getattr__ = lazy_getattr(__name__, _HOMES)
__all__ = list(_HOMES)
