"""Shared fixtures: the bundled model and small random models saved to a temp folder."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402
import torch  # noqa: E402

import explorer  # noqa: E402
from explorer.model.loading import bundled_model_path  # noqa: E402

TUTORIAL = (
    "After stealing money from the bank vault, the bank robber was seen fishing on the "
    "Mississippi river bank."
)


@pytest.fixture(scope="session")
def bundled() -> explorer.Model:
    """The real bundled model (6 layers, hidden 384, uncased WordPiece vocab)."""
    return explorer.load_model()


def _save_random(folder, config, model_class, tokenizer_class):
    from transformers import AutoTokenizer

    torch.manual_seed(0)
    model_class(config).eval().save_pretrained(folder)
    source = AutoTokenizer.from_pretrained(bundled_model_path())
    tokenizer = tokenizer_class(vocab=str(bundled_model_path() / "vocab.txt"), do_lower_case=True)
    tokenizer.model_max_length = source.model_max_length
    tokenizer.save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="session")
def bert_base_path(tmp_path_factory) -> str:
    """A randomly initialised BERT of bert-base shape (12 layers x 768) with the bundled vocab."""
    from transformers import BertConfig, BertModel, BertTokenizer

    config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12)
    folder = tmp_path_factory.mktemp("bert-base-random")
    return _save_random(folder, config, BertModel, BertTokenizer)


@pytest.fixture(scope="session")
def distilbert_path(tmp_path_factory) -> str:
    """A small random DistilBERT (no token type ids, no pooler) with the bundled vocab."""
    from transformers import DistilBertConfig, DistilBertModel, DistilBertTokenizer

    config = DistilBertConfig(vocab_size=30522, dim=64, hidden_dim=128, n_layers=3, n_heads=2)
    folder = tmp_path_factory.mktemp("distilbert-random")
    return _save_random(folder, config, DistilBertModel, DistilBertTokenizer)


@pytest.fixture(scope="session")
def tiny_bert_path(tmp_path_factory) -> str:
    """A tiny random BERT (4 layers x 32) for fast invariant tests."""
    from transformers import BertConfig, BertModel, BertTokenizer

    config = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=4,
        num_attention_heads=2,
        intermediate_size=64,
    )
    folder = tmp_path_factory.mktemp("bert-tiny-random")
    return _save_random(folder, config, BertModel, BertTokenizer)


@pytest.fixture(scope="session")
def masked_lm_path(tmp_path_factory) -> str:
    """A tiny random BertForMaskedLM (3 layers x 32) with the bundled vocab."""
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    config = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        intermediate_size=64,
    )
    folder = tmp_path_factory.mktemp("bert-mlm-tiny")
    return _save_random(folder, config, BertForMaskedLM, BertTokenizer)


@pytest.fixture(scope="session")
def tiny(tiny_bert_path) -> explorer.Model:
    return explorer.load_model(tiny_bert_path)


ROBERTA_SPECIALS = {
    "[PAD]": "<pad>",
    "[UNK]": "<unk>",
    "[CLS]": "<s>",
    "[SEP]": "</s>",
    "[MASK]": "<mask>",
}


@pytest.fixture(scope="session")
def tiny_roberta_path(tmp_path_factory) -> str:
    """A tiny random RoBERTa (2 layers x 32) whose special tokens are ``<s>``, ``</s>``,
    ``<pad>``, ``<unk>``, ``<mask>``: the bundled WordPiece vocab with its [CLS], [SEP], ...
    renamed (as MPNet's), so every sentence naming a special token can be checked."""
    from transformers import BertTokenizer, RobertaConfig, RobertaModel

    folder = tmp_path_factory.mktemp("roberta-specials")
    words = (bundled_model_path() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    vocab = folder / "source-vocab.txt"
    vocab.write_text("\n".join(ROBERTA_SPECIALS.get(w, w) for w in words) + "\n", "utf-8")
    config = RobertaConfig(
        vocab_size=len(words),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        type_vocab_size=2,
        pad_token_id=0,
        max_position_embeddings=514,
    )
    torch.manual_seed(0)
    RobertaModel(config).eval().save_pretrained(folder)
    tokenizer = BertTokenizer(
        vocab=str(vocab),
        do_lower_case=True,
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
    )
    tokenizer.model_max_length = 512
    tokenizer.save_pretrained(folder)
    return str(folder)
