"""Operator settings: which models visitors may choose, the size limit, corpus folders."""

from __future__ import annotations

import os

import pytest

from explorer.model import DEFAULT_MODEL
from explorer.server import settings


def test_unset_offers_the_bundled_model_and_well_known_ids_without_free_entry():
    config = settings.from_environment({})
    assert config.models[0] == settings.ModelChoice(settings.BUNDLED_LABEL, DEFAULT_MODEL)
    assert [c.source for c in config.models[1:]] == list(settings.WELL_KNOWN_MODELS)
    assert not config.free_entry
    assert config.max_parameters == settings.DEFAULT_MAX_PARAMETERS
    assert config.corpora == ()


def test_a_star_turns_free_entry_on(monkeypatch):
    config = settings.from_environment({"EXPLORER_MODELS": "*"})
    assert config.free_entry
    assert config.models[0].source == DEFAULT_MODEL


def test_folders_are_labelled_by_their_name_never_their_path(tmp_path):
    first, second = tmp_path / "a" / "tiny-bert", tmp_path / "b" / "tiny-bert"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    config = settings.from_environment(
        {"EXPLORER_MODELS": f"{first}, bert-base-cased,{second},{DEFAULT_MODEL}"}
    )
    labels = [c.label for c in config.models]
    assert labels == [
        settings.BUNDLED_LABEL,
        "tiny-bert (local)",
        "bert-base-cased",
        "tiny-bert (local 2)",
    ]
    assert all(str(tmp_path) not in label for label in labels)
    assert config.choice("tiny-bert (local 2)").source == str(second)
    assert config.label_of(str(first)) == "tiny-bert (local)"
    assert config.label_of("typed/by-hand") == "typed/by-hand"
    assert config.choice("/etc") is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, settings.DEFAULT_MAX_PARAMETERS),
        ("", settings.DEFAULT_MAX_PARAMETERS),
        ("1000", 1000),
        ("350M", 350_000_000),
        ("1.5b", 1_500_000_000),
        (" 20 k ", 20_000),
        ("none", None),
    ],
)
def test_max_parameters_accepts_plain_and_suffixed_numbers(value, expected):
    assert settings.parse_parameters(value) == expected


@pytest.mark.parametrize("value", ["lots", "-5", "0", "3 GB", "1e9"])
def test_a_malformed_size_names_the_variable(value):
    with pytest.raises(ValueError, match="EXPLORER_MAX_PARAMETERS"):
        settings.parse_parameters(value)


def test_corpus_folders_split_on_commas_and_path_separators(tmp_path):
    value = f"{tmp_path / 'x'},{tmp_path / 'y'}:{tmp_path / 'x'}"
    assert settings.corpus_folders(value) == (tmp_path / "x", tmp_path / "y")


def test_messages_never_show_the_operators_server_folders(tmp_path):
    corpora, model = tmp_path / "srv" / "corpora", tmp_path / "models" / "tiny-bert"
    model.mkdir(parents=True)
    config = settings.from_environment(
        {"EXPLORER_CORPORA": f"{corpora}{os.sep}", "EXPLORER_MODELS": str(model)}
    )
    message = (
        f"{corpora}/tickets/vectors/mean/layer_06.npy is not a readable .npy file; "
        f"{model} has no config.json; {corpora} is empty."
    )
    shown = config.hide_paths(message)
    assert str(tmp_path) not in shown
    assert shown == (
        "tickets/vectors/mean/layer_06.npy is not a readable .npy file; "
        "tiny-bert (local) has no config.json; corpora is empty."
    )
    assert settings.from_environment({}).hide_paths(message) == message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, settings.DEFAULT_MODEL_MEMORY),
        ("", settings.DEFAULT_MODEL_MEMORY),
        ("1G", 1024**3),
        ("768M", 768 * 1024**2),
        ("1.5GB", int(1.5 * 1024**3)),
        ("2048", 2048),
    ],
)
def test_model_memory_accepts_bytes_and_suffixes(value, expected):
    assert settings.parse_bytes(value) == expected
    environ = {} if value is None else {"EXPLORER_MODEL_MEMORY": value}
    assert settings.from_environment(environ).model_memory == expected


@pytest.mark.parametrize("value", ["lots", "-1G", "0", "1T"])
def test_a_malformed_model_memory_names_the_variable(value):
    with pytest.raises(ValueError, match="EXPLORER_MODEL_MEMORY"):
        settings.parse_bytes(value)
