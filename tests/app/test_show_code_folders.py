""" "Show code" never shows where the operator keeps a model: the UI passes the operator's folders
to the snippets (explorer.codegen.hide_folders), codegen no longer reads the environment."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.slow


def test_an_operator_folder_is_a_placeholder_in_show_code(
    page, tiny_bert_path, tmp_path, monkeypatch
) -> None:
    folder = tmp_path / "secret-bert"
    shutil.copytree(tiny_bert_path, folder)
    monkeypatch.setenv("EXPLORER_MODELS", str(folder))
    at = page("tokens")
    at.selectbox(key="model").set_value("secret-bert (local)").run()
    assert not at.exception, [e.message for e in at.exception]
    code = "\n".join(c.value for c in at.code)
    assert "name = 'path/to/secret-bert'  # the folder where you saved" in code
    assert str(tmp_path) not in code
