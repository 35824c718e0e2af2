"""A model folder that cannot load (issue 23.7): the sidebar says why, the previous model stays
in use and the picker goes back to it; no exception box, no server path on the page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.app.rendered import plain

pytestmark = pytest.mark.slow

BUNDLED = "all-MiniLM-L6-v2 (bundled)"


def _cut_weights(source: str, folder: Path) -> Path:
    """A copy of ``source`` whose model.safetensors lost its second half (SafetensorError)."""
    shutil.copytree(source, folder)
    weights = folder / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) // 2])
    return folder


def _wider_config(source: str, folder: Path) -> Path:
    """A copy of ``source`` whose config.json is twice as wide as its weights (RuntimeError:
    size mismatch)."""
    shutil.copytree(source, folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(hidden_size=2 * config["hidden_size"])
    config.update(intermediate_size=2 * config["intermediate_size"])
    (folder / "config.json").write_text(json.dumps(config))
    return folder


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_cut_weights, "a weight file is damaged or cut short"),
        (_wider_config, "its weights do not fit its config.json"),
    ],
)
def test_a_damaged_model_folder_is_a_message_and_the_previous_model_stays(
    page, tiny_bert_path, tmp_path, monkeypatch, make, message
) -> None:
    folder = make(tiny_bert_path, tmp_path / "damaged-model")
    monkeypatch.setenv("EXPLORER_MODELS", str(folder))
    at = page("tokens")
    at.text_area(key="tokens.text").input("The bank by the river.").run()
    tokens = at.dataframe[0].value["token"].tolist()
    at.selectbox(key="model").set_value("damaged-model (local)").run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [plain(e.value) for e in at.sidebar.error]
    assert len(errors) == 1 and message in errors[0], errors
    assert "'damaged-model (local)'" in errors[0] and str(tmp_path) not in errors[0], errors
    assert f"Still using {BUNDLED}." in [plain(c.value) for c in at.sidebar.caption]
    assert at.selectbox(key="model").value == BUNDLED
    assert at.dataframe[0].value["token"].tolist() == tokens


def test_an_unforeseen_failure_is_named_not_shown_as_a_traceback(
    page, tiny_bert_path, tmp_path, monkeypatch
) -> None:
    from explorer.model import loading

    folder = tmp_path / "huge-model"
    shutil.copytree(tiny_bert_path, folder)
    load_model = loading.load_model

    def out_of_memory(name=None, **kwargs):
        if name == str(folder):
            raise MemoryError
        return load_model(name, **kwargs)

    monkeypatch.setattr(loading, "load_model", out_of_memory)
    monkeypatch.setenv("EXPLORER_MODELS", str(folder))
    at = page("home")
    at.selectbox(key="model").set_value("huge-model (local)").run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [plain(e.value) for e in at.sidebar.error]
    assert errors == [
        "huge-model (local) could not be loaded (MemoryError); the server's log says why."
    ]
    assert at.selectbox(key="model").value == BUNDLED


def test_a_config_that_hides_its_size_is_refused_before_loading(
    page, tiny_bert_path, tmp_path, monkeypatch
) -> None:
    """Issue 23.5 on the page: "embedding_size": 1 made the estimate 8.7 M for a 776 M model."""
    folder = tmp_path / "lying-model"
    shutil.copytree(tiny_bert_path, folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(vocab_size=1_000_000, hidden_size=768, embedding_size=1)
    config.update(num_attention_heads=12, intermediate_size=3072, num_hidden_layers=1)
    (folder / "config.json").write_text(json.dumps(config))
    monkeypatch.setenv("EXPLORER_MODELS", str(folder))
    monkeypatch.setenv("EXPLORER_MAX_PARAMETERS", "400M")
    at = page("home")
    at.selectbox(key="model").set_value("lying-model (local)").run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [plain(e.value) for e in at.sidebar.error]
    assert errors == [
        "'lying-model (local)' has about 776 M parameters; this server allows at most 400 M."
    ], errors
    assert at.selectbox(key="model").value == BUNDLED
