"""Shared fixtures: the bundled model and small random models saved to a temp folder."""

from __future__ import annotations

import os
from collections.abc import Iterator

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402

import explorer  # noqa: E402
from tests.tiny_models import (  # noqa: E402
    bundled_vocab_tokenizer,
    other_tokenizer,
    save_random,
    save_random_bert,
    save_random_model,
)

TUTORIAL = (
    "After stealing money from the bank vault, the bank robber was seen fishing on the "
    "Mississippi river bank."
)

TINY = {"hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 64}
"""The width of the tiny random BERTs (their depth is each fixture's own)."""


@pytest.fixture(scope="session")
def bundled() -> explorer.Model:
    """The real bundled model (6 layers, hidden 384, uncased WordPiece vocab)."""
    return explorer.load_model()


@pytest.fixture(scope="session")
def bert_base_path(tmp_path_factory) -> str:
    """A randomly initialised BERT of bert-base shape (12 layers x 768) with the bundled vocab."""
    folder = tmp_path_factory.mktemp("bert-base-random")
    return save_random_bert(folder, hidden_size=768, num_hidden_layers=12)


@pytest.fixture(scope="session")
def deep_narrow_path(tmp_path_factory) -> str:
    """A random BERT of bert-base depth and heads (12 layers x 12 heads) but 8 numbers a head
    (hidden 96): what the walks over every model need of a deep model (two-digit layers, many
    heads) at a hundredth of bert-base's weights."""
    return save_random_bert(
        tmp_path_factory.mktemp("bert-deep-narrow"),
        hidden_size=96,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=192,
    )


@pytest.fixture(scope="session")
def distilbert_path(tmp_path_factory) -> str:
    """A small random DistilBERT (no token type ids, no pooler) with the bundled vocab."""
    from transformers import DistilBertConfig, DistilBertModel, DistilBertTokenizer

    config = DistilBertConfig(vocab_size=30522, dim=64, hidden_dim=128, n_layers=3, n_heads=2)
    folder = tmp_path_factory.mktemp("distilbert-random")
    return save_random(folder, config, DistilBertModel, DistilBertTokenizer)


@pytest.fixture(scope="session")
def tiny_bert_path(tmp_path_factory) -> str:
    """A tiny random BERT (4 layers x 32) for fast invariant tests."""
    return save_random_bert(
        tmp_path_factory.mktemp("bert-tiny-random"), num_hidden_layers=4, **TINY
    )


@pytest.fixture(scope="session")
def masked_lm_path(tmp_path_factory) -> str:
    """A tiny random BertForMaskedLM (3 layers x 32) with the bundled vocab."""
    folder = tmp_path_factory.mktemp("bert-mlm-tiny")
    return save_random_bert(folder, masked_lm=True, num_hidden_layers=3, **TINY)


@pytest.fixture(scope="session")
def tiny(tiny_bert_path) -> explorer.Model:
    return explorer.load_model(tiny_bert_path)


@pytest.fixture(scope="session")
def tiny_roberta_path(tmp_path_factory) -> str:
    """A tiny random RoBERTa (2 layers x 32; positions start after the padding index) whose
    special tokens are ``<s>``, ``</s>``, ``<pad>``, ``<unk>``, ``<mask>``: the bundled
    WordPiece vocab with its [CLS], [SEP], ... renamed (as MPNet's), so every sentence naming a
    special token can be checked."""
    from transformers import BertTokenizer, RobertaConfig, RobertaModel

    folder = tmp_path_factory.mktemp("roberta-specials")
    tokenizer = bundled_vocab_tokenizer(
        BertTokenizer,
        folder,
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
    )
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        type_vocab_size=2,
        pad_token_id=0,
        max_position_embeddings=514,
    )
    return save_random_model(folder, config, RobertaModel, tokenizer)


@pytest.fixture(scope="session")
def tiny_roberta(tiny_roberta_path) -> explorer.Model:
    return explorer.load_model(tiny_roberta_path)


@pytest.fixture(scope="session")
def distilbert(distilbert_path) -> explorer.Model:
    return explorer.load_model(distilbert_path)


@pytest.fixture(scope="session")
def other_tokenizer_path(tmp_path_factory) -> str:
    """A tiny random BERT (3 layers x 32) whose tokenizer differs from the bundled model's
    (:func:`tests.tiny_models.other_tokenizer`): for the comparison tests."""
    from transformers import BertConfig, BertModel

    tokenizer = other_tokenizer()
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    folder = tmp_path_factory.mktemp("other-tokenizer")
    return save_random_model(folder, config, BertModel, tokenizer)


@pytest.fixture(scope="session", autouse=True)
def one_component_scan() -> Iterator[None]:
    """Every AppTest's first run scans the metadata of every installed distribution for
    Streamlit components (streamlit 1.67: ``AppTest._run`` makes a ``BidiComponentManager``,
    whose ``discover_and_register_components`` calls ``manifest_scanner.
    scan_component_manifests``): the metadata of the venv's 115 distributions, about 460 files
    read and parsed, 0.2-0.5 s an AppTest here, and tests/app alone makes 207 AppTests. The
    installed distributions do not change during a session, so the scan runs once and each
    AppTest still registers what it found (nothing, for this app) in a manager of its own."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    found: list[list] = []

    def scan_once(max_workers: int | None = None) -> list:
        if not found:
            found.append(scan(max_workers))
        return list(found[0])

    manifest_scanner.scan_component_manifests = scan_once
    try:
        yield
    finally:
        manifest_scanner.scan_component_manifests = scan


def pytest_collection_modifyitems(config, items):
    """The browser tests share one app server and one Chromium (tests/browser/conftest.py):
    under pytest-xdist's ``--dist loadgroup`` (pyproject's addopts) they run one after another
    in one process while the other process runs the rest."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("browser"))
