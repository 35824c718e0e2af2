"""A memo for expensive results, bounded in bytes as well as in entries.

Streamlit's caches bound the number of entries only; one entry of a shared server can hold
hundreds of megabytes (the hidden states of 5,000 texts), so a count alone does not bound
memory. :class:`Memo` keeps the most recently used results while their total size stays under
``max_bytes`` (sizes measured from the NumPy arrays inside a result, plus its key: a key such
as a request's texts can weigh 20 MB, and a memo of 64 such keys counted as empty could hold
over a gigabyte nobody saw), computes each key once
even when several sessions ask at the same moment, and never keeps a result larger than the
whole budget (it is returned, not stored). Memos of one :class:`Pool` also share a total
budget: a shared server bounds all its caches together, not one by one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import numpy as np
import pandas as pd

_SCALAR_BYTES = 64


def nbytes(value: Any, _depth: int = 0) -> int:
    """Approximate memory held by ``value``: NumPy arrays and DataFrames by their buffers,
    strings by their length, containers and dataclasses by their items (8 levels deep)."""
    if _depth > 8:
        return _SCALAR_BYTES
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, pd.DataFrame | pd.Series):
        return int(value.memory_usage(deep=True).sum())
    if isinstance(value, str | bytes):
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sum(nbytes(k, _depth + 1) + nbytes(v, _depth + 1) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return _SCALAR_BYTES + sum(nbytes(v, _depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name), _depth + 1) for f in dataclasses.fields(value))
    if hasattr(value, "__dict__"):
        return _SCALAR_BYTES + sum(nbytes(v, _depth + 1) for v in vars(value).values())
    return _SCALAR_BYTES


class Cancelled(Exception):
    """A computation stopped because nobody waits for it any more (its session started another
    heavy request); nothing of it is kept and its turn is free."""


POLL_S = 0.1
"""How often a thread waiting for a turn (or for another thread's result) runs its check."""


@dataclasses.dataclass(eq=False)
class _Ticket:
    """One thread's place in a pool: waiting, then running (``running``)."""

    heavy: bool
    owner: Hashable | None
    check: Callable[[], None] | None
    cancelled: bool = False
    running: bool = False


_mine = threading.local()  # this thread's (pool, ticket) pairs, outermost first


def _held() -> list[tuple[Pool, _Ticket]]:
    if not hasattr(_mine, "tickets"):
        _mine.tickets = []
    return _mine.tickets


def checkpoint() -> None:
    """Raise if a computation this thread runs in a pool's turn is no longer wanted: its own
    check's exception (the asker's session has gone or reran), or :class:`Cancelled` when a
    newer heavy request of the same owner superseded it. Long computations call this from
    their progress callbacks; outside a turn it does nothing."""
    for _, ticket in reversed(_held()):
        if ticket.cancelled:
            raise Cancelled("A newer heavy request of the same session replaced this one.")
        if ticket.check is not None:
            ticket.check()


class Pool:
    """A byte budget shared by several memos: when their results together pass ``max_bytes``,
    the least recently used result of any of them is dropped. Each memo keeps its own budget
    too (one kind of result cannot take the whole pool).

    With ``max_running``, the memos of the pool compute at most that many results at once
    (other threads wait for a turn; a hit never waits, and a computation that needs another
    result in the same thread goes on): on a 2-core server, eight visitors' forward passes run
    no faster side by side than two at a time, but need four times the working memory.

    With ``max_heavy`` (below ``max_running``), at most that many of the turns go to heavy
    computations, so the others stay free for light ones: a light request never waits behind a
    heavy one, only (briefly) behind other light ones. Each lane serves its waiters first come,
    first served. A heavy request of an ``owner`` (a session) that already holds or awaits a
    heavy turn cancels the older one (:class:`Cancelled` at its next :func:`checkpoint`): a
    session has at most one heavy request in the pool, the one it asked for last."""

    def __init__(
        self, max_bytes: int, max_running: int | None = None, max_heavy: int | None = None
    ) -> None:
        if max_bytes < 1:
            raise ValueError("A pool needs max_bytes >= 1.")
        if max_running is not None and max_running < 1:
            raise ValueError("A pool needs max_running >= 1 (or None: no limit).")
        if max_heavy is not None and (
            max_heavy < 1 or (max_running is not None and max_heavy >= max_running)
        ):
            raise ValueError(
                "A pool needs 1 <= max_heavy < max_running (a turn kept for light work), or "
                "max_heavy None: no separate limit."
            )
        self.max_bytes = max_bytes
        self.max_running = max_running
        self.max_heavy = max_heavy
        self.memos: list[Memo] = []
        self.lock = threading.RLock()
        self._clock = 0
        self._turns = threading.Condition(threading.Lock())
        self._tickets: list[_Ticket] = []  # waiting and running, in order of arrival

    @property
    def running(self) -> tuple[int, int]:
        """``(computations running, of which heavy)``."""
        with self._turns:
            running = [t for t in self._tickets if t.running]
            return len(running), sum(t.heavy for t in running)

    @property
    def waiting(self) -> tuple[int, int]:
        """``(computations waiting for a turn, of which heavy)``."""
        with self._turns:
            waiting = [t for t in self._tickets if not t.running]
            return len(waiting), sum(t.heavy for t in waiting)

    def _may_run(self, ticket: _Ticket) -> bool:
        """Whether ``ticket`` may start now (``_turns`` held): a turn free in its lane and no
        one of its lane waiting before it."""
        running = [t for t in self._tickets if t.running]
        if self.max_running is not None and len(running) >= self.max_running:
            return False
        if ticket.heavy and self.max_heavy is not None:
            if sum(t.heavy for t in running) >= self.max_heavy:
                return False
        first = next(t for t in self._tickets if not t.running and t.heavy == ticket.heavy)
        return first is ticket

    @contextlib.contextmanager
    def turn(
        self,
        heavy: bool = False,
        owner: Hashable | None = None,
        check: Callable[[], None] | None = None,
    ) -> Iterator[None]:
        """Hold a turn of the heavy or the light lane for the block: at once when this thread
        already holds one (a computation needing another result), else after waiting for it.
        While it waits (every :data:`POLL_S`) and at each :func:`checkpoint` of the block,
        ``check()`` may raise to give up (the asker has gone); ``owner`` (a session) holds at
        most one heavy turn, the newest (see the class)."""
        held = _held()
        if any(pool is self for pool, _ in held):
            yield
            return
        ticket = _Ticket(heavy, owner, check)
        with self._turns:
            if heavy and owner is not None:
                for older in self._tickets:
                    if older.heavy and older.owner == owner:
                        older.cancelled = True
            self._tickets.append(ticket)
            self._turns.notify_all()
        held.append((self, ticket))
        try:
            with self._turns:
                while True:
                    if ticket.cancelled:
                        raise Cancelled(
                            "A newer heavy request of the same session replaced this one."
                        )
                    if self._may_run(ticket):
                        ticket.running = True
                        break
                    self._turns.wait(POLL_S)
                    if check is not None:
                        self._turns.release()  # the check may take a lock of its own
                        try:
                            check()
                        finally:
                            self._turns.acquire()
            if check is not None:
                check()  # the asker may have gone during the last wait
            yield
        finally:
            held.remove((self, ticket))
            with self._turns:
                self._tickets.remove(ticket)
                self._turns.notify_all()

    @property
    def bytes(self) -> int:
        """Bytes held by every memo of the pool."""
        with self.lock:
            return sum(memo.bytes for memo in self.memos)

    def resize(self, max_bytes: int) -> None:
        """Set :attr:`max_bytes` and drop the least recently used results until they fit now
        (a server that loads a larger model must free room for its weights at once, not at
        the next result stored)."""
        if max_bytes < 1:
            raise ValueError("A pool needs max_bytes >= 1.")
        with self.lock:
            self.max_bytes = max_bytes
            self._evict()

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _evict(self) -> None:
        """Drop the oldest results of the pool's memos until they fit (lock held)."""
        while self.bytes > self.max_bytes:
            oldest = min(
                (memo for memo in self.memos if memo._items),
                key=lambda memo: next(iter(memo._items.values()))[2],
            )
            oldest._drop_oldest()


class Memo:
    """Least-recently-used results of ``function(*key)``, at most ``max_entries`` of them and
    ``max_bytes`` in all (and within ``pool``'s budget, when given, with the pool's other
    memos). Thread-safe; concurrent calls with one key compute it once."""

    def __init__(self, max_bytes: int, max_entries: int = 64, pool: Pool | None = None) -> None:
        if max_bytes < 1 or max_entries < 1:
            raise ValueError("A memo needs max_bytes >= 1 and max_entries >= 1.")
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.pool = pool
        # value, size, time of last use (the pool's clock)
        self._items: OrderedDict[Hashable, tuple[Any, int, int]] = OrderedDict()
        self._pending: dict[Hashable, threading.Event] = {}
        self._lock = pool.lock if pool is not None else threading.RLock()
        self._clock = 0
        self.bytes = 0
        if pool is not None:
            with pool.lock:
                pool.memos.append(self)

    def _tick(self) -> int:
        if self.pool is not None:
            return self.pool._tick()
        self._clock += 1
        return self._clock

    def _drop_oldest(self) -> None:
        _, (_, dropped, _) = self._items.popitem(last=False)
        self.bytes -= dropped

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items

    def get(
        self,
        key: Hashable,
        compute: Callable[[], Any],
        heavy: bool = False,
        owner: Hashable | None = None,
        check: Callable[[], None] | None = None,
    ) -> Any:
        """The result for ``key``, from the memo or from ``compute()`` (then stored if it fits).
        An exception from ``compute`` is raised to the caller and nothing is stored. A miss
        computes in a turn of the pool's heavy or light lane (``heavy``) for ``owner``;
        ``check()`` may raise while it waits to give up (see :meth:`Pool.turn`)."""
        with self._lock:
            if key in self._items:
                return self._use(key)
        if self.pool is None:
            return self._get(key, compute)
        with self.pool.turn(heavy, owner, check):
            return self._get(key, compute)

    def _use(self, key: Hashable) -> Any:
        """The stored result of ``key``, now the most recently used (lock held)."""
        value, size, _ = self._items[key]
        self._items[key] = (value, size, self._tick())
        self._items.move_to_end(key)
        return value

    def _get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        while True:
            with self._lock:
                if key in self._items:
                    return self._use(key)
                waiting = self._pending.get(key)
                if waiting is None:
                    self._pending[key] = threading.Event()
                    break
            while not waiting.wait(POLL_S):  # another thread computes this key: use its
                checkpoint()  # result (or retry if it fails), unless ours is no longer wanted
        try:
            value = compute()
            size = nbytes(value) + nbytes(key)  # a key can hold every text of a request
        except BaseException:
            with self._lock:
                self._pending.pop(key).set()
            raise
        with self._lock:
            room = self.max_bytes if self.pool is None else min(self.max_bytes, self.pool.max_bytes)
            if size <= room:
                self._items[key] = (value, size, self._tick())
                self.bytes += size
                while self.bytes > self.max_bytes or len(self._items) > self.max_entries:
                    self._drop_oldest()
                if self.pool is not None:
                    self.pool._evict()
            self._pending.pop(key).set()
        return value

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._items.clear()
            self.bytes = 0
