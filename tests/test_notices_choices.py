"""Every computed sentence speaks of the choice on screen and of the model in use.

A walk over every selectable layer choice (and pooling, post-processing, subword mode where a
page offers them) for the bundled model, a tiny random BERT and a tiny random RoBERTa whose
special tokens are ``<s>``/``</s>``: each sentence names the choice, quotes the numbers the
figure shows under that choice (two decimals, or whole percentages), names every value that
ties at an extreme, and names only special tokens the model's tokenizer has.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import explorer
from explorer import context as ctx
from explorer import layerstats
from explorer import similarity as search
from explorer.attention import _weights as weights
from explorer.choice import POST_NAMES, VectorChoice
from explorer.context.sentences import TUTORIAL_SENTENCES
from explorer.data.examples import TUTORIAL
from explorer.explain import explain_similarity, postprocess
from explorer.explain._cka import cka_matrix
from explorer.figures.attention import statistic_labels, statistics_table
from explorer.figures.attention_notices import influence_notice, what_to_notice
from explorer.figures.explain_notices import cka_notice, explanation_notice
from explorer.figures.layers import summary_notice
from explorer.figures.similarity import agreement_figure
from explorer.layers import layer_choices, layers_label
from explorer.model import attentions
from explorer.pooling import POOLINGS, pooling_labels
from explorer.subwords import SUBWORD_LABELS
from tests.notice_checks import (
    SENTENCES,
    at_extreme,
    check_named,
    check_similarity_notice,
    check_specials,
    model_for,
    tied_pairs,
    two,
    upper,
)

MODELS = ("bundled", "tiny_bert_path", "tiny_roberta_path")
WORDS = (
    ("bank", "\n".join(TUTORIAL_SENTENCES)),
    ("bank", TUTORIAL),
    ("embeddings", "Embeddings are vectors.\nWe compare embeddings here.\nEmbeddings, again."),
    (
        "bat",
        "animal | The bat flew out of the cave.\nsport | He swung the bat hard.\n"
        "sport | A bat and a ball.\nanimal | A bat hangs upside down, and the bat sleeps.",
    ),
)


@pytest.fixture(scope="module", params=MODELS)
def model(request) -> explorer.Model:
    return model_for(request)


# -- Similarity & search ---------------------------------------------------------------------


@pytest.mark.parametrize("sentences", SENTENCES)
def test_similarity_notice_under_every_layer_choice_and_pooling(model, sentences) -> None:
    corpus = explorer.embed_corpus(model, list(sentences))
    labels = pooling_labels(model.tokenizer.cls_token)  # "<s> token" for RoBERTa
    for layers in layer_choices(model.num_layers):
        for first in POOLINGS:
            poolings = (first, *(p for p in POOLINGS if p != first))
            matrices = search.similarity_matrices(corpus, poolings, layers)
            sentence = search.similarity_notice(matrices, labels, VectorChoice(layers=layers))
            check_similarity_notice(matrices, labels, sentence, layers)
            check_specials(model, sentence)
        agreement = search.spearman_agreement(matrices)
        for a in matrices:  # no ρ from differences smaller than the heatmaps show
            flat = len({two(v) for v in upper(matrices[a])}) == 1
            assert agreement.loc[a].drop(a).isna().all() == flat
        text = np.asarray(agreement_figure(agreement).data[0].text)
        assert ((text == "cannot rank") == agreement.isna().to_numpy()).all()
    centred = {
        p: search.cosine_similarity(postprocess(corpus.sentence(p, "last"), "center"))
        for p in POOLINGS
    }
    sentence = search.similarity_notice(centred, labels, VectorChoice(post="center"))
    check_similarity_notice(centred, labels, sentence, "last", POST_NAMES["center"])


def test_a_pooling_that_scores_every_pair_alike_cannot_rank() -> None:
    """The issue's case: [CLS] at 0.999-1.000 for every pair, ρ 0.43 against mean."""
    mean = np.array(
        [[1, 0.5, 0.3, 0.6], [0.5, 1, 0.2, 0.9], [0.3, 0.2, 1, 0.4], [0.6, 0.9, 0.4, 1]]
    )
    cls = 1 - np.array([[0, 1, 4, 2], [1, 0, 3, 1], [4, 3, 0, 2], [2, 1, 2, 0]]) * 1e-3 / 4
    matrices = {"cls": cls, "mean": mean}
    assert search.spearman_agreement(matrices).isna().loc["cls", "mean"]
    labels = pooling_labels("[CLS]")
    sentence = search.similarity_notice(matrices, labels, VectorChoice(layers="second_to_last"))
    assert "every pair of sentences scores 1.00" in sentence
    assert "cannot rank the pairs" in sentence and "ρ" in sentence
    check_similarity_notice(matrices, labels, sentence, "second_to_last")


# -- Word in context ---------------------------------------------------------------------------


def check_word_notice(word, by_layer, kinds, matrix, strategy, post, subwords, sentence) -> None:
    last = by_layer.shape[0] - 1
    if strategy == "last":
        assert sentence.startswith(f"At the last layer (layer {last}")
    elif strategy == "second_to_last":
        assert sentence.startswith(f"At the second-to-last layer (layer {last - 1}")
    elif strategy == "embeddings":
        assert sentence.startswith("At the embedding layer (layer 0")
    else:
        assert sentence.startswith(f"Under the {layers_label(strategy).lower()}")
    lead = re.match(r"[^(,]*(?:\(([^)]*)\))?", sentence)[1] or ""  # the choice's parenthesis
    assert (post in lead) if post else "mean-centred" not in lead
    if subwords:
        assert f"pieces joined by {subwords.lower()}" in lead
    else:
        assert "pieces joined by" not in sentence
    chosen = upper(matrix)  # the heatmap's cells
    try:
        same, different, width = (two(v) for v in ctx.sense_gap(chosen[None, :], kinds).iloc[0])
    except ValueError:
        same = None
    if same is not None:
        if "tells the senses apart" in sentence:
            said = f"same sense score {same} on average and two of different senses {different}"
            assert said in sentence
            assert f"(a gap of {width}" in sentence
        else:
            assert f"different senses score {different}" in sentence and f"({same})" in sentence
    elif "every pair of" in sentence:
        assert len({two(v) for v in chosen}) == 1 and f"scores {two(chosen[0])}." in sentence
    else:
        found = re.search(
            r", the most similar “.+?”s are (.+?) \((\S+?)( each)?\) and the least similar "
            r"(.+?) \((\S+?)( each)?\)\. ",
            sentence,
        )
        shown = [two(v) for v in chosen]
        assert found[2] == max(shown, key=float) and found[5] == min(shown, key=float)
        high, low = at_extreme(chosen, max), at_extreme(chosen, min)
        check_named(tied_pairs(found[1]), high)
        check_named(tied_pairs(found[4]), low)
        assert (found[3] is not None) == (len(high) > 1)
        assert (found[6] is not None) == (len(low) > 1)
    together = np.asarray(kinds, dtype=object) == "same sentence"
    quoted = re.search(r"from one sentence score (?:higher, )?(\S+) against (\S+) for", sentence)
    if together.any() and (~together).any():
        assert quoted[1] == two(chosen[together].mean())
        assert quoted[2] == two(chosen[~together].mean())
    else:
        assert quoted is None


@pytest.mark.parametrize(("word", "text"), WORDS)
def test_word_in_context_headline_reads_the_heatmap_of_the_choice(model, word, text) -> None:
    lines, senses = ctx.parse_labelled_sentences(text)
    for subwords in ("first", "mean"):
        occurrences, per_layer = explorer.word_layer_vectors(model, lines, word, subwords)
        split = any(o.num_tokens > 1 for o in occurrences)
        label = SUBWORD_LABELS[subwords] if split else None
        kinds = ctx.pair_kinds(occurrences, senses)
        pairs = ctx.pair_labels(len(occurrences))
        tokens = ctx.content_token_states(model, lines)
        for post in ("none", "center"):
            states = (
                per_layer
                if post == "none"
                else explorer.explain.postprocess_layers(per_layer, post, tokens)
            )
            by_layer = ctx.pair_similarities(states)
            for strategy in layer_choices(model.num_layers):
                matrix = ctx.similarity_matrix(states, strategy)
                sentence = ctx.what_to_notice(
                    word, by_layer, kinds, pairs, strategy, matrix, POST_NAMES[post], label
                )
                check_word_notice(
                    word, by_layer, kinds, matrix, strategy, POST_NAMES[post], label, sentence
                )
                check_specials(model, sentence)


def test_the_tutorial_headline_quotes_the_sum_of_last_four_layers(bundled) -> None:
    """The issue's case: McCormick's sentence, 'Sum of last four layers' chosen: the headline
    quotes the heatmap's 0.94 / 0.89, not the last layer's 0.96 / 0.93."""
    occurrences, per_layer = explorer.word_layer_vectors(bundled, [TUTORIAL], "bank")
    kinds = ctx.pair_kinds(occurrences, [None])
    matrix = ctx.similarity_matrix(per_layer, "sum_last4")
    by_layer = ctx.pair_similarities(per_layer)
    sentence = ctx.what_to_notice("bank", by_layer, kinds, None, "sum_last4", matrix)
    assert sentence.startswith("Under the sum of last four layers")
    assert f"({two(matrix[0, 1])})" in sentence  # #1 vs #2, as the heatmap shows it
    assert two(matrix[0, 1]) != two(by_layer[-1, 0]) or two(matrix[1, 2]) != two(by_layer[-1, 2])


# -- Layers, CKA, explanation and attention: numbers and special tokens -------------------------


def test_layer_sentences_name_ties_and_the_models_special_tokens(model) -> None:
    from tests.test_notices_agree import check_layer_summary

    tokenization = model.tokenize(TUTORIAL)
    hidden = model.hidden_states(TUTORIAL)
    for token in range(1, len(tokenization) - 1, 3):
        summary = layerstats.layer_summary(hidden, token, False, tokenization.special)
        sentence = summary_notice(summary, tokenization.tokens[token])
        check_layer_summary(summary, sentence)
        check_specials(model, sentence)
    trained = cka_matrix(hidden[:, ~np.asarray(tokenization.special)])
    sentence = cka_notice(trained)
    steps = [two(v) for v in np.diag(trained, k=1)]
    named = [int(a) for a, _ in re.findall(r"between layer (\d+) and layer (\d+)", sentence)]
    lowest = [i for i, v in enumerate(steps) if v == min(steps, key=float)]
    if len(steps) > 1 and len(lowest) == len(steps):  # every step ties: none is named
        assert named == [] and f"(CKA {steps[0]} at each step)" in sentence, sentence
    else:
        assert named == lowest, sentence


@pytest.mark.parametrize("pooling", ["mean", "max"])
def test_explanation_names_the_models_special_tokens(model, pooling) -> None:
    a, b = "The bank robber ran.", "A river bank flooded."
    for layers in layer_choices(model.num_layers)[:3]:
        explained = explain_similarity(model, a, b, pooling, layers)
        sentence = explanation_notice(explained)
        check_specials(model, sentence)
        listed = re.search(r"Pairs with a special token \((.+?)\) give", sentence)
        if listed:
            tokens = model.tokenize(a).tokens + model.tokenize(b).tokens
            special = model.tokenize(a).special + model.tokenize(b).special
            own = list(dict.fromkeys(t for t, s in zip(tokens, special, strict=True) if s))
            assert listed[1] == ", ".join(own)
        assert f"The cosine is {explained.score:.3f}" in sentence


def test_attention_sentences_name_the_models_special_tokens(model) -> None:
    result = attentions.attention_pass(model, TUTORIAL, "Where did he go?")
    tokens = result.tokenization.tokens
    cls = model.tokenizer.cls_token
    sep = model.tokenizer.sep_token
    stats = weights.head_statistics(result.attentions, tokens, cls, sep)
    sentence = what_to_notice(stats, cls, sep)
    check_specials(model, sentence)
    assert f"`{cls}`" in sentence and f"`{sep}`" in sentence
    names = statistic_labels(cls, sep)  # the statistics table's columns and the head's line
    check_specials(model, " ".join(statistics_table(stats, names).columns))
    assert {f"on {cls}", f"on {sep}"} <= set(statistics_table(stats, names).columns)
    norms = weights.value_norms(model, result.hidden_states)
    rolled = weights.rollout(result.attentions)
    for layer in range(1, model.num_layers + 1):
        influence = weights.layer_influence(result.attentions, rolled, norms, layer)
        sentence = influence_notice(influence, tokens, (cls, sep))
        check_specials(model, sentence)
        named = re.search(r"of the raw attention goes to `(.+?)`", sentence)
        assert named[1] in (cls, sep)


def test_the_explanation_names_s_and_s_not_cls_and_sep() -> None:
    """The issue's case: with <s>/</s> specials the explanation said "([CLS], [SEP])"."""
    from explorer.explain import Explanation

    tokens_a, tokens_b = ("<s>", "a", "cat", "</s>"), ("<s>", "a", "dog", "</s>")
    special = (True, False, False, True)
    pairs = np.full((4, 4), 0.01)
    pairs[0, 0] = pairs[3, 3] = 0.2  # the specials give a large part
    explained = Explanation(
        float(pairs.sum()), tokens_a, tokens_b, special, special, pairs,
        pairs.sum(1), pairs.sum(0), "mean", "last", "exact",
    )  # fmt: skip
    sentence = explanation_notice(explained)
    assert "Pairs with a special token (<s>, </s>) give" in sentence
    assert "[CLS]" not in sentence and "[SEP]" not in sentence
