"""Parameter counts from a configuration, and the size limit checked before any weight."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
import torch

import explorer
from explorer.model import estimate_parameters
from explorer.model import loading as loading_module
from explorer.model.loading import ENCODER_TYPES
from explorer.model.size import count_parameters


def _real_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize(
    ("config_name", "model_name", "sizes"),
    [
        ("BertConfig", "BertModel", {"hidden_size": 48, "intermediate_size": 96}),
        ("DistilBertConfig", "DistilBertModel", {"dim": 48, "hidden_dim": 96, "n_heads": 2}),
        ("RobertaConfig", "RobertaModel", {"hidden_size": 48, "intermediate_size": 96}),
    ],
)
def test_estimate_matches_tiny_random_models(config_name, model_name, sizes):
    import transformers

    extra = {} if config_name.startswith("Distil") else {"num_attention_heads": 2}
    layers = {"n_layers": 3} if config_name.startswith("Distil") else {"num_hidden_layers": 3}
    config = getattr(transformers, config_name)(vocab_size=1000, **sizes, **layers, **extra)
    real = _real_count(getattr(transformers, model_name)(config))
    assert abs(estimate_parameters(config) - real) <= 0.02 * real
    # The dict of a config.json gives the same count.
    assert estimate_parameters(json.loads(config.to_json_string())) == estimate_parameters(config)


@pytest.mark.parametrize("model_type", ENCODER_TYPES)
def test_estimate_matches_every_supported_type(model_type):
    from transformers import AutoConfig, AutoModel

    config = AutoConfig.for_model(model_type)  # base sizes, built on the meta device: no memory
    with torch.device("meta"):
        real = _real_count(AutoModel.from_config(config))
    assert abs(estimate_parameters(config) - real) <= 0.01 * real


def test_estimate_matches_the_bundled_model(bundled):
    real = bundled.num_parameters
    assert abs(estimate_parameters(bundled.encoder.config) - real) <= 0.02 * real


@pytest.mark.parametrize(
    "config",
    [{}, {"model_type": "bert", "hidden_size": "wide"}, {"model_type": "bert", "vocab_size": -5}],
)
def test_unusable_configs_raise_value_error(config):
    with pytest.raises(ValueError):
        estimate_parameters(config)


def _huge_config_folder(source: str, folder: Path) -> Path:
    """A copy of a tiny random BERT whose config.json claims ~10 billion parameters."""
    shutil.copytree(source, folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(vocab_size=10_000_000, hidden_size=1024, num_attention_heads=2)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _forbid_loading(monkeypatch):
    import transformers

    def refuse(*args, **kwargs):
        raise AssertionError("weights or tokenizer read before the size check")

    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", refuse)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", refuse)


def test_huge_config_fails_fast_without_reading_weights(tmp_path, tiny_bert_path, monkeypatch):
    folder = _huge_config_folder(tiny_bert_path, tmp_path / "huge")
    import transformers  # noqa: F401 - imported already by the app; not part of the timing

    _forbid_loading(monkeypatch)
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"about 10\.3 B parameters.*at most 200 M") as error:
        explorer.load_model(str(folder), max_parameters=200_000_000)
    assert time.monotonic() - start < 1.0
    assert "this server allows" in str(error.value)


def test_limit_admits_models_below_it_and_none_means_no_limit(tiny_bert_path, tiny):
    assert explorer.load_model(tiny_bert_path, max_parameters=200_000_000).num_parameters == (
        tiny.num_parameters
    )
    with pytest.raises(ValueError, match="at most 1,000"):
        explorer.load_model(tiny_bert_path, max_parameters=1000)
    assert explorer.load_model(tiny_bert_path, max_parameters=None).num_layers == 4


@pytest.mark.parametrize("limit", [0, -1, "big", True, float("nan")])
def test_bad_limits_raise_value_error(tiny_bert_path, limit):
    with pytest.raises(ValueError, match="max_parameters"):
        explorer.load_model(tiny_bert_path, max_parameters=limit)


def test_weight_files_larger_than_the_config_are_refused(tmp_path, tiny_bert_path, monkeypatch):
    folder = tmp_path / "padded"
    shutil.copytree(tiny_bert_path, folder)
    with open(folder / "model-00002-of-00002.safetensors", "wb") as handle:
        handle.truncate(2_000_000_000)  # sparse: no disk used, never read
    _forbid_loading(monkeypatch)
    with pytest.raises(ValueError, match=r"about 50\d M parameters.*at most 200 M"):
        explorer.load_model(str(folder), max_parameters=200_000_000)


def test_hub_model_is_sized_from_its_metadata_before_any_download(monkeypatch):
    """The online path, without a network: a small config but 4 GB of safetensors."""
    from transformers import AutoConfig, BertConfig

    monkeypatch.setattr(loading_module, "_resolve", lambda name: (name, name, False))
    monkeypatch.setattr(
        AutoConfig, "from_pretrained", classmethod(lambda cls, *a, **k: BertConfig())
    )
    files = {"model.safetensors": 4_000_000_000, "pytorch_model.bin": 9, "onnx/model.onnx": 9}
    monkeypatch.setattr(loading_module, "repo_files", lambda repo_id: files)
    _forbid_loading(monkeypatch)
    with pytest.raises(ValueError, match=r"'org/big' has about 1\.0 B parameters"):
        explorer.load_model("org/big", max_parameters=500_000_000)
    # The config alone is over the limit: refused before the metadata is asked for.
    monkeypatch.setattr(loading_module, "repo_files", lambda repo_id: pytest.fail("asked"))
    with pytest.raises(ValueError, match=r"about 109 M parameters.*at most 100 M"):
        explorer.load_model("org/big", max_parameters=100_000_000)


def test_config_json_with_a_wrong_type_is_a_value_error(tmp_path, tiny_bert_path):
    folder = tmp_path / "bad"
    shutil.copytree(tiny_bert_path, folder)
    config = json.loads((folder / "config.json").read_text())
    config["hidden_size"] = "wide"
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="configuration"):
        explorer.load_model(str(folder), max_parameters=200_000_000)


def _lying_config_folder(source: str, folder: Path, **sizes) -> Path:
    """A copy of a tiny random BERT (its small weights kept) whose config.json sets
    ``sizes``: transformers would initialise every weight the files lack."""
    shutil.copytree(source, folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(sizes)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def test_a_field_bert_ignores_cannot_shrink_the_count(tmp_path, tiny_bert_path, monkeypatch):
    """Issue 23.5: vocab 1,000,000 x hidden 768 with "embedding_size": 1, which the estimate
    trusts (8.7 M) but BertModel ignores (776 M): refused before any weight is allocated."""
    lying = dict(vocab_size=1_000_000, hidden_size=768, embedding_size=1, num_attention_heads=12)
    lying.update(intermediate_size=3072, num_hidden_layers=1)
    folder = _lying_config_folder(tiny_bert_path, tmp_path / "lying", **lying)
    assert estimate_parameters(json.loads((folder / "config.json").read_text())) < 10**7
    _forbid_loading(monkeypatch)
    with pytest.raises(ValueError, match=r"about 776 M parameters.*at most 200 M"):
        explorer.load_model(str(folder), max_parameters=200_000_000)


@pytest.mark.parametrize("model_type", ["bert", "distilbert", "albert", "modernbert"])
def test_count_is_the_architectures(model_type):
    from transformers import AutoConfig, AutoModel

    config = AutoConfig.for_model(model_type)
    with torch.device("meta"):
        real = _real_count(AutoModel.from_config(config))
    count_parameters(config)  # the type's modelling code imported: not part of the timing
    start = time.perf_counter()
    assert count_parameters(config) == real
    assert time.perf_counter() - start < 1.0


def test_count_refuses_configs_it_cannot_build_or_too_deep():
    from transformers import BertConfig

    with pytest.raises(ValueError, match="100,000 layers; this server sizes models of at most"):
        count_parameters(BertConfig(num_hidden_layers=100_000, hidden_size=2))
    with pytest.raises(ValueError, match="cannot be built"):
        count_parameters(BertConfig(hidden_size=10, num_attention_heads=3))
