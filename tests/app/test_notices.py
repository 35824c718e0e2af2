"""AppTest: Home and "Which layer?" open with what to notice, computed from their numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ui.model_in_use import PICKER_KEY
from tests.app.rendered import plain


def _ok(at) -> None:
    assert not at.exception, [e.message for e in at.exception]


def test_home_opens_with_the_numbers_of_the_model_in_use(page, tiny_bert_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_MODELS", tiny_bert_path)
    at = page("home")
    first = plain(at.info[0].value)
    assert first.startswith("all-MiniLM-L6-v2 (bundled) cuts a text into at most 512")
    assert "7 vectors of 384 numbers" in first and "= 26,880 numbers" in first
    at.selectbox(key=PICKER_KEY).set_value(f"{Path(tiny_bert_path).name} (local)").run()
    _ok(at)
    changed = plain(at.info[0].value)
    assert "5 vectors of 32 numbers" in changed and "= 1,600 numbers" in changed
    assert tiny_bert_path not in changed  # a server path never shows


@pytest.mark.slow
def test_probe_opens_with_the_best_layers_and_the_baseline(page):
    at = page("probe")
    _ok(at)
    first = plain(at.info[0].value)
    metrics = {m.label: m.value for m in at.metric}
    best = next(label for label in metrics if label.startswith("Best: layer"))
    assert first.startswith("The word's sense is read best at " + best.removeprefix("Best: "))
    assert metrics[best] in first
    assert f"({metrics['Majority baseline']})" in first
    word = at.selectbox(key="probe.word").options[1]
    at.selectbox(key="probe.word").set_value(word).run()
    _ok(at)
    assert plain(at.info[0].value) != first
    at.selectbox(key="probe.dataset").set_value("Sentiment (sentence level)").run()
    _ok(at)
    assert plain(at.info[0].value).startswith(
        ("The label is read best", "No layer reads the label")
    )
