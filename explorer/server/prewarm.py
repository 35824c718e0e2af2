"""``EXPLORER_PREWARM``: compute every page's built-in example once, before the class arrives.

When thirty visitors open the same page within a few seconds, each one's run waits for the
page's built-in example to be computed (once: the caches compute a key once even when several
sessions ask together) and for the model to load. With the operator option
``EXPLORER_PREWARM`` set, the server computes them in a background thread after it has drawn
its first page, so the first visitor of each page gets a cache hit.

The value of ``EXPLORER_PREWARM``:

- unset, empty, ``0``, ``false``, ``no``, ``off``: no prewarm (the default);
- ``1``, ``true``, ``yes``, ``on``: the default model (the first of the model picker, the
  bundled one);
- otherwise, comma-separated models as the operator wrote them in ``EXPLORER_MODELS`` (hub
  ids or folders) or their labels in the picker: each must be one the operator allows.

This module is plain Python: a :class:`Warmup` is a page and a call taking the model's name
(the UI layer, :mod:`explorer.ui.prewarm`, makes the calls through the pages' own caches, so
the keys are the pages' keys); :func:`start` runs them once per process in a daemon thread.
The thread runs at normal priority: what it computes is what the first visitors would
otherwise compute themselves, while they wait.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from explorer.model.ref import ModelRef
from explorer.server.settings import Settings

PREWARM_VARIABLE = "EXPLORER_PREWARM"
DONE_MARK = "explorer prewarm: done"
"""Starts the line the server prints when every warm-up has run (benches wait for it)."""

_OFF = ("", "0", "false", "no", "off")
_ON = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Warmup:
    """One page's built-in example: ``page`` (its script, ``"pages/tokens.py"``), ``what``
    it computes (for the log) and ``call(model_ref)``, which computes it for that model."""

    page: str
    what: str
    call: Callable[[ModelRef], object]


def prewarm_models(
    settings: Settings, environ: Mapping[str, str] | None = None
) -> tuple[ModelRef, ...]:
    """The models (trained, as the caches key them) ``EXPLORER_PREWARM`` asks to
    prewarm among the operator's ``settings``; empty when it is off. Raises ``ValueError``
    naming the variable for a model the operator does not offer."""
    environ = os.environ if environ is None else environ
    value = environ.get(PREWARM_VARIABLE, "").strip()
    if value.lower() in _OFF:
        return ()
    if value.lower() in _ON:
        return (ModelRef(settings.models[0].source),)
    allowed = {c.source: c.source for c in settings.models}
    allowed.update({c.label: c.source for c in settings.models})
    found = []
    for entry in (e.strip() for e in value.split(",")):
        if not entry:
            continue
        source = allowed.get(entry) or allowed.get(os.path.expanduser(entry))
        if source is None:
            raise ValueError(
                f"{PREWARM_VARIABLE}={value!r}: {entry!r} is not among the models this server "
                f"offers; use 1 (the default model), 0 (none) or models listed in "
                f"EXPLORER_MODELS, separated by commas."
            )
        found.append(ModelRef(source))
    return tuple(dict.fromkeys(found))


@dataclass
class Report:
    """What a prewarm did: seconds per warm-up (``"page: what"``), errors (the same keys,
    ``"Type: message"``), and its total seconds once ``done``."""

    models: tuple[ModelRef, ...] = ()
    seconds: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    total: float | None = None
    done: bool = False

    def summary(self) -> str:
        """One line for the server's log."""
        slowest = sorted(self.seconds.items(), key=lambda item: -item[1])[:3]
        return (
            f"{DONE_MARK} in {self.total or 0:.1f} s, {len(self.seconds)} warm-up(s) for "
            f"{len(self.models)} model(s), {len(self.errors)} failed"
            + (f"; slowest: {', '.join(f'{k} {v:.1f} s' for k, v in slowest)}" if slowest else "")
            + "".join(f"\n  failed: {k}: {v}" for k, v in self.errors.items())
        )


def run(
    warmups: Sequence[Warmup], models: Sequence[ModelRef], report: Report | None = None
) -> Report:
    """Every warm-up of ``warmups`` for every model of ``models``, in order, into ``report``.
    Never raises for a warm-up: its error is recorded and the next one runs (a failed
    warm-up only means a slower first visit)."""
    report = report or Report()
    report.models = tuple(models)
    start = time.perf_counter()
    for model in models:
        for warmup in warmups:
            key = (
                f"{model} · {warmup.page}: {warmup.what}"
                if len(models) > 1
                else (f"{warmup.page}: {warmup.what}")
            )
            began = time.perf_counter()
            try:
                warmup.call(model)
            except Exception as error:  # noqa: BLE001 - recorded, the next warm-up runs
                report.errors[key] = f"{type(error).__name__}: {error}"
            report.seconds[key] = time.perf_counter() - began
    report.total = time.perf_counter() - start
    report.done = True
    return report


_lock = threading.Lock()
_thread: threading.Thread | None = None
_report = Report()


def start(
    warmups: Sequence[Warmup],
    models: Sequence[ModelRef],
    on_done: Callable[[Report], None] | None = None,
) -> threading.Thread:
    """Run :func:`run` in a daemon thread named ``explorer-prewarm``, once per process; later
    calls return the same thread (running or done). ``on_done(report)`` is called at its end
    (the UI layer logs the summary)."""
    global _thread
    with _lock:
        if _thread is None:

            def work() -> None:
                run(warmups, models, _report)
                if on_done is not None:
                    on_done(_report)

            _thread = threading.Thread(target=work, name="explorer-prewarm", daemon=True)
            _thread.start()
        return _thread


def status() -> Report:
    """This process's prewarm so far (``done`` once every warm-up has run)."""
    return _report
