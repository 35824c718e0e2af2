"""Streamlit's private runtime, in one place: the names the app (and one bench) use that are not
part of Streamlit's public API, each with why no public one does. Checked against Streamlit
1.67.0 (the version pinned in requirements.txt); on an upgrade, check these first:
``tests/test_walls.py`` keeps every other module from importing ``streamlit.runtime``.

- :func:`get_script_run_ctx`, :class:`Runtime` and :class:`StopException` (for
  :func:`explorer.ui.compute.asker`): a long computation in a shared worker must learn that the
  script run that asked for it should end (a rerun, a stop, a closed tab). Streamlit has no
  public way to read the current session's id, poll its pending rerun (``ctx.yield_check``) or
  ask whether its browser is still connected (``Runtime.is_active_session``), and ends a run
  only by raising its own ``StopException``.
- :data:`script_run_context` (for :func:`explorer.ui.prewarm.start`): the module whose logger
  warns "missing ScriptRunContext" for every ``st`` call outside a script run; the prewarm
  thread makes such calls on purpose, and filters that logger by name.
- :class:`ScriptRunner` (for bench/runclock.py only): its ``_run_script`` is wrapped so that a
  bench's server times each script run itself; there is no public hook around a run.
"""

from __future__ import annotations

from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import ScriptRunner
from streamlit.runtime.scriptrunner_utils import script_run_context
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

__all__ = ["Runtime", "ScriptRunner", "StopException", "get_script_run_ctx", "script_run_context"]
