"""The Attention page's sentences say what the numbers on screen say, for any model."""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer.attention import _weights as attention
from explorer.figures.attention_notices import (
    change,
    head_sentence,
    influence_notice,
    percent,
    special_shares,
    what_to_notice,
)
from explorer.model import attentions

TEXTS = (
    ("After stealing money from the bank vault, the bank robber was seen fishing.", None),
    ("Short one.", "And a second sentence, as a pair?"),
    ("Dogs, cats; birds! " * 12, None),
)
MODELS = ("bundled", "tiny_bert_path", "distilbert_path", "deep_narrow_path")


def percents(sentence: str) -> list[int]:
    return [int(number) for number in re.findall(r"\*\*(\d+)%\*\*", sentence)]


def check_influence_sentence(influence, tokens, specials) -> None:
    sentence = influence_notice(influence, tokens, specials)
    shares = special_shares(influence, tokens, specials)
    name = max(shares, key=lambda token: shares[token][0])
    raw, weighted = shares[name]
    assert f"of the raw attention goes to `{name}`" in sentence
    shown = percents(sentence)
    assert shown[0] == percent(raw)
    if weighted is None:
        assert len(shown) == 1
        return
    assert shown[1] == percent(weighted)
    if "but only" in sentence:
        assert percent(weighted) < percent(raw) and change(raw, weighted) == "lower"
    elif "understate" in sentence:
        assert percent(weighted) > percent(raw) and change(raw, weighted) == "higher"
    else:
        assert "about as much" in sentence and change(raw, weighted) == "same"
        assert abs(percent(weighted) - percent(raw)) <= max(2, 0.25 * percent(raw))


def check_statistics_sentence(stats, cls: str, sep: str) -> None:
    sentence = what_to_notice(stats, cls, sep)
    shares = {cls: stats["cls"].mean(), sep: stats["sep"].mean()}
    first = max(shares, key=shares.get)
    assert sentence.split(" of all attention lands on ")[1].startswith(f"`{first}`")
    assert percents(sentence) == [percent(shares[first]), percent(min(shares.values()))]
    column = "cls" if first == cls else "sep"
    by_layer = stats.groupby("layer")[column].mean()
    most = re.search(r"most in layers? ([\d, and-]+)\)", sentence).group(1)
    named = {int(n) for n in re.findall(r"\d+", most)}
    if "-" in most:
        low, high = sorted(named)
        named = set(range(low, high + 1))
    assert named == set(by_layer.nlargest(2).index)


@pytest.mark.slow
@pytest.mark.parametrize("which", MODELS)
def test_sentences_agree_with_the_numbers_on_every_model(which, request) -> None:
    fixture = request.getfixturevalue(which)
    model = fixture if which == "bundled" else explorer.load_model(fixture)
    cls, sep = model.tokenizer.cls_token, model.tokenizer.sep_token
    for text, pair in TEXTS:
        result = attentions.attention_pass(model, text, pair)
        tokens = result.tokenization.tokens
        stats = attention.head_statistics(result.attentions, tokens, cls, sep)
        check_statistics_sentence(stats, cls, sep)
        rolled = attention.rollout(result.attentions)
        norms = attention.value_norms(model, result.hidden_states)
        for layer in range(1, result.attentions.shape[0] + 1):
            influence = attention.layer_influence(result.attentions, rolled, norms, layer)
            check_influence_sentence(influence, tokens, (cls, sep))
            without = attention.layer_influence(result.attentions, rolled, None, layer)
            check_influence_sentence(without, tokens, (cls, sep))


def _influence(raw_on_cls: float, weighted_on_cls: float) -> attention.LayerInfluence:
    """Three tokens; every row gives ``raw_on_cls`` to [CLS] and the rest to "a"."""
    raw = np.tile([raw_on_cls, 1 - raw_on_cls, 0.0], (3, 1)).astype(np.float32)
    weighted = np.tile([weighted_on_cls, 1 - weighted_on_cls, 0.0], (3, 1)).astype(np.float32)
    return attention.LayerInfluence(3, raw, weighted, raw)


def test_a_model_resting_on_cls_is_described_by_cls() -> None:
    # The bundled model's layer 3: most raw attention on [CLS], little on [SEP]; the old
    # sentence spoke of [SEP] only.
    sentence = influence_notice(_influence(0.52, 0.12), ["[CLS]", "a", "[SEP]"], ("[CLS]", "[SEP]"))
    assert "**52%** of the raw attention goes to `[CLS]`" in sentence
    assert "but only **12%**" in sentence


@pytest.mark.parametrize(
    ("raw", "weighted", "word"),
    [(0.5, 0.1, "but only"), (0.1, 0.3, "understate"), (0.30, 0.29, "about as much")],
)
def test_direction_words_follow_the_numbers(raw, weighted, word) -> None:
    sentence = influence_notice(_influence(raw, weighted), ["[CLS]", "a", "[SEP]"], ("[CLS]",))
    assert word in sentence
    check_influence_sentence(_influence(raw, weighted), ["[CLS]", "a", "[SEP]"], ("[CLS]",))


def test_layers_named_are_the_layers_with_most_attention() -> None:
    stack = np.zeros((5, 1, 5, 5), np.float32)
    stack[:, :, :, 1] = 1
    stack[[0, 2], :, :, 1] = 0
    stack[[0, 2], :, :, 4] = 1  # layers 1 and 3 rest on [SEP]: not a range 1-3
    stats = attention.head_statistics(stack, ["[CLS]", "a", "b", "c", "[SEP]"])
    sentence = what_to_notice(stats)
    assert "most in layers 1 and 3" in sentence


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        ("previous", "on the previous token"),
        ("next", "on the next token"),
        ("self", "on itself"),
        ("punctuation", "on punctuation"),
        ("cls", "on `<s>`"),
        ("sep", "on `</s>`"),
    ],
)
def test_the_one_head_sentence_reads_where_the_head_looks(pattern, words) -> None:
    # The page wrote the table's column title into the sentence: "puts 26% of its attention
    # on next", and a model's "<s>" bare in Markdown.
    text = head_sentence(3, 7, pattern, 0.456, 1.234, "<s>", "</s>")
    assert text == f"Layer 3, head 7 puts **46%** of its attention {words} (entropy 1.23 bits)."
    with pytest.raises(ValueError, match="choose one of"):
        head_sentence(3, 7, "entropy", 0.5, 1.0)
