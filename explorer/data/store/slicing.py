"""Cutting the input's rows into shards, for :func:`explorer.data.store.writer.embed_to_store`.

:func:`shard_tables` yields the non-blank rows after those a resumed run keeps, a shard at a
time; :class:`ShardSizer` chooses each shard's size so that a commit comes every few seconds
(an interruption loses at most :data:`COMMIT_SECONDS` or :data:`COMMIT_SHARE` of the time
spent, whichever is longer), never above the memory cap; :func:`check_kept` checks that the
shards a resumed run keeps were made from the rows the input holds now.
"""

from __future__ import annotations

import hashlib
import struct
import time
from collections.abc import Callable, Iterable, Iterator

import pyarrow as pa

from explorer.data.store.inputs import InputInfo, keep_texts, read_chunks

COMMIT_SECONDS = 5.0
"""Shortest time between two commits of a run whose shards are sized by time."""
COMMIT_SHARE = 0.1
"""Longest time between commits, as a share of the time the run has taken so far: a long run
commits less often, and an interruption loses at most this share of its work."""
FIRST_SHARD_ROWS = 512
"""Rows of a run's first shard, before its speed is known."""


class ShardSizer:
    """Rows of each next shard: ``cap`` when ``by_time`` is false, else what the run's speed
    so far (rows embedded, :meth:`embedded`) does in :data:`COMMIT_SECONDS` (or
    :data:`COMMIT_SHARE` of the time taken), between 1 and ``cap``. ``clock()`` gives
    seconds."""

    def __init__(
        self, cap: int, by_time: bool = True, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.cap = cap
        self.by_time = by_time
        self.clock = clock
        self.start: float | None = None
        self.rows = 0

    def embedded(self, rows: int) -> None:
        """Rows embedded so far in this run (called after every batch)."""
        self.rows = rows

    def next_rows(self) -> int:
        """How many rows the next shard holds."""
        if not self.by_time:
            return self.cap
        now = self.clock()
        if self.start is None:
            self.start = now
            return min(self.cap, FIRST_SHARD_ROWS)
        elapsed = now - self.start
        if self.rows == 0 or elapsed <= 0:
            return self.cap  # an engine reading ahead before any text is done
        seconds = max(COMMIT_SECONDS, COMMIT_SHARE * elapsed)
        return int(min(self.cap, max(1, self.rows / elapsed * seconds)))


def texts_digest(texts: Iterable[str]) -> str:
    """``sha256:...`` of a shard's texts, in order (each with its length, so that no two
    different lists of texts give the same bytes)."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        digest.update(struct.pack("<Q", len(data)))
        digest.update(data)
    return "sha256:" + digest.hexdigest()


def _non_blank(info: InputInfo, limit: int | None) -> Iterator[tuple[pa.Table, int]]:
    """``(non-blank rows, blank rows dropped)`` chunks of the input, at most ``limit`` rows."""
    taken = 0
    for chunk in read_chunks(info):
        chunk, blank = keep_texts(chunk, info.text_column)
        if limit is not None:
            chunk = chunk.slice(0, max(0, limit - taken))
        taken += chunk.num_rows
        yield chunk, blank
        if limit is not None and taken >= limit:
            return


def shard_tables(
    info: InputInfo, skip: int, limit: int | None, sizer: ShardSizer
) -> Iterator[tuple[pa.Table | None, int]]:
    """``(shard table or None, blank rows dropped)`` pairs: the non-blank rows after the first
    ``skip`` of them, at most ``limit`` in all, in shards of ``sizer.next_rows()`` rows (asked
    when a shard is cut, so that it knows the speed of the shards before)."""
    pending: list[pa.Table] = []
    pending_rows = 0
    want = None
    for chunk, blank in _non_blank(info, limit):
        if skip:
            cut = min(skip, chunk.num_rows)
            skip -= cut
            chunk = chunk.slice(cut)
        yield None, blank
        if chunk.num_rows:
            pending.append(chunk)
            pending_rows += chunk.num_rows
        want = want or sizer.next_rows()
        while pending_rows >= want:
            table = pa.concat_tables(pending, promote_options="permissive").combine_chunks()
            yield table.slice(0, want), 0
            rest = table.slice(want)
            pending, pending_rows = ([rest] if rest.num_rows else []), rest.num_rows
            want = sizer.next_rows()
    if pending_rows:
        yield pa.concat_tables(pending, promote_options="permissive").combine_chunks(), 0


def check_kept(info: InputInfo, limit: int | None, shards: list[dict], where: str) -> None:
    """Check that the texts of the kept ``shards`` (manifest entries with ``rows`` and
    ``texts_sha256``) are the input's first non-blank texts, shard by shard; ``ValueError``
    naming the first shard that differs (the input changed, or another run wrote the store)."""
    remaining = [(s["dir"], s["rows"], s["texts_sha256"]) for s in shards]
    if not remaining:
        return
    texts: list[str] = []
    for chunk, _ in _non_blank(info, limit):
        texts.extend(chunk.column(info.text_column).to_pylist())
        while remaining and len(texts) >= remaining[0][1]:
            name, rows, digest = remaining.pop(0)
            if texts_digest(texts[:rows]) != digest:
                raise ValueError(_misaligned(where, name))
            del texts[:rows]
        if not remaining:
            return
    raise ValueError(_misaligned(where, remaining[0][0], "the input has fewer texts than"))


def _misaligned(where: str, shard: str, how: str = "the input's texts differ from") -> str:
    return (
        f"{where} cannot be resumed: {how} the rows its {shard} was made from (another run "
        "wrote to it, or the input changed), so the vectors it keeps may belong to other "
        "texts. Delete the folder (or give another --out) and run again."
    )
