"""The models a server keeps, bounded by the bytes of their weights.

A shared server loads the models its visitors choose. Each costs its weights in memory
(all-MiniLM-L6-v2 87 MB, BERT-base 418 MB, BERT-large 1.3 GB), and a random-weights baseline
costs as much again, so a count of models does not bound memory. :class:`ModelCache` keeps the
most recently used models while their weights fit ``max_bytes``; the random-weights baselines
(``disposable``) leave first, then the least recently used trained model. A model larger than
the whole budget is still loaded and kept, alone. A model that left is loaded again by the next
request that needs it. Concurrent requests for one model load it once. With ``idle_seconds``,
a baseline nobody asked for in that time leaves at the next request for any model: eight
BERT-base-sized sessions kept its 418 MB after their one comparison, and the server's memory
stayed over 2 GB for the rest of the visit (``python -m bench.soak --model FOLDER``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from explorer.model.encoder import Model


@dataclass
class _Entry:
    model: Model
    size: int
    disposable: bool
    used: float = 0.0
    """``time.monotonic()`` of the last request for it."""


class ModelCache:
    """Loaded models by key, least recently used first out, within ``max_bytes`` of weights
    (:attr:`Model.weight_bytes`). Thread-safe."""

    def __init__(self, max_bytes: int, idle_seconds: float | None = None) -> None:
        if max_bytes < 1:
            raise ValueError(f"A model cache needs max_bytes >= 1, not {max_bytes}.")
        if idle_seconds is not None and idle_seconds <= 0:
            raise ValueError(f"idle_seconds must be positive or None, not {idle_seconds}.")
        self.max_bytes = max_bytes
        self.idle_seconds = idle_seconds
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._loading: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def bytes(self) -> int:
        """Bytes of the weights of every model kept."""
        with self._lock:
            return sum(entry.size for entry in self._entries.values())

    def keys(self) -> list[Hashable]:
        """Keys of the models kept, least recently used first."""
        with self._lock:
            return list(self._entries)

    def get(self, key: Hashable, load: Callable[[], Model], disposable: bool = False) -> Model:
        """The model for ``key``, kept or from ``load()`` (then kept, evicting others until the
        weights fit). ``disposable`` models (baselines) are the first to leave. An exception
        from ``load`` reaches the caller and nothing is kept."""
        while True:
            with self._lock:
                self._drop_idle(keep=key)
                if key in self._entries:
                    self._entries.move_to_end(key)
                    self._entries[key].used = time.monotonic()
                    return self._entries[key].model
                waiting = self._loading.get(key)
                if waiting is None:
                    self._loading[key] = threading.Event()
                    break
            waiting.wait()  # another thread loads this key: use its model (or try again)
        try:
            model = load()
        except BaseException:
            with self._lock:
                self._loading.pop(key).set()
            raise
        with self._lock:
            self._entries[key] = _Entry(model, model.weight_bytes, disposable, time.monotonic())
            self._evict(keep=key)
            self._loading.pop(key).set()
        return model

    def drop(self, key: Hashable) -> None:
        """Forget the model of ``key`` (if kept)."""
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        """Forget every model."""
        with self._lock:
            self._entries.clear()

    def _drop_idle(self, keep: Hashable) -> None:
        """Drop the disposable models not asked for in :attr:`idle_seconds` (``keep`` stays;
        lock held). A computation still using one keeps it alive until it ends."""
        if self.idle_seconds is None:
            return
        now = time.monotonic()
        for key in [
            key
            for key, entry in self._entries.items()
            if entry.disposable and key != keep and now - entry.used > self.idle_seconds
        ]:
            del self._entries[key]

    def _evict(self, keep: Hashable) -> None:
        """Drop disposable models, then the least recently used, until the weights fit
        (``keep``, the model just loaded, stays; lock held)."""
        while sum(entry.size for entry in self._entries.values()) > self.max_bytes:
            others = [key for key in self._entries if key != keep]
            if not others:
                return
            disposable = [key for key in others if self._entries[key].disposable]
            del self._entries[(disposable or others)[0]]
