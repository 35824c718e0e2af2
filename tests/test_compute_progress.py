"""Progress bars move at most once a second (explorer.ui.progress.throttled)."""

from __future__ import annotations

from explorer.ui.progress import throttled


def test_throttled_passes_the_first_call_then_one_a_period_and_always_the_last():
    calls, now = [], [0.0]
    move = throttled(lambda done, total: calls.append(done), every=1.0, clock=lambda: now[0])
    for done in range(1, 11):  # ten batches, 0.3 s apart
        move(done, 10)
        now[0] += 0.3
    # t = 0.0 (first), 1.2, 2.4 pass; t = 2.7 is the last batch: always shown
    assert calls == [1, 5, 9, 10]


def test_throttled_with_no_period_passes_every_call():
    calls = []
    move = throttled(lambda done, total: calls.append((done, total)), every=0.0)
    for done in range(1, 4):
        move(done, 3)
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_a_progress_callback_stops_a_corpus_nobody_waits_for_and_keeps_nothing(tiny):
    """The corpus embedding's ``(done, total)`` callback from :func:`progress_bar` runs the
    pool's checkpoint: once the asker's check fails (its session has gone), the forward passes
    stop at the next batch, nothing is kept and the turn is free again."""
    import pytest

    import explorer
    from explorer.server.memo import Memo, Pool
    from explorer.ui.progress import progress_bar

    pool = Pool(max_bytes=2**30, max_running=2, max_heavy=1)
    memo = Memo(2**30, pool=pool)
    texts = [f"Text number {i} about the bank of the river." for i in range(64)]
    batches = []

    def check():
        if len(batches) >= 2:
            raise RuntimeError("the session has gone")

    def compute():
        with progress_bar("Embedding…") as report:

            def step(done, total):
                batches.append(done)
                report(done, total)

            return explorer.embed_corpus(tiny, texts, step, max_batch_size=8)

    with pytest.raises(RuntimeError, match="gone"):
        memo.get("corpus", compute, heavy=True, owner="session", check=check)
    assert len(batches) == 2 and "corpus" not in memo  # 8 batches, stopped after the 2nd
    assert pool.running == (0, 0)
    assert len(memo.get("corpus", compute, heavy=True)) == 64


def test_the_asker_check_ends_work_of_a_rerun_or_a_gone_session(monkeypatch):
    """``compute.asker()`` reads the script run of this thread: its check raises Streamlit's
    rerun exception once a rerun is pending (the run's ``yield_check``) and its stop exception
    once the session is no longer active in the runtime."""
    import types

    import pytest
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner_utils import script_run_context
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException

    from explorer.ui import compute

    pending, active = [], {"session 1"}

    def yield_check():
        if pending:
            raise RerunException(None)

    ctx = types.SimpleNamespace(session_id="session 1", yield_check=yield_check)
    monkeypatch.setattr(script_run_context, "get_script_run_ctx", lambda **_: ctx)
    # the name as explorer.ui._streamlit_runtime bound it when first imported
    from explorer.ui import _streamlit_runtime

    monkeypatch.setattr(_streamlit_runtime, "get_script_run_ctx", lambda **_: ctx)
    runtime = types.SimpleNamespace(is_active_session=lambda session: session in active)
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: runtime))
    owner, check = compute.asker()
    assert owner == "session 1"
    check()  # nothing pending, still connected
    pending.append("rerun")
    with pytest.raises(RerunException):
        check()
    pending.clear()
    active.clear()
    with pytest.raises(StopException):
        check()
