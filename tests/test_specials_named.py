"""Sentences that say which tokens were left out name them as the model writes them (issue
33.7): the Compare page's CKA caption and How contextual?'s IsoScore caption, on a BERT and a
RoBERTa-style tokenizer (``<s>``, ``</s>``)."""

from __future__ import annotations

import pandas as pd
import pytest

import explorer
from explorer.compare import specials_left_out
from explorer.explain import classic_measures
from explorer.figures.isotropy import isotropy_caption
from tests.test_figures_isotropy import SENTENCES


@pytest.fixture(scope="module")
def roberta(tiny_roberta_path) -> explorer.Model:
    return explorer.load_model(tiny_roberta_path)


def test_a_tokenization_lists_its_special_tokens_once(tiny, roberta):
    assert tiny.tokenize("A bank. A river.").special_tokens == ("[CLS]", "[SEP]")
    assert roberta.tokenize("A bank.", "A river.").special_tokens == ("<s>", "</s>")


def test_cross_cka_names_each_models_special_tokens(tiny, roberta):
    # the caption said "([CLS], [SEP] left out)" whatever the models
    text = SENTENCES[0]
    assert specials_left_out(tiny, tiny, text) == "[CLS], [SEP]"
    assert specials_left_out(roberta, roberta, text) == "<s>, </s>"
    assert specials_left_out(tiny, roberta, text) == "[CLS], [SEP] of A and <s>, </s> of B"


def test_isoscore_caption_names_the_models_special_tokens(roberta):
    # the caption said "(special tokens left out)" without naming them
    measures = classic_measures(roberta, SENTENCES, min_contexts=5)
    assert measures.attrs["special_tokens"] == ("<s>", "</s>")
    caption = isotropy_caption(measures)
    tokens, dimensions = measures.attrs["tokens"], measures.attrs["dimensions"]
    assert f"all {tokens:,} tokens of the sentences (<s>, </s> left out) in {dimensions}" in caption
    assert "[CLS]" not in caption and "[SEP]" not in caption
    assert "cannot pass" not in caption  # more tokens than its 32 dimensions
    assert tokens == sum(len(roberta.tokenize(s)) - 2 for s in SENTENCES)


def test_isoscore_caption_says_the_bound_of_too_few_tokens():
    measures = pd.DataFrame({"isoscore": [0.1], "baseline_cosine": [0.3]})
    measures.attrs.update(tokens=40, dimensions=384, special_tokens=("[CLS]", "[SEP]"))
    caption = isotropy_caption(measures)
    assert "([CLS], [SEP] left out)" in caption
    assert "40 tokens span at most 39 of the 384 directions" in caption
    assert f"cannot pass {38 / 383:.2f} here" in caption


def test_a_plotted_map_names_the_models_first_token_in_its_title(roberta):
    # explorer.plot.projection titled a <s> model's map "[CLS] token · ..."
    from explorer import plot

    texts = ["A bank by the river.", "The bank is closed.", "We fished.", "A vault."]
    title = plot.projection(roberta, texts, pooling="cls").layout.title.text
    assert "&lt;s&gt; token · " in title and "[CLS]" not in title
