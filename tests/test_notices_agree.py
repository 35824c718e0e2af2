"""Every page's "what to notice" sentence says what its numbers say, for any model and input.

Each generator is run on four models (the bundled one, a tiny random BERT, a small random
DistilBERT, a narrow random BERT of bert-base depth and heads) and several inputs; the numbers
quoted in the sentence must be the numbers the page shows (same rounding), and the comparative
words (most, least, only, higher, rises, narrowest, widest, slightly, rogue) must agree with
them.
The Attention page's sentences have their own walk in tests/test_attention_notices.py.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import explorer
from explorer import context as ctx
from explorer import layerstats
from explorer import similarity as search
from explorer.context.sentences import TUTORIAL_SENTENCES
from explorer.data import corpora
from explorer.data.examples import TOKENS_PAIR, TOKENS_TEXT, TUTORIAL
from explorer.figures.layers import summary_notice
from explorer.figures.tokens import token_counts, tokens_notice
from explorer.maps import Projector
from explorer.maps import _quality as mapquality
from explorer.model.summary import EXAMPLE_TOKENS, model_notice
from explorer.pooling import POOLING_LABELS
from explorer.probing.folds import plan_folds
from explorer.probing.scores import best_layers, compare_features, probe_notice
from tests.notice_checks import SENTENCES, check_similarity_notice, model_for, two

MODELS = (
    "bundled",
    "tiny_bert_path",
    pytest.param("distilbert_path", marks=pytest.mark.slow),
    "deep_narrow_path",
)
TEXTS = ((TOKENS_TEXT, None), (TUTORIAL, None), (TOKENS_TEXT, TOKENS_PAIR), ("Ok.", None))
WORD_INPUTS = (
    ("bank", ctx.DEFAULT_TEXT),
    ("bank", "\n".join(TUTORIAL_SENTENCES)),
    (
        "bat",
        "animal | The bat flew out of the cave.\nsport | He swung the bat hard.\n"
        "sport | A bat and a ball.\nanimal | A bat hangs upside down, and the bat sleeps.",
    ),
)


@pytest.fixture(scope="module", params=MODELS)
def model(request) -> explorer.Model:
    return model_for(request)


def test_model_notice_counts_what_the_model_has(model) -> None:
    text = model_notice(model, "this model")
    vectors, hidden = model.num_layers + 1, model.hidden_size
    assert f"at most {model.max_length:,} tokens" in text
    assert f"vocabulary of {model.vocab_size:,}" in text
    assert f"{vectors} vectors of {hidden:,} numbers" in text
    assert f"each of its {model.num_layers} transformer layers" in text
    assert f"= {EXAMPLE_TOKENS * vectors * hidden:,} numbers" in text


@pytest.mark.parametrize(("text", "pair"), TEXTS)
def test_tokens_notice_counts_the_tokens_shown(model, text, pair) -> None:
    tokenization = model.tokenize(text, pair)
    counts = token_counts(tokenization)
    sentence = tokens_notice(tokenization)
    assert sentence.startswith(f"{counts.words} word{'s' if counts.words != 1 else ''} became ")
    assert f"became {counts.pieces} piece" in sentence
    if counts.split_words:
        assert f": {counts.split_words} split (" in sentence
    else:
        assert "every word is in the vocabulary whole" in sentence
    if counts.special:
        assert f"With the {counts.special} special tokens" in sentence
        assert f"the model reads {counts.tokens} tokens" in sentence
        assert counts.tokens == counts.pieces + counts.special


def check_layer_summary(summary: pd.DataFrame, sentence: str) -> None:
    changes = summary["change"].iloc[1:]
    shown = [two(c) for c in changes]
    found = re.search(r"changes most (.+?) \(cosine (\S+?)( each)? with", sentence)
    if found:
        least = re.search(r"and least (.+?) \((\S+?)( each)?\)\.", sentence)
        most_steps = [int(b) for _, b in re.findall(r"from layer (\d+) to layer (\d+)", found[1])]
        least_steps = [int(b) for _, b in re.findall(r"from layer (\d+) to (\d+)", least[1])]
        # every step showing the extreme is named, and only those (ties named together)
        assert most_steps == [i + 1 for i, v in enumerate(shown) if v == min(shown, key=float)]
        assert least_steps == [i + 1 for i, v in enumerate(shown) if v == max(shown, key=float)]
        assert found[2] == min(shown, key=float) and least[2] == max(shown, key=float)
        assert (found[3] is not None) == (len(most_steps) > 1)
        assert (least[3] is not None) == (len(least_steps) > 1)
        assert float(found[2]) < float(least[2])  # "most" change: the lowest cosine
    elif "about as much at every layer" in sentence:
        assert len(set(shown)) == 1 and f"is {shown[0]} at every layer" in sentence
    else:
        assert len(shown) == 1 and f"cosine of {shown[0]}" in sentence
    start, end = f"{summary['mean norm'].iloc[0]:.2f}", f"{summary['mean norm'].iloc[-1]:.2f}"
    if "rises" in sentence:
        assert float(end) > float(start)
    elif "falls" in sentence:
        assert float(end) < float(start)
    else:
        assert start == end and f"norm is {start} at layer 0" in sentence
    assert f"from {start} at layer 0 to {end}" in sentence or start == end
    top = re.search(r"Dimension (\d+) holds the largest value at (\d+) of (\d+) layers", sentence)
    counts = summary["top dimension"].value_counts()
    tied = re.search(r"Dimensions (.+?) each hold the largest value at (\d+) of", sentence)
    if tied:  # every dimension on top as often as the most frequent one, named together
        named = [int(d) for d in re.findall(r"\d+", tied[1])]
        assert sorted(named) == sorted(int(d) for d, c in counts.items() if c == counts.iloc[0])
        assert len(named) > 1 and int(tied[2]) == counts.iloc[0] > 1
        return
    if top is None:
        assert counts.iloc[0] == 1
        return
    assert (counts == counts.iloc[0]).sum() == 1  # one dimension stands out
    assert int(top[2]) == counts.iloc[0] == counts[int(top[1])] and int(top[3]) == len(summary)
    peak = summary.loc[summary["top dimension"] == int(top[1]), "top sigmas"].max()
    assert f"(up to {peak:.1f} standard deviations)" in sentence  # as the table shows it
    rogue = 2 * int(top[2]) >= len(summary) and peak > layerstats.DEFAULT_THRESHOLD
    assert ("rogue dimension" in sentence) == rogue


@pytest.mark.parametrize(("text", "pair"), TEXTS[:3])
def test_layers_notice_agrees_with_the_summary_table(model, text, pair) -> None:
    tokenization = model.tokenize(text, pair)
    hidden = model.hidden_states(text, pair)
    for token in {1, len(tokenization) // 2, len(tokenization) - 2}:
        for include_special in (True, False):
            summary = layerstats.layer_summary(hidden, token, include_special, tokenization.special)
            check_layer_summary(summary, summary_notice(summary, "w"))
    outliers = layerstats.outlier_dimensions(hidden, 3.0, True, tokenization.special)
    sentence = layerstats.outlier_summary(outliers, model.num_layers, 3.0)
    dimensions = outliers["dimension"].nunique()
    assert (f"{dimensions} dimension" in sentence) if dimensions else sentence.startswith("No ")


@pytest.mark.parametrize("sentences", SENTENCES)
def test_similarity_notice_names_the_pairs_shown(model, sentences) -> None:
    corpus = explorer.embed_corpus(model, list(sentences))
    matrices = search.similarity_matrices(corpus, ("mean", "cls", "max"), "last")
    sentence = search.similarity_notice(matrices, POOLING_LABELS)
    check_similarity_notice(matrices, POOLING_LABELS, sentence)  # most, least and ties as shown
    rows, cols = np.triu_indices(len(sentences), k=1)
    ranges = {
        POOLING_LABELS[p].lower(): round(float(two(v.max())) * 100)
        - round(float(two(v.min())) * 100)
        for p, v in ((p, np.asarray(m)[rows, cols]) for p, m in matrices.items())
    }
    narrow = re.search(r"\. (.+?) (?:squeezes every pair into|scores every pair) ", sentence)
    if narrow:
        named = ranges.pop(narrow[1].lower())
        assert all(named < other for other in ranges.values())


def check_word_notices(word: str, similarities: np.ndarray, kinds: list[str]) -> None:
    sentence = ctx.what_to_notice(word, similarities, kinds)
    last = similarities.shape[0] - 1
    try:
        gap = ctx.sense_gap(similarities, kinds)
    except ValueError:
        gap = None
    if gap is not None:
        same, different, width = (two(v) for v in gap.iloc[-1])
        if "tells the senses apart" in sentence:
            assert f"same sense score {same}" in sentence
            assert f"different senses {different}" in sentence
            assert float(width) > 0 and f"a gap of {width}" in sentence
            assert ("barely" in sentence) == (gap["gap"].iloc[-1] < ctx.notices.SMALL_GAP)
            assert f"the gap is {two(gap['gap'].iloc[0])}." in sentence
            widest = re.search(r"widest at layer (\d+): (\S+)\)", sentence)
            if widest:
                assert widest[2] == two(gap["gap"].iloc[int(widest[1])])
                assert float(widest[2]) > float(width)
        else:
            assert "does not separate" in sentence and float(width) <= 0
            if "as high as or higher" in sentence:
                assert float(different) >= float(same)
            else:
                assert "about as high as" in sentence and float(width) == 0
        caption = ctx.gap_caption(gap)
        start, end = float(two(gap["gap"].iloc[0])), float(two(gap["gap"].iloc[-1]))
        assert f"{two(start)} at layer 0, {two(end)} at layer {last}" in caption
        if "opens" in caption:
            assert end > start
        elif "narrows" in caption:
            assert end < start
        widest = re.search(r"widest at layer (\d+) \((\S+)\)", caption)
        if widest:
            assert float(widest[2]) > max(start, end, 0)
    else:
        final = [two(v) for v in similarities[-1]]
        found = re.search(
            r"most similar .+ \((\S+?)(?: each)?\) and the least similar .+ \((\S+?)(?: each)?\)\.",
            sentence,
        )
        if found:
            assert found[1] == max(final, key=float) and found[2] == min(final, key=float)
            assert float(found[1]) > float(found[2])
        else:
            assert len(set(final)) == 1 and f"scores {final[0]}." in sentence
    together = re.search(r"from one sentence score (higher, )?(\S+) against (\S+) for", sentence)
    if together:
        assert (together[1] is not None) == (float(together[2]) > float(together[3]))
    note = ctx.layer_zero_note(similarities, word)
    low = similarities[0].min()
    assert ("slightly" in note) == (low >= 0.9)
    assert f"{low:.2f}" in note or f"{low:.3f}" in note


@pytest.mark.parametrize(("word", "text"), WORD_INPUTS)
def test_word_in_context_notices_read_the_pair_similarities(model, word, text) -> None:
    lines, senses = ctx.parse_labelled_sentences(text)
    occurrences, per_layer = explorer.word_layer_vectors(model, lines, word)
    kinds = ctx.pair_kinds(occurrences, senses)
    check_word_notices(word, ctx.pair_similarities(per_layer), kinds)
    centred = ctx.pair_similarities(
        per_layer, ctx.layer_means(ctx.content_token_states(model, lines))
    )
    check_word_notices(word, centred, kinds)


def check_probe_notice(best: pd.DataFrame, sentence: str) -> None:
    top = best.iloc[0]
    accuracy, spread, baseline = (
        float(top[c]) for c in ("accuracy_mean", "accuracy_std", "baseline")
    )
    assert f"{accuracy:.2f} ± {spread:.2f}" in sentence and f"({baseline:.2f})" in sentence
    assert f" {top['within_noise']}" in sentence
    assert sentence.startswith("No layer reads") == (accuracy - spread <= baseline)
    if not sentence.startswith("No layer"):
        assert f"{accuracy - baseline:+.2f} over always guessing" in sentence
    embedding = float(top["embedding_layer"])
    assert f"reaches {embedding:.2f}" in sentence
    if "add " in sentence:
        assert f"add {accuracy - embedding:+.2f}" in sentence
    if len(best) > 1:
        weakest = float(best.iloc[-1]["accuracy_mean"])
        if f"{weakest:.2f}" == f"{accuracy:.2f}":  # every choice ties at the shown precision
            assert f"The peak is the same ({accuracy:.2f})" in sentence
            assert "weakest" not in sentence
        else:
            assert f"at {weakest:.2f}" in sentence and "weakest" in sentence


def test_probe_notice_reads_the_best_layers(model) -> None:
    frame = corpora.load_topics().groupby("topic").head(6).reset_index(drop=True)
    texts, labels = list(frame["text"]), list(frame["topic"])
    corpus = explorer.embed_corpus(model, texts)
    stacks = {p: corpus.per_layer(p) for p in ("mean", "cls")}
    for folds in (3, 5):
        scores = compare_features(stacks, plan_folds(labels, None, folds, 0))
        best = best_layers(scores)
        check_probe_notice(best, probe_notice(best, POOLING_LABELS))


def check_map_notice(coords: np.ndarray, labels: list[str], sentence: str) -> None:
    found = re.search(
        r"(\d+)% of each point's (\d+) nearest points share its label \((\d+)%", sentence
    )
    names = np.asarray(labels)
    counts = np.unique(names, return_counts=True)[1]
    n = len(names)
    if found is None:
        assert sentence == f"The map shows {n:,} points." and not 2 <= len(counts) <= n / 2
        return
    share, k, chance = int(found[1]) / 100, int(found[2]), int(found[3]) / 100
    assert f"{(counts * (counts - 1)).sum() / (n * (n - 1)):.0%}" == found[3] + "%"
    lift = (share - chance) / (1 - chance)
    if "clear groups" in sentence:
        assert lift >= 0.5 - 0.02
    elif "partly separate" in sentence:
        assert 0.15 - 0.02 <= lift < 0.5 + 0.02
    else:
        assert "mixed together" in sentence and lift < 0.15 + 0.02
    assert k == min(5, n - 1)
    groups = re.search(
        r"(?:is the tightest group|are the tightest groups) \((\d+)%(?: each)?\), (.+) the most "
        r"mixed \((\d+)%",
        sentence,
    )
    if groups:
        assert int(groups[1]) - int(groups[3]) >= 5


def test_map_notice_and_inspector_agree_with_the_map(model) -> None:
    frame = corpora.load_topics().groupby(["topic", "sentiment"]).head(3).reset_index(drop=True)
    corpus = explorer.embed_corpus(model, list(frame["text"]))
    vectors = corpus.sentence("mean", "last")
    coords = Projector("pca", 2).fit(vectors).embedding_
    for column in ("topic", "sentiment"):
        labels = list(frame[column])
        check_map_notice(coords, labels, mapquality.map_notice(coords, labels))
    for row in (0, 7, len(frame) - 1):
        found = mapquality.inspect_point(vectors, coords, row)
        text = found.summary()
        assert f"keeps {found.kept} of these {found.k} nearest" in text
        assert ("what you see around it" in text) == (found.kept >= 0.7 * found.k)


def test_motion_notice_reads_the_label_agreement_of_every_layer(model) -> None:
    from explorer.figures.animation import SEPARATES, motion_notice

    frame = corpora.load_topics().groupby("topic").head(6).reset_index(drop=True)
    stack = explorer.embed_corpus(model, list(frame["text"])).per_layer("mean")
    agreement = [mapquality.label_agreement(layer, frame["topic"], 5) for layer in stack]
    text = motion_notice(agreement)
    assert f"At layer 0, {agreement[0]:.0%}" in text and f"layer {agreement[-1]:.0%}" in text
    most = re.search(r"most at layer (\d+) \((\d+)%\)", text)
    if most:
        assert int(most[2]) > round(max(agreement[0], agreement[-1]) * 100)
        assert f"{agreement[int(most[1])]:.0%}" == f"{max(agreement):.0%}"
    change = agreement[-1] - agreement[0]
    assert ("flows in" in text) == (change >= SEPARATES)
    assert ("less separate" in text) == (change <= -SEPARATES)
