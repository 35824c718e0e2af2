"""An uploaded CSV is parsed once, not on every rerun (issue 32: a 1,000-column file made
every rerun of Projections take 4 s)."""

from __future__ import annotations

import pytest

from explorer import probing
from explorer.data import uploads

pytestmark = pytest.mark.slow

CSV = (
    "text,label,stars\n"
    + "".join(f"The bank raised rate number {i} once more.,finance,{i % 5}\n" for i in range(8))
    + "".join(f"We sat on river bank number {i} at noon.,nature,{i % 3}\n" for i in range(8))
).encode()


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _count(monkeypatch, module, name: str) -> list:
    calls: list = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_projections_parses_an_upload_once(page, monkeypatch):
    at = page("projections")
    at.radio(key="projections.source").set_value("upload").run()
    at.file_uploader(key="projections.csv").set_value(("once.csv", CSV, "text/csv"))
    at.run()
    _ok(at)
    calls = _count(monkeypatch, uploads, "read_csv")
    parsed = _count(monkeypatch, uploads, "labelled_texts")
    at.run()
    at.selectbox(key="projections.colour").select("column:stars").run()
    _ok(at)
    assert at.get("plotly_chart")
    assert calls == [] and parsed == [], (calls, parsed)
    # another choice of columns reads the texts again, from the table parsed once
    at.selectbox(key="projections.label_column").set_value("stars").run()
    _ok(at)
    assert calls == [] and parsed == ["labelled_texts"]


def test_the_probe_page_parses_an_upload_once(page, monkeypatch):
    at = page("probe")
    at.radio(key="probe.source").set_value("upload").run()
    at.file_uploader(key="probe.upload").set_value(("once.csv", CSV, "text/csv"))
    at.run()
    _ok(at)
    calls = _count(monkeypatch, probing, "read_labelled_csv")
    at.run()
    _ok(at)
    assert calls == []
