"""UMAP warm-up: one background thread per process, numba's cache on disk."""

from __future__ import annotations

import gc
import os
import re
import sys
import threading
import types
import warnings

import numpy as np
import pytest

from explorer.maps import _umap
from explorer.server import warmup


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A process with no warm-up started yet, and numba's cache in a temporary folder."""
    monkeypatch.setattr(warmup, "_thread", None)
    monkeypatch.setattr(warmup, "_state", {"seconds": None, "error": None, "steps": {}})
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    if "numba" in sys.modules:
        monkeypatch.setattr(sys.modules["numba"].config, "CACHE_DIR", str(tmp_path / "numba"))
    return tmp_path


def test_warm_up_starts_one_daemon_thread(fresh, monkeypatch):
    calls = []
    release = threading.Event()

    def fake(cache_dir, nn_descent):
        calls.append((cache_dir, nn_descent))
        release.wait(10)

    monkeypatch.setattr(warmup, "_warm_up", fake)
    thread = warmup.warm_up_umap()
    assert thread.daemon and thread.name == "umap-warm-up"
    assert warmup.warm_up_umap() is thread  # idempotent while running
    assert warmup.warm_up_status()["started"] and not warmup.warm_up_status()["done"]
    release.set()
    thread.join(10)
    status = warmup.warm_up_status()
    assert status["done"] and status["error"] is None and status["seconds"] >= 0
    assert warmup.warm_up_umap() is thread  # and once finished
    assert calls == [(None, False)]


def test_a_failed_warm_up_is_reported_not_raised(fresh, monkeypatch):
    def broken(cache_dir, nn_descent):
        raise ImportError("no umap here")

    monkeypatch.setattr(warmup, "_warm_up", broken)
    warmup.warm_up_umap().join(10)
    assert warmup.warm_up_status()["error"] == "ImportError: no umap here"


def test_the_warm_up_ends_by_freezing_what_survives_it(fresh, monkeypatch):
    calls = []
    monkeypatch.setattr(warmup, "_warm_up", lambda cache_dir, nn_descent: calls.append("warm"))
    monkeypatch.setattr(warmup, "freeze_survivors", lambda: calls.append("freeze"))
    warmup.warm_up_umap().join(10)
    assert calls == ["warm", "freeze"]


def test_freeze_survivors_takes_live_objects_out_of_the_collectors_reach():
    survivor = [[]]  # a container: tracked by the cyclic collector
    assert any(o is survivor for o in gc.get_objects())
    warmup.freeze_survivors()
    assert not any(o is survivor for o in gc.get_objects())  # frozen, still alive
    assert survivor == [[]]


def test_environment_cache_dir_wins(fresh, monkeypatch):
    assert _umap.configure_numba_cache(fresh / "other") == fresh / "numba"
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    folder = _umap.configure_numba_cache(fresh / "other")
    assert folder == fresh / "other" and folder.is_dir()
    assert os.environ["NUMBA_CACHE_DIR"] == str(folder)


def test_cache_default_is_restored():
    numba = pytest.importorskip("numba")
    before = numba.njit, numba.jit
    with _umap._numba_caches_by_default():
        assert numba.njit is not before[0]
    assert (numba.njit, numba.jit) == before


def test_cache_default_is_only_the_importing_threads(fresh):
    """Another thread's numba functions, made while umap-learn is imported, keep numba's
    default (pynndescent makes some per call; asked to cache them, numba warned)."""
    numba = pytest.importorskip("numba")

    def caches(function) -> bool:
        return type(function._cache).__name__ != "NullCache"

    made = {}
    with _umap._numba_caches_by_default():
        made["here"] = numba.njit(lambda x: x + 1)
        thread = threading.Thread(target=lambda: made.update(there=numba.njit(lambda x: x)))
        thread.start()
        thread.join(10)
    assert caches(made["here"]) and not caches(made["there"])


_STRIDED = np.arange(8.0)[::2]
"""A global array numba cannot freeze into compiled code (not contiguous): a function that
reads it has a dynamic global, so, asked to be cached on disk, it warns at compile time."""


def _uncacheable():
    """A new numba function, cached on disk as import_umap asks of umap-learn's, that numba
    cannot cache: its first call compiles it and warns "Cannot cache compiled function"."""
    import numba

    @numba.njit(cache=True)
    def first_value():
        return _STRIDED[0]

    return first_value


def _cache_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if "Cannot cache" in str(w.message)]


def test_a_first_umap_shows_no_numba_cache_warning(fresh, monkeypatch):
    """Issue 23.9: the first UMAP in a process compiles umap-learn's numba functions, and
    Projector.fit turns every warning into a note on the page: numba's "Cannot cache compiled
    function ..." reached visitors. UMAP here compiles a real uncacheable numba function."""
    pytest.importorskip("numba")
    from explorer import maps as projection
    from explorer.maps import _umap as umap_module

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _uncacheable()()
    assert _cache_warnings(caught), "numba no longer warns: this test reproduces nothing"

    class CompilingUMAP:
        """umap-learn's UMAP as fit_umap calls it; fitting compiles numba code."""

        def __init__(self, n_components=2, **kwargs):
            self.n_components = n_components

        def fit_transform(self, X):
            _uncacheable()()
            return np.random.default_rng(0).normal(size=(len(X), self.n_components))

    monkeypatch.setitem(sys.modules, "umap", types.SimpleNamespace(UMAP=CompilingUMAP))
    monkeypatch.setattr(umap_module, "_compiled", umap_module.umap_compiled())
    points = np.random.default_rng(1).normal(size=(30, 4))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fitted = projection.Projector("umap", random_state=0).fit(points)
    assert fitted.embedding_.shape == (30, 2)
    assert not [n for n in fitted.notes_ if "Cannot cache" in n], fitted.notes_
    assert not _cache_warnings(caught)


def test_only_numbas_cache_warning_is_dropped():
    numba = pytest.importorskip("numba")
    from explorer.maps._umap import quiet_numba_cache

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with quiet_numba_cache():
            for warning in (
                UserWarning("Cannot cache compiled function, says someone else"),
                numba.core.errors.NumbaWarning("Cannot cache compiled function x"),
                numba.core.errors.NumbaWarning("\x1b[1mCannot cache compiled function y\x1b[0m"),
                numba.core.errors.NumbaWarning(
                    "\x1b[1m\x1b[1mCannot cache compiled function z\x1b[0m\x1b[0m"
                ),
                numba.core.errors.NumbaWarning("Something else"),
            ):
                warnings.warn(warning, stacklevel=1)
    # numba may wrap its messages in the terminal's bold code, depending on what ran before.
    assert [re.sub(r"\x1b\[[0-9;]*m", "", str(w.message)) for w in caught] == [
        "Cannot cache compiled function, says someone else",
        "Something else",
    ]


@pytest.mark.slow
def test_real_warm_up_compiles_umap(fresh):
    from explorer import maps as projection

    thread = warmup.warm_up_umap()
    thread.join(600)
    status = warmup.warm_up_status()
    assert status["done"] and status["error"] is None, status
    assert set(status["steps"]) == {"import", "exact"}
    assert projection.umap_compiled()


def test_import_umap_waits_for_an_import_in_progress_in_another_thread(monkeypatch):
    """While one thread imports umap-learn, ``sys.modules`` holds the half-made module; another
    thread's import_umap waits for the whole one (a page's AlignedUMAP during the warm-up's
    import failed with "partially initialized module 'umap'")."""
    import sys
    import threading
    import types

    half, whole = types.ModuleType("umap"), types.ModuleType("umap")
    got = []
    with _umap._IMPORTING:  # as the warm-up thread, mid-import
        monkeypatch.setitem(sys.modules, "umap", half)
        other = threading.Thread(target=lambda: got.append(_umap.import_umap()), daemon=True)
        other.start()
        other.join(0.3)
        assert not got
        sys.modules["umap"] = whole
    other.join(5)
    assert got == [whole]
