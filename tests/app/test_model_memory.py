"""EXPLORER_MODEL_MEMORY bounds every model alive, those other visitors' requests hold
included (issue 32): a model that does not fit beside them is refused on the page, saying what
would fit, and the picker keeps the model in use; no exception box."""

from __future__ import annotations

import pytest

from explorer.model.ref import ModelRef
from tests.app.rendered import plain

pytestmark = pytest.mark.slow

MB = 2**20
BUNDLED = "all-MiniLM-L6-v2 (bundled)"


class Busy:
    """Another visitor's model, in use while the test holds it."""

    weight_bytes = 60 * MB


@pytest.fixture
def models():
    from explorer.ui.model_in_use import MODELS

    MODELS.clear()
    yield MODELS
    MODELS.clear()


def test_a_model_that_does_not_fit_beside_those_in_use_is_refused_with_what_fits(
    page, models, tiny_bert_path, monkeypatch
):
    monkeypatch.setenv("EXPLORER_MODELS", tiny_bert_path)
    monkeypatch.setenv("EXPLORER_MODEL_MEMORY", "120MB")
    at = page("tokens")  # the bundled model (87 MB) loads
    assert not at.exception, [e.message for e in at.exception]
    models.clear()  # idle: it leaves; another visitor's request now holds 60 MB
    busy = models.get((ModelRef("other"), None), Busy)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    warning = plain(at.warning[0].value)
    assert warning.startswith(f"{BUNDLED} is not loaded at the moment."), warning
    assert "needs 87 MB" in warning and "at most 120 MB" in warning, warning
    assert "a model of up to 60 MB of weights" in warning, warning
    # The tiny model fits beside the one in use: the picker loads it.
    tiny = next(o for o in at.selectbox(key="model").options if o != BUNDLED)
    at.selectbox(key="model").set_value(tiny).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.warning and f"In use: {tiny}" in [plain(c.value) for c in at.sidebar.caption]
    assert models.bytes <= 120 * MB
    del busy  # the other request ends: the bundled model fits again
    at.selectbox(key="model").set_value(BUNDLED).run()
    assert not at.exception, [e.message for e in at.exception]
    assert f"In use: {BUNDLED}" in [plain(c.value) for c in at.sidebar.caption]
