"""The shared model under concurrent sessions.

Streamlit serves every session from its own thread and ``cache.get_model`` hands all of them
the same ``Model``. Fast tokenizers are not thread-safe ("RuntimeError: Already borrowed"), so
``Model`` serializes tokenizer calls and forward passes with a lock. Here 8 threads hammer the
one bundled model at once (a barrier makes them start each round together) and every result
must equal the single-threaded one.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable

import numpy as np
import pytest
import torch

import explorer

THREADS = 8
ROUNDS = 3
LONG = "The bank by the river. " * 90  # 540 tokens: truncated to max_length


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """One intra-op thread while this module runs (the forward passes are serialized anyway)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def workload(i: int) -> dict[str, Callable[[explorer.Model], object]]:
    """The calls session ``i`` makes: different inputs and strategies for every session.

    Session 3 reads a text longer than ``max_length`` (truncated); the others short ones.
    """
    text = LONG if i == 3 else f"Visitor {i} walked to bank number {i}."
    pair = None if i % 2 else f"Was bank {i} open on day {i * 7}?"
    texts = [f"Bank {i} is by the river.", f"A bank{' and a river' * i} near the bank."]
    pooling = explorer.POOLINGS[i % len(explorer.POOLINGS)]
    layers = [*explorer.LAYER_CHOICES, -2][i % (len(explorer.LAYER_CHOICES) + 1)]
    subwords = explorer.SUBWORD_MODES[i % len(explorer.SUBWORD_MODES)]
    return {
        "tokenize": lambda model: model.tokenize(text, pair),
        "hidden_states": lambda model: model.hidden_states(text, pair),
        "sentence_embeddings": lambda model: explorer.sentence_embeddings(
            model, texts, pooling, layers, normalize=i % 2 == 0, exclude_special=i % 3 == 0
        ),
        "word_vectors": lambda model: explorer.word_vectors(model, texts, "bank", layers, subwords),
    }


def assert_same(got: object, expected: object, where: str) -> None:
    """Equal tokenizations and occurrences; arrays equal within 1e-5."""
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == expected.dtype, where
        np.testing.assert_allclose(got, expected, atol=1e-5, err_msg=where)
    elif isinstance(expected, list | tuple):
        assert type(got) is type(expected) and len(got) == len(expected), where
        for k, (g, e) in enumerate(zip(got, expected, strict=True)):
            assert_same(g, e, f"{where}[{k}]")
    else:
        assert got == expected, where


def run_threads(target: Callable[[int, threading.Barrier], None]) -> list[str]:
    """Run ``target(i, barrier)`` in ``THREADS`` threads; return the tracebacks of failures."""
    barrier = threading.Barrier(THREADS, timeout=60)
    errors: list[str] = []

    def guarded(i: int) -> None:
        try:
            target(i, barrier)
        except BaseException:  # noqa: BLE001 - report anything that escapes a session
            errors.append(f"thread {i}:\n{traceback.format_exc()}")
            barrier.abort()  # release the others instead of letting them wait for us

    threads = [threading.Thread(target=guarded, args=(i,), daemon=True) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a session thread hung"
    return errors


@pytest.mark.slow
def test_sessions_share_the_model_safely(bundled):
    calls = [workload(i) for i in range(THREADS)]
    expected = [{name: call(bundled) for name, call in c.items()} for c in calls]
    assert any(e["tokenize"].truncated for e in expected)
    assert any(not e["tokenize"].truncated for e in expected)
    results: list[list[dict[str, object]]] = [[] for _ in range(THREADS)]

    def session(i: int, barrier: threading.Barrier) -> None:
        names = list(calls[i])
        for round_ in range(ROUNDS):
            barrier.wait()
            # rotate the order so that different calls overlap in every round
            shift = (i + round_) % len(names)
            order = names[shift:] + names[:shift]
            results[i].append({name: calls[i][name](bundled) for name in order})

    started = time.perf_counter()
    errors = run_threads(session)
    assert not errors, "\n".join(errors)
    for i in range(THREADS):
        assert len(results[i]) == ROUNDS
        for round_, result in enumerate(results[i]):
            for name, value in expected[i].items():
                assert_same(result[name], value, f"session {i}, round {round_}, {name}")
    assert time.perf_counter() - started < 60


@pytest.mark.slow
def test_failed_and_successful_loads_do_not_disturb_other_sessions(bundled, tiny_bert_path):
    calls = [workload(i) for i in range(THREADS)]
    names = ("sentence_embeddings", "word_vectors")
    expected = [{name: calls[i][name](bundled) for name in names} for i in range(THREADS)]
    failures: list[str] = []
    loaded: list[explorer.Model] = []

    def session(i: int, barrier: threading.Barrier) -> None:
        for _ in range(ROUNDS):
            barrier.wait()
            if i == 0:
                with pytest.raises(ValueError) as error:
                    explorer.load_model("no-such/model")
                failures.append(str(error.value))
            elif i == 1:
                loaded.append(explorer.load_model(tiny_bert_path))
            else:
                for name in names:
                    assert_same(calls[i][name](bundled), expected[i][name], f"session {i} {name}")

    errors = run_threads(session)
    assert not errors, "\n".join(errors)
    assert len(failures) == ROUNDS and all("no-such/model" in m for m in failures)
    assert len(loaded) == ROUNDS and all(m.num_layers == 4 for m in loaded)
    # the shared model is untouched by the loads
    assert_same(calls[2]["word_vectors"](bundled), expected[2]["word_vectors"], "after the loads")


class _WatchedTokenizer:
    """Delegates to a real tokenizer; records whether two threads are ever inside a call."""

    def __init__(self, tokenizer) -> None:
        self._tokenizer = tokenizer
        self._guard = threading.Lock()
        self.inside = 0
        self.calls = 0
        self.overlaps = 0

    def __call__(self, *args, **kwargs):
        with self._guard:
            self.inside += 1
            self.calls += 1
            self.overlaps += self.inside > 1
        try:
            time.sleep(0.002)  # widen the window in which an unlocked caller would overlap
            return self._tokenizer(*args, **kwargs)
        finally:
            with self._guard:
                self.inside -= 1

    def __len__(self) -> int:
        return len(self._tokenizer)

    def __getattr__(self, name: str):
        return getattr(self._tokenizer, name)


def test_tokenizer_calls_never_overlap(bundled):
    """The lock works: no two sessions are ever inside the (stateful) fast tokenizer at once."""
    watched = _WatchedTokenizer(bundled.tokenizer)
    model = explorer.Model(bundled.name, bundled.source, watched, bundled.encoder)
    calls = [workload(i) for i in range(THREADS)]

    def session(i: int, barrier: threading.Barrier) -> None:
        for _ in range(2):
            barrier.wait()
            calls[i]["tokenize"](model)
            calls[i]["word_vectors"](model)

    errors = run_threads(session)
    assert not errors, "\n".join(errors)
    assert watched.calls >= THREADS * 2 * 2
    assert watched.overlaps == 0
