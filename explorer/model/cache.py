"""The models a server holds, bounded by the bytes of their weights.

A shared server loads the models its visitors choose. Each costs its weights in memory
(all-MiniLM-L6-v2 87 MB, BERT-base 418 MB, BERT-large 1.3 GB), and a random-weights baseline
costs as much again, so a count of models does not bound memory. :class:`ModelCache` bounds
every model alive in the process, trained ones and their random-weights twins together, by
``max_bytes`` of weights.

A model the cache let go is still in memory while a computation holds it (a visitor's page run
keeps its model until the run ends), so the cache counts the weights of every model it handed
out that is still alive, kept or not, and gives such a model back instead of loading a second
copy. Room for a new model is made by letting go of idle models (held by nobody else: they
leave memory at once), random-weights baselines first, then the least recently used. When the
models in use leave no room, the request is refused (:class:`NoRoom`, saying what would fit)
rather than loaded beside them: three BERT-base-sized models with their twins, each in use by
one session, took a server past 2 GB (issue 32). A model larger than the whole budget is
loaded when nothing else is alive, and is then the only one. With ``idle_seconds``, a baseline
nobody asked for in that time is let go at the next request for any model: eight
BERT-base-sized sessions kept its 418 MB after their one comparison, and the server's memory
stayed over 2 GB for the rest of the visit (``python -m bench.soak --model FOLDER``).
"""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from explorer.model.encoder import Model


class NoRoom(ValueError):
    """A model that does not fit beside the models in use: it needs ``needed`` bytes of
    weights, and ``free`` bytes are free while the models of ``busy`` (``{key: bytes}``, least
    recently used first) are in use. Those are loaded already: asking for one of them costs
    nothing. ``key``: the key of the model refused."""

    def __init__(
        self, needed: int, free: int, busy: dict[Hashable, int], key: Hashable = None
    ) -> None:
        self.needed, self.free, self.busy, self.key = needed, free, busy, key
        super().__init__(
            f"A model of {needed / 2**20:,.0f} MB does not fit: {sum(busy.values()) / 2**20:,.0f}"
            f" MB of models are in use, {free / 2**20:,.0f} MB are free."
        )


@dataclass
class _Entry:
    ref: weakref.ref
    size: int
    disposable: bool
    used: float
    """The clock's time of the last request for it."""
    model: Model | None
    """The cache's own reference (None: let go, alive while somebody else holds it)."""


class ModelCache:
    """Models by key, within ``max_bytes`` of weights (:attr:`Model.weight_bytes`) alive at
    once, kept or still held by a computation (see the module). Thread-safe. ``clock`` gives
    the seconds :attr:`idle_seconds` is counted in (tests pass a fake one)."""

    def __init__(
        self,
        max_bytes: int,
        idle_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_bytes < 1:
            raise ValueError(f"A model cache needs max_bytes >= 1, not {max_bytes}.")
        if idle_seconds is not None and idle_seconds <= 0:
            raise ValueError(f"idle_seconds must be positive or None, not {idle_seconds}.")
        self.max_bytes = max_bytes
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.after_load: Callable[[], None] | None = None
        """Called after each model is loaded and kept (the results pool shrinks to make room)."""
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._loading: dict[Hashable, tuple[threading.Event, int]] = {}
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        """Whether the model of ``key`` is in memory (kept, or held by a computation)."""
        with self._lock:
            self._prune()
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            self._prune()
            return len(self._entries)

    @property
    def bytes(self) -> int:
        """Bytes of the weights of every model alive that the cache handed out (kept, or let
        go and still held by a computation): what the models take of the server's memory."""
        with self._lock:
            self._prune()
            return self._alive()

    def keys(self) -> list[Hashable]:
        """Keys of the models in memory, least recently used first."""
        with self._lock:
            self._prune()
            return list(self._entries)

    def size_of(self, key: Hashable) -> int | None:
        """Bytes of the weights of the model of ``key`` while it is in memory, else None."""
        with self._lock:
            self._prune()
            entry = self._entries.get(key)
            return None if entry is None else entry.size

    def get(
        self,
        key: Hashable,
        load: Callable[[], Model],
        disposable: bool = False,
        size: int | None = None,
    ) -> Model:
        """The model for ``key``: the one in memory, or ``load()``'s (then kept). Idle models
        leave to make room (``disposable`` ones, baselines, first); ``size``, the bytes the
        new model will take when known, makes that room before loading. Raises
        :class:`NoRoom` when the models in use leave no room for it (nothing is kept, and a
        model loaded for nothing is let go). An exception from ``load`` reaches the caller
        and nothing is kept."""
        while True:
            with self._lock:
                self._prune()
                self._drop_idle(keep=key)
                entry = self._entries.get(key)
                model = entry.ref() if entry is not None else None
                if model is not None:  # kept, or let go and still held: the same copy
                    entry.model, entry.used = model, self.clock()
                    self._entries.move_to_end(key)
                    return model
                waiting = self._loading.get(key)
                if waiting is None:
                    if size is not None:
                        self._make_room(size, keep=key)
                    self._loading[key] = (threading.Event(), size or 0)
                    break
            waiting[0].wait()  # another thread loads this key: use its model (or try again)
        try:
            model = load()
        except BaseException:
            with self._lock:
                self._loading.pop(key)[0].set()
            raise
        with self._lock:
            done, _ = self._loading.pop(key)
            try:
                self._entries[key] = _Entry(
                    weakref.ref(model), model.weight_bytes, disposable, self.clock(), model
                )
                self._make_room(0, keep=key)
            except NoRoom:
                del self._entries[key]
                model = None  # noqa: F841 - the traceback keeps this frame: let the copy go
                raise
            finally:
                done.set()
        if self.after_load is not None:
            self.after_load()
        return model

    def drop(self, key: Hashable) -> None:
        """Let go of the model of ``key`` (it leaves memory when nobody else holds it)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                entry.model = None
            self._prune()

    def clear(self) -> None:
        """Let go of every model."""
        with self._lock:
            for entry in self._entries.values():
                entry.model = None
            self._prune()

    # -- lock held below ---------------------------------------------------------------------

    def _prune(self) -> None:
        """Forget the entries whose model has left memory."""
        for key in [key for key, entry in self._entries.items() if entry.ref() is None]:
            del self._entries[key]

    def _alive(self) -> int:
        return sum(entry.size for entry in self._entries.values()) + sum(
            size for _, size in self._loading.values()
        )

    def _drop_idle(self, keep: Hashable) -> None:
        """Let go of the disposable models not asked for in :attr:`idle_seconds` (``keep``
        stays). A computation still using one keeps it alive until it ends."""
        if self.idle_seconds is None:
            return
        now = self.clock()
        for key, entry in self._entries.items():
            if entry.disposable and key != keep and now - entry.used > self.idle_seconds:
                entry.model = None
        self._prune()

    def _let_go(self, keep: Hashable, needed: int) -> None:
        """Let go of idle kept models, disposable first then least recently used, until
        ``needed`` more bytes fit; a model somebody else holds is kept."""
        order = [key for key in self._entries if key != keep]
        order.sort(key=lambda key: not self._entries[key].disposable)  # stable: LRU within
        for key in order:
            if self._alive() + needed <= self.max_bytes:
                return
            entry = self._entries[key]
            if entry.model is None:
                continue
            entry.model = None
            if entry.ref() is None:
                del self._entries[key]
            else:  # in use by a computation: letting go would free nothing
                entry.model = entry.ref()

    def _make_room(self, needed: int, keep: Hashable) -> None:
        """Make ``needed`` more bytes fit beside the models alive (``keep``, a model just
        loaded, counts and stays), or raise :class:`NoRoom`. A model larger than the whole
        budget fits when nothing else is alive."""
        self._let_go(keep, needed)
        if self._alive() + needed > self.max_bytes:
            gc.collect()  # a model in a reference cycle leaves only with a collection
            self._prune()
            self._let_go(keep, needed)
        others = [key for key in self._entries if key != keep]
        loading = [key for key in self._loading if key != keep]
        if self._alive() + needed <= self.max_bytes or not (others or loading):
            return
        busy = {key: self._entries[key].size for key in others}
        busy.update({key: self._loading[key][1] for key in loading})
        mine = self._entries[keep].size if keep in self._entries else needed
        raise NoRoom(mine, max(0, self.max_bytes - sum(busy.values())), busy, keep)
