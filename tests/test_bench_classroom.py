"""A class at once (issue 24, item 4): the light Streamlit client against a real server, the
bench's page list and model link, and ``EXPLORER_PREWARM``: after the prewarm, a page's first
visit runs the model no more."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench import classroom, runclock
from explorer.model.ref import ModelRef
from explorer.server import prewarm, settings
from explorer.ui.pages import PAGES
from harness import stclient
from harness.server import streamlit_server
from tests.app.conftest import open_page

# -- the client and the bench --------------------------------------------------------------------


@pytest.mark.slow
def test_two_sessions_open_a_page_on_a_real_server(tmp_path):
    """Two sessions open Layers together: both runs end with the page drawn (its chart and
    no exception), the server's clock logged both runs, and a page that does not exist is
    reported as such. About 15 s (the server starts and loads the model)."""
    clock = tmp_path / "clock"
    with streamlit_server(tmp_path / "server.log", env=runclock.server_env(clock)) as url:
        visits = stclient.visit_together(url, "layers", sessions=2, spread_s=0.5, timeout_s=120)
        assert [v.status for v in visits] == ["finished", "finished"]
        assert all(v.ok and v.seconds and v.runs >= 1 for v in visits), visits
        assert all(v.bytes > 20_000 for v in visits)  # the figures came, not only the sidebar
        runs = runclock.runs_since(clock, min(v.started for v in visits))
        assert len(runs) >= 2 and all(end > start for start, end in runs)
        assert max(v.seconds for v in visits) >= max(end - start for start, end in runs) - 0.05
        (missing,) = stclient.visit_together(url, "no-such-page", sessions=1, timeout_s=60)
        assert missing.page_not_found and not missing.ok


def test_a_visit_records_exceptions_errors_and_the_end_of_the_run():
    visit = stclient.Visit("tokens")
    broken = ForwardMsg()
    broken.delta.new_element.exception.type = "KeyError"
    broken.delta.new_element.exception.message = "'x'"
    error = ForwardMsg()
    error.delta.new_element.alert.body = "No text."
    error.delta.new_element.alert.format = 1  # Alert.ERROR
    done = ForwardMsg()
    done.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    assert stclient.read_forward(broken.SerializeToString(), visit) is None
    assert stclient.read_forward(error.SerializeToString(), visit) is None
    assert stclient.read_forward(done.SerializeToString(), visit) == 0
    assert visit.exceptions == ["KeyError: 'x'"] and visit.errors == ["No text."]
    assert visit.messages == 3


def test_the_request_names_the_page_and_the_query():
    from streamlit.proto.BackMsg_pb2 import BackMsg

    message = BackMsg()
    message.ParseFromString(stclient.rerun_message("tokens", "model=x"))
    assert message.WhichOneof("type") == "rerun_script"
    assert message.rerun_script.page_name == "tokens"
    assert message.rerun_script.query_string == "model=x"
    assert stclient.stream_url("http://127.0.0.1:8501") == "ws://127.0.0.1:8501/_stcore/stream"


def test_the_bench_opens_every_page_and_picks_a_folder_by_its_label(tmp_path):
    assert len(classroom.page_paths()) == len(PAGES)
    assert classroom.page_paths()["home"] == "" and classroom.page_paths()["probe"] == "probe"
    folder = tmp_path / "bert-base-sized"
    folder.mkdir()
    query, env = classroom.model_query(str(folder))
    assert env == {"EXPLORER_MODELS": str(folder)}
    label = settings.from_environment(env).label_of(str(folder))
    assert query == "model=bert-base-sized+%28local%29" and label == "bert-base-sized (local)"
    assert classroom.model_query(None) == ("", {})


# -- EXPLORER_PREWARM ----------------------------------------------------------------------------


def test_the_variable_names_the_models_to_prewarm(tmp_path):
    folder = tmp_path / "base"
    folder.mkdir()
    config = settings.from_environment({"EXPLORER_MODELS": str(folder)})
    bundled = config.models[0].source
    for value in ("", "0", "off", "False"):
        assert prewarm.prewarm_models(config, {"EXPLORER_PREWARM": value}) == ()
    assert prewarm.prewarm_models(config, {}) == ()
    assert prewarm.prewarm_models(config, {"EXPLORER_PREWARM": "1"}) == (ModelRef(bundled),)
    both = f"{folder}, base (local), {bundled}"
    assert prewarm.prewarm_models(config, {"EXPLORER_PREWARM": both}) == (
        ModelRef(str(folder)),
        ModelRef(bundled),
    )
    with pytest.raises(ValueError, match="EXPLORER_PREWARM.*not among the models"):
        prewarm.prewarm_models(config, {"EXPLORER_PREWARM": "/etc"})


def test_a_failed_warm_up_is_recorded_and_the_next_runs():
    done = []

    def fails(name: str) -> None:
        raise ValueError(f"cannot read {name}")

    warmups = (
        prewarm.Warmup("pages/a.py", "fails", fails),
        prewarm.Warmup("pages/b.py", "works", done.append),
    )
    report = prewarm.run(warmups, ["m"])
    assert done == ["m"] and report.done and report.total is not None
    assert report.errors == {"pages/a.py: fails": "ValueError: cannot read m"}
    assert set(report.seconds) == {"pages/a.py: fails", "pages/b.py: works"}
    assert report.summary().startswith(prewarm.DONE_MARK) and "1 failed" in report.summary()


@contextlib.contextmanager
def model_calls(monkeypatch) -> Iterator[list[str]]:
    """Every tokenization (:meth:`explorer.model.Model.tokenize`) and encoder forward pass
    (the bundled model is a ``BertModel``) made inside the block, by name."""
    from transformers import BertModel

    from explorer.model import Model

    calls: list[str] = []
    tokenize, forward = Model.tokenize, BertModel.forward

    def counted_tokenize(self, *args, **kwargs):
        calls.append("tokenize")
        return tokenize(self, *args, **kwargs)

    def counted_forward(self, *args, **kwargs):
        calls.append("forward")
        return forward(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Model, "tokenize", counted_tokenize)
        patch.setattr(BertModel, "forward", counted_forward)
        yield calls


def forget_results() -> None:
    """Empty every cache of results (the models stay loaded)."""
    import streamlit as st

    from explorer.ui import attention_heads, compute

    st.cache_data.clear()
    compute.clear()
    attention_heads.MEMO.clear()


def prewarmed(page: str) -> None:
    """Run the warm-ups of ``pages/<page>.py`` for the bundled model."""
    from explorer.ui.prewarm import WARMUPS

    models = prewarm.prewarm_models(settings.from_environment({}), {"EXPLORER_PREWARM": "1"})
    report = prewarm.run([w for w in WARMUPS if w.page == f"pages/{page}.py"], models)
    assert report.seconds and not report.errors, report.errors


@pytest.fixture
def no_prewarm_variable(monkeypatch):
    monkeypatch.delenv(prewarm.PREWARM_VARIABLE, raising=False)


def test_after_the_prewarm_the_tokens_page_runs_no_tokenizer(monkeypatch, no_prewarm_variable):
    """Without the prewarm, the Tokens page's first visit tokenizes its two texts; after it,
    none (the page reads the prewarmed cache: the same function, the same arguments)."""
    open_page("home")  # the model is loaded, as after the teacher's first visit
    forget_results()
    with model_calls(monkeypatch) as calls:
        open_page("tokens")
    assert calls.count("tokenize") == 2  # the text and the word: what the prewarm must cover
    forget_results()
    prewarmed("tokens")
    with model_calls(monkeypatch) as calls:
        open_page("tokens")
    assert calls == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "page", ["layers", "attention", "context", "contextual", "projections", "probe", "similarity"]
)
def test_after_the_prewarm_a_page_runs_no_model(monkeypatch, no_prewarm_variable, page):
    """Every other page: its first visit after its warm-ups makes no forward pass and no
    tokenization (3-15 s a page: the warm-ups compute for real)."""
    open_page("home")
    forget_results()
    prewarmed(page)
    with model_calls(monkeypatch) as calls:
        open_page(page)
    assert calls == []
