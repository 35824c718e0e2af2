"""A compact neighbour index of a large store's vectors, so that a click on a map of a million
rows finds its nearest texts without scanning every memory-mapped vector (issue 38).

The index is faiss's ``IndexIVFScalarQuantizer``: the unit-normalised vectors coded in one
byte per dimension (384 bytes a row: 0.39 GB for 1,000,000 × 384, a quarter of the float32
vectors) in :data:`LISTS` inverted lists of a coarse k-means. A query reads the
:data:`PROBES` lists nearest to it (an eighth of the rows), takes the best
:data:`CANDIDATES` by the coded inner product, and re-ranks them exactly with the float32
vectors of the store (:func:`nearest`): a click reads a few hundred rows of the mapped vectors,
not all of them. The scores returned are the exact cosines; only the candidate set is
approximate. ``bench.everyrow --recall`` measures recall@10 against the exact scan.

It is built once, by ``explorer project`` (:func:`build_index`, for stores of at least
:data:`MIN_ROWS` rows), and saved in the store's ``index/`` folder beside the maps: a server
may not write into a store, and the build (8 s of CPU, 13 s wall on a loaded machine, at
1,000,000 rows) would stall every session of a small server if it ran on the first click. A
store without the file (or smaller than :data:`MIN_ROWS`) is searched exactly, as before.
:func:`load_index` maps the file rather than reading it: a click pages in the lists it reads
(about 50 MB at 1,000,000 rows), file-backed and shared, not the whole 0.39 GB of codes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from explorer.choice import VectorChoice
from explorer.data.store.corpus import DEFAULT_CHOICE, Corpus
from explorer.similarity import Neighbors, check_row_query

MIN_ROWS = 100_000
"""Stores with fewer rows are searched exactly: the scan is fast and its memory small."""
LISTS = 256
"""Coarse k-means lists of the index (about sqrt(n) / 4 at 1,000,000 rows)."""
PROBES = 32
"""Lists a query reads: an eighth of the rows (recall@10 0.999-1.000 at 16-32 probes on the
bench's synthetic 1,000,000-row store, whose Gaussian clusters are a hard case: 0.87 at 8)."""
CANDIDATES = 100
"""Candidates re-ranked exactly per query (at least; ``5 * k`` when more)."""
TRAIN_ROWS = 50_000
"""Rows (at random) the coarse k-means and the quantiser's ranges are trained on."""
CHUNK_ROWS = 50_000
"""Rows read, normalised and added at a time while building."""
FOLDER = "index"


def index_path(corpus: Corpus, choice: VectorChoice) -> Path:
    """Where the index of ``corpus``'s vectors under ``choice`` is saved."""
    return corpus.path / FOLDER / f"ivfsq8-{choice.pooling}-{choice.layers}.faiss"


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.ascontiguousarray(rows / np.where(norms > 0, norms, 1.0), dtype=np.float32)


def _rows(corpus: Corpus, choice: VectorChoice, rows: np.ndarray) -> np.ndarray:
    """The vectors of store ``rows`` under ``choice``: read from the memory map when they are
    one stored file, else combined for those rows only."""
    vectors = corpus.vectors(choice) if _one_file(corpus, choice) else None
    if vectors is not None:
        return np.asarray(vectors[rows], dtype=np.float32)
    return corpus.sentence(choice, rows=rows)


def _one_file(corpus: Corpus, choice: VectorChoice) -> bool:
    return len(choice.parts) == 1 and len(choice.indices(corpus.num_layers)) == 1


def build_index(
    corpus: Corpus,
    choice: VectorChoice = DEFAULT_CHOICE,
    *,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Path | None:
    """Build and save the index of ``corpus``'s vectors under one :class:`explorer.VectorChoice`
    ; its path, or ``None`` for a store of fewer than
    :data:`MIN_ROWS` rows (searched exactly). ``progress(done, total)`` after each chunk."""
    import faiss

    n, dim = len(corpus), choice.dim(corpus.hidden_size)
    if n < MIN_ROWS:
        return None
    rng = np.random.default_rng(seed)
    picked = np.sort(rng.choice(n, size=min(n, TRAIN_ROWS), replace=False))
    train = _unit(_rows(corpus, choice, picked))
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFScalarQuantizer(
        quantizer, dim, LISTS, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    index.cp.seed = seed
    index.train(train)
    for start in range(0, n, CHUNK_ROWS):
        index.add(_unit(_rows(corpus, choice, np.arange(start, min(start + CHUNK_ROWS, n)))))
        if progress is not None:
            progress(min(start + CHUNK_ROWS, n), n)
    path = index_path(corpus, choice)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    faiss.write_index(index, str(partial))
    partial.replace(path)
    about = {"rows": n, "dim": dim, "lists": LISTS, "trained_on": len(train), "seed": seed}
    path.with_suffix(".json").write_text(json.dumps(about, indent=1))
    return path


def load_index(corpus: Corpus, choice: VectorChoice = DEFAULT_CHOICE):
    """The saved index of ``corpus`` under ``choice`` (a faiss index, :data:`PROBES` set, its
    inverted lists memory-mapped from the file), or ``None`` when there is none, it does not
    cover every row (the store changed since), or faiss is not installed."""
    path = index_path(corpus, choice)
    if not path.is_file():
        return None
    try:
        import faiss
    except ImportError:
        return None
    # memory-mapped: the inverted lists stay in the file (faiss's OnDiskInvertedLists over a
    # read-only shared mapping), so a query pages in only the lists it reads, the pages are
    # the page cache's (shared by every process, dropped under pressure) and the server does
    # not hold the codes in its own memory (0.39 GB at 1,000,000 × 384)
    index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP)
    if index.ntotal != len(corpus) or index.d != choice.dim(corpus.hidden_size):
        return None
    ivf = faiss.extract_index_ivf(index)
    ivf.nprobe = PROBES
    lists = faiss.downcast_InvertedLists(ivf.invlists)
    if isinstance(lists, faiss.OnDiskInvertedLists):
        # no threads started per query to touch the lists first (32 by default, on a server
        # of two cores): the scan pages them in itself (27 ms a query against 33 ms with them,
        # 22 ms with the codes read into memory; million store, load 11)
        lists.prefetch_nthread = 0
    return index


def nearest(
    corpus: Corpus,
    row: int,
    k: int,
    choice: VectorChoice = DEFAULT_CHOICE,
    *,
    index=None,
) -> Neighbors:
    """The ``k`` store rows nearest to row ``row`` by cosine (itself left out), best first, ties
    by row: through ``index`` (:func:`load_index`) when given (candidates from the index,
    re-ranked by exact cosine), else :meth:`Corpus.neighbors`' exact scan. Either way ``row`` and
    ``k`` are checked by :func:`explorer.similarity.check_row_query`: the same messages."""
    if index is None:
        return corpus.neighbors(row, k, choice=choice)
    row, k = check_row_query(row, k, len(corpus))
    query = _unit(_rows(corpus, choice, np.array([row])))
    _, found = index.search(query, max(CANDIDATES, 5 * k) + 1)
    candidates = np.unique(found[found >= 0])
    candidates = candidates[candidates != row]
    if len(candidates) < k:  # too few in the lists read: the exact scan
        return corpus.neighbors(row, k, choice=choice)
    scores = (_unit(_rows(corpus, choice, candidates)) @ query[0]).astype(np.float32)
    best = np.lexsort((candidates, -scores))[:k]
    return Neighbors(candidates[best].astype(np.int64), scores[best])
