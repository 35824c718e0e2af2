"""Compile UMAP in the background, and keep what numba compiles on disk.

umap-learn's first fit in a fresh process spends 10-30 s compiling its numba functions.
:func:`warm_up_umap` starts a daemon thread, once per process, that imports umap-learn and
fits a tiny projection, so the compilation happens while the person reads the home page. The
app calls it once per server process; a projections page opened meanwhile waits on numba's
compiler lock instead of compiling again.

The on-disk cache: numba can save compiled functions and load them in the next process, but
only for functions decorated with ``cache=True``. pynndescent (UMAP's neighbour search) marks
176 of its 339 functions so; umap-learn 0.5.12 marks 1 of about 120, so every new process
compiled the rest again. :func:`explorer.maps._umap.import_umap` imports umap-learn with
``cache=True`` as the default of ``numba.njit``/``numba.jit`` for the duration of the import.
Measured on a 2-core machine (bench/README.md), the first UMAP fit of 2,000 points in a new
process took 25 s with an empty cache, 12 s with umap-learn's own caching only, and 5 s with
this.

Only the exact-neighbours path (fewer than 4,096 points) is warmed up by default. The
NN-descent path of larger inputs compiles functions that pynndescent builds at run time,
which numba cannot cache: 25-55 s in every new process, during which other work in the
server ran about 1.5x slower (the compiler holds the GIL); ``nn_descent=True`` warms it too.

Plain Python: no Streamlit here (app.py calls :func:`warm_up_umap` on every run; it starts
the thread only once per process).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import warnings

import numpy as np

WARM_UP_POINTS = 60
"""Points in the exact-neighbours warm-up fit (its cost is the compilation, not the fit)."""

_lock = threading.Lock()
_thread: threading.Thread | None = None
_state: dict = {"seconds": None, "error": None, "steps": {}}


def _warm_up(cache_dir: str | os.PathLike | None, nn_descent: bool) -> None:
    with contextlib.suppress(OSError, AttributeError):
        # Linux: lower this thread's priority only, so page reruns come first.
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    steps = _state["steps"]
    start = time.perf_counter()
    from explorer.maps import Projector, import_umap

    umap = import_umap(cache_dir)

    steps["import"] = time.perf_counter() - start
    rng = np.random.default_rng(0)
    # The exact-neighbours path (fewer than 4,096 points), as the projections page runs it.
    start = time.perf_counter()
    Projector("umap", random_state=0).fit(rng.normal(size=(WARM_UP_POINTS, 8)))
    steps["exact"] = time.perf_counter() - start
    if nn_descent:
        # The NN-descent path (4,096 points and more), forced on a small input.
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            umap.UMAP(
                n_neighbors=5, random_state=0, n_jobs=1, force_approximation_algorithm=True
            ).fit(rng.normal(size=(200, 8)).astype(np.float32))
        steps["nn_descent"] = time.perf_counter() - start


def _run(cache_dir: str | os.PathLike | None, nn_descent: bool) -> None:
    start = time.perf_counter()
    try:
        _warm_up(cache_dir, nn_descent)
    except Exception as error:  # noqa: BLE001 - a failed warm-up only means a slower first UMAP
        _state["error"] = f"{type(error).__name__}: {error}"
    _state["seconds"] = time.perf_counter() - start
    freeze_survivors()


def freeze_survivors() -> None:
    """Collect garbage, then move every object the process still holds out of the cyclic
    garbage collector's reach (:func:`gc.freeze`); they are freed by reference counting as
    before, and objects made later are collected as before.

    Streamlit runs a full collection after every script run, which scans every tracked
    object. Called once the model is loaded (:mod:`explorer.ui.model_in_use`) and once the UMAP
    warm-up is done: importing umap-learn, pynndescent and numba adds some 186,000 objects,
    and with them tracked a full collection took 0.07 s, a third of a click on a 20,000-point
    map's server time (``bench.bigmap``)."""
    import gc

    gc.collect()
    gc.freeze()


def warm_up_umap(
    cache_dir: str | os.PathLike | None = None, nn_descent: bool = False
) -> threading.Thread:
    """Start compiling UMAP in a background daemon thread; returns the thread.

    Idempotent: later calls in the same process return the same thread (running or done).
    ``cache_dir`` is numba's on-disk cache (see :func:`configure_numba_cache`);
    ``nn_descent`` also compiles the path of inputs of 4,096 points or more (slow, see the
    module docstring). The thread never raises: :func:`warm_up_status` reports how long it
    took, or why it failed.
    """
    global _thread
    from explorer.maps import configure_numba_cache

    with _lock:
        if _thread is None:
            configure_numba_cache(cache_dir)
            _thread = threading.Thread(
                target=_run, args=(cache_dir, nn_descent), name="umap-warm-up", daemon=True
            )
            _thread.start()
        return _thread


def warm_up_status() -> dict[str, object]:
    """This process's UMAP warm-up: ``started``, ``done`` (bools), ``seconds`` (total, once
    done), ``steps`` (seconds per finished step: ``import``, ``exact``, ``nn_descent``) and
    ``error`` (``None``, or why it stopped)."""
    thread = _thread
    return {
        "started": thread is not None,
        "done": thread is not None and not thread.is_alive(),
        "seconds": _state["seconds"],
        "steps": dict(_state["steps"]),
        "error": _state["error"],
    }
