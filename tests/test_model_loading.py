"""Loading models and tokenizing: the bundled model, random BERT/DistilBERT folders, errors."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import explorer
from explorer.model.tokenization import MAX_CHARS, clean_text
from tests.conftest import TUTORIAL


def test_bundled_model_card(bundled):
    assert bundled.name == explorer.DEFAULT_MODEL
    assert (bundled.num_layers, bundled.hidden_size) == (6, 384)
    assert bundled.max_length == 512
    assert bundled.vocab_size == 30522
    assert bundled.lowercase
    assert not bundled.encoder.training


def test_tutorial_sentence_tokens(bundled):
    tokens = bundled.tokenize(TUTORIAL)
    assert len(tokens) == 22
    assert [i for i, t in enumerate(tokens.tokens) if t == "bank"] == [6, 10, 19]
    assert tokens.tokens[0] == "[CLS]" and tokens.tokens[-1] == "[SEP]"
    assert tokens.special == [True] + [False] * 20 + [True]
    assert tokens.attention_mask == [1] * 22
    assert not tokens.truncated


def test_unknown_word_splits_into_wordpieces(bundled):
    tokens = bundled.tokenize("embeddings")
    assert tokens.tokens == ["[CLS]", "em", "##bed", "##ding", "##s", "[SEP]"]
    assert tokens.subword == [False, False, True, True, True, False]
    assert tokens.words() == [(1, 5, 0, 10)]
    assert tokens.num_words == 1


def test_offsets_point_into_the_text(bundled):
    tokens = bundled.tokenize(TUTORIAL)
    for i in range(1, len(tokens) - 1):
        piece = tokens.segment_text(i).lower()
        assert piece == tokens.tokens[i].removeprefix("##")


def test_sentence_pair_segments(bundled):
    tokens = bundled.tokenize("The bank was closed.", "We sat on the river bank.")
    n_first = len(bundled.tokenize("The bank was closed."))  # [CLS] ... [SEP]
    assert tokens.segment_ids == [0] * n_first + [1] * (len(tokens) - n_first)
    assert tokens.tokens.count("[SEP]") == 2
    assert tokens.sequence_ids[1] == 0 and tokens.sequence_ids[-2] == 1
    assert tokens.segment_text(len(tokens) - 3) == "bank"


def test_long_text_is_truncated_not_crashing(bundled):
    text = "word " * 4000  # 20,000 characters
    tokens = bundled.tokenize(text)
    assert tokens.truncated
    assert len(tokens) == bundled.max_length
    states = bundled.hidden_states(text)
    assert states.shape == (7, 512, 384)


@pytest.mark.parametrize(
    ("text_words", "pair_words"),
    [(3000, 2500), (2500, 3000), (3000, 3000), (3000, 40), (40, 3000), (200, 200), (90, 95)],
)
def test_long_pairs_tokenize_as_the_uncut_tokenizer_does(bundled, text_words, pair_words):
    # Long segments of a pair are cut to a prefix before the tokenizer truncates them (its
    # overflow windows of two long segments cost GBs): the result must be what it would be.
    words = "The unbelievable river bank, its misunderstanding; photosynthesis!".split()
    text = " ".join(words[i % len(words)] for i in range(text_words))
    pair = " ".join(
        words[(i * (7 if pair_words != text_words else 1)) % len(words)] for i in range(pair_words)
    )
    found = bundled.tokenize(text, pair)
    expected = bundled.tokenizer(
        text, pair, truncation=True, max_length=bundled.max_length, return_offsets_mapping=True
    )
    assert found.ids == expected["input_ids"]
    assert found.segment_ids == expected["token_type_ids"]
    assert found.offsets == [tuple(o) for o in expected["offset_mapping"]]
    assert found.truncated == bool(expected.encodings[0].overflowing)
    rows = bundled.encode_batch([text, "short"], [pair, pair])
    assert rows[0]["input_ids"] == expected["input_ids"] and rows[0]["truncated"] == found.truncated


def test_hidden_states_shape_and_dtype(bundled):
    states = bundled.hidden_states(TUTORIAL)
    assert states.shape == (7, 22, 384)
    assert states.dtype == np.float32
    assert np.isfinite(states).all()


def test_hidden_states_batch_equals_single(bundled):
    texts = [TUTORIAL, "A short one.", "Embeddings are vectors of numbers."]
    batched = bundled.hidden_states_batch(texts)
    for text, states in zip(texts, batched, strict=True):
        np.testing.assert_allclose(states, bundled.hidden_states(text), atol=1e-5)


@pytest.mark.parametrize("text", ["", "   \n\t ", None, 42, "x" * (MAX_CHARS + 1)])
def test_bad_text_raises_value_error(bundled, text):
    with pytest.raises(ValueError):
        bundled.tokenize(text)


def test_control_characters_only_have_no_tokens(bundled):
    with pytest.raises(ValueError, match="no tokens"):
        bundled.hidden_states("\x00\x01\x02")


def test_lone_surrogates_and_emoji_are_read(bundled):
    assert clean_text("a\ud800b") == "a\ufffdb"
    tokens = bundled.tokenize("I 💙 BERT \ud83d and 日本語")
    assert len(tokens) > 3


def test_random_bert_base_from_folder(bert_base_path):
    model = explorer.load_model(bert_base_path)
    assert (model.num_layers, model.hidden_size) == (12, 768)
    states = model.hidden_states("The river bank.")
    assert states.shape[0] == 13
    assert explorer.token_vectors(model, "The river bank.", "concat_last4").shape[1] == 3072


def test_distilbert_has_zero_segments(distilbert_path):
    model = explorer.load_model(distilbert_path)
    assert model.model_type == "distilbert"
    assert model.num_layers == 3
    tokens = model.tokenize("A question?", "An answer.")
    assert set(tokens.segment_ids) == {0}
    assert model.hidden_states("A question?", "An answer.").shape == (4, len(tokens), 64)
    vectors = explorer.sentence_embeddings(model, ["One.", "Two words."], pooling="cls")
    assert vectors.shape == (2, 64)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("bert-base-uncased", "not in the local Hugging Face cache"),
        ("https://example.com/model", "URL"),
        ("file:///etc/passwd", "URL"),
        ("../no-such-folder/model", "not an existing folder"),
        ("bert; rm -rf /", "neither"),
        ("a/b/c", "not an existing folder"),
    ],
)
def test_unloadable_names_fail_fast_with_a_message(name, message):
    start = time.monotonic()
    with pytest.raises(ValueError, match=message):
        explorer.load_model(name)
    assert time.monotonic() - start < 10


def test_folder_without_config(tmp_path):
    with pytest.raises(ValueError, match="config.json"):
        explorer.load_model(str(tmp_path))


def test_not_an_encoder(tmp_path):
    from transformers import GPT2Config

    GPT2Config(n_layer=1, n_embd=8, n_head=2).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="not a BERT-family encoder"):
        explorer.load_model(str(tmp_path))


def test_pickle_only_checkpoint_needs_opt_in(tmp_path, tiny_bert_path):
    import shutil

    import torch
    from safetensors.torch import load_file

    for source in Path(tiny_bert_path).iterdir():
        if source.suffix != ".safetensors":
            shutil.copy(source, tmp_path)
    weights = load_file(Path(tiny_bert_path) / "model.safetensors")
    torch.save(weights, tmp_path / "pytorch_model.bin")
    with pytest.raises(ValueError, match="allow_pickle"):
        explorer.load_model(str(tmp_path))
    with pytest.warns(UserWarning, match="pickle"):
        loaded = explorer.load_model(str(tmp_path), allow_pickle=True)
    assert loaded.num_layers == 4


TYPED = "[CLS] the [SEP] river [PAD] bank [MASK] [UNK]"


def test_typed_special_tokens_are_plain_text(bundled):
    # issue 32, finding 14: a typed "[SEP]" became a real separator (and "[PAD]" a pad token)
    typed = bundled.tokenize(TYPED)
    assert typed.special == [True] + [False] * (len(typed) - 2) + [True]
    assert typed.tokens[1:5] == ["[", "cl", "##s", "]"] and "[SEP]" not in typed.tokens[1:-1]
    same = bundled.tokenize(TYPED.lower())  # an uncased model: the same pieces as any text
    assert (typed.ids, typed.offsets) == (same.ids, same.offsets)
    (row,) = bundled.encode_batch([TYPED])
    assert row["input_ids"] == typed.ids and row["special_tokens_mask"] == [1] + [0] * 20 + [1]
    pair = bundled.tokenize(TYPED, "[SEP] a second one")
    assert pair.tokens.count("[SEP]") == 2 and set(pair.segment_ids) == {0, 1}
    assert pair.segment_ids == [0] * len(typed) + [1] * (len(pair) - len(typed))
    # a text without them tokenizes as the tokenizer always did: every page's numbers stay
    for text in (TUTORIAL, "embeddings", "A [bracketed] word <s> and </s>."):
        assert bundled.tokenize(text).ids == bundled.tokenizer(text)["input_ids"]


@pytest.mark.parametrize("hub_off", [True, False])
def test_the_download_advice_names_a_command_the_hub_client_installs(monkeypatch, hub_off):
    # The message said `huggingface-cli download ...`; huggingface_hub 1.0 replaced that
    # command by `hf` (the installed package's console scripts say which exist).
    from importlib.metadata import distribution

    from explorer.model import loading

    monkeypatch.setattr(loading, "cached_snapshot", lambda name: None)
    monkeypatch.setattr(loading, "offline", lambda: hub_off)
    monkeypatch.setattr(loading, "hub_reachable", lambda: False)
    with pytest.raises(ValueError) as caught:
        explorer.load_model("bert-base-uncased")
    scripts = {
        e.name for e in distribution("huggingface_hub").entry_points if e.group == "console_scripts"
    }
    commands = [c for c in ("hf", "huggingface-cli") if f"({c} download" in str(caught.value)]
    assert commands and set(commands) <= scripts, str(caught.value)
    assert "bert-base-uncased" in str(caught.value).split("download", 1)[1]


def test_random_weights_have_as_many_parameters_as_their_model(masked_lm_path, tiny_bert_path):
    # A model read through its masked-LM class has no pooler; its twin from AutoModel had one,
    # so Compare models listed all-mpnet-base-v2 at 108.9 M beside its random weights at 109.5 M.
    from explorer.model.loading import random_weights

    for path in (masked_lm_path, tiny_bert_path):
        model = explorer.load_model(path)
        twin = random_weights(model)
        assert twin.num_parameters == model.num_parameters, path
        assert twin.hidden_states("A bank.").shape == model.hidden_states("A bank.").shape
