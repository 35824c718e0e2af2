"""A hub id that is not cached fails fast without a network: no long probe, no retries."""

from __future__ import annotations

import socket
import time

import pytest

import explorer
from explorer.model import hub


def test_uncached_hub_id_fails_fast_when_the_hub_cannot_be_resolved(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.invalid")  # never resolves (RFC 2606)
    start = time.monotonic()
    with pytest.raises(ValueError, match="cannot be reached"):
        explorer.load_model("bert-base-uncased")
    assert time.monotonic() - start < 5  # measured 0.4 s with no network


def test_uncached_hub_id_fails_at_once_when_the_hub_is_switched_off(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.monotonic()
    with pytest.raises(ValueError, match="switched off"):
        explorer.load_model("bert-base-uncased")
    assert time.monotonic() - start < 5


def test_probe_gives_up_within_its_timeout_even_when_connecting_hangs(monkeypatch):
    def hang(*args, **kwargs):  # a name lookup or a connect that never answers
        time.sleep(10)
        raise OSError("too late")

    monkeypatch.setattr(socket, "create_connection", hang)
    start = time.monotonic()
    assert not hub.hub_reachable(timeout=0.5)
    assert time.monotonic() - start < 2
    assert hub.HUB_PROBE_TIMEOUT <= 1.5
