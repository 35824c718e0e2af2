"""Tests for the built-in example corpora (no network or model needed)."""

from __future__ import annotations

import re

import pytest

from explorer.data.corpora import (
    DATASET_NAMES,
    DATASETS,
    SENSE_WORDS,
    load_dataset,
    load_senses,
    load_topics,
)

SENSE_LABEL = re.compile(r"^[a-z]+(_[a-z]+)*$")


def test_sense_words_match_file_order() -> None:
    senses = load_senses()
    assert list(senses.columns) == ["word", "sense", "text"]
    assert tuple(senses["word"].drop_duplicates()) == SENSE_WORDS
    assert SENSE_WORDS[0] == "bank"
    assert len(SENSE_WORDS) >= 8


@pytest.mark.parametrize("word", SENSE_WORDS)
def test_each_word_has_two_well_populated_senses(word: str) -> None:
    counts = load_senses(word)["sense"].value_counts()
    assert len(counts) >= 2, counts
    assert (counts >= 10).all(), counts
    assert all(SENSE_LABEL.match(sense) for sense in counts.index)


@pytest.mark.parametrize("word", SENSE_WORDS)
def test_sentences_contain_word_exactly_once(word: str) -> None:
    pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    for text in load_senses(word)["text"]:
        assert len(pattern.findall(text)) == 1, text
        assert 6 <= len(text.split()) <= 25, text


def test_senses_have_no_duplicates_or_blanks() -> None:
    senses = load_senses()
    assert not senses.isna().any().any()
    assert (senses.map(len) > 0).all().all()
    assert not senses["text"].duplicated().any()


def test_load_senses_filter_is_case_insensitive() -> None:
    upper = load_senses("  BANK ")
    assert set(upper["word"]) == {"bank"}
    assert upper.equals(load_senses("bank"))
    assert list(upper.index) == list(range(len(upper)))


def test_load_senses_unknown_word() -> None:
    with pytest.raises(ValueError, match="bank"):
        load_senses("banana")


def test_loaders_return_copies() -> None:
    senses = load_senses()
    senses.loc[0, "text"] = "changed"
    assert load_senses().loc[0, "text"] != "changed"
    topics = load_topics()
    topics["topic"] = "changed"
    assert "changed" not in set(load_topics()["topic"])


def test_topics_structure() -> None:
    topics = load_topics()
    assert list(topics.columns) == ["text", "topic", "sentiment"]
    assert len(topics) >= 240
    assert topics["topic"].nunique() >= 4
    assert set(topics["sentiment"]) == {"positive", "negative"}
    cells = topics.groupby(["topic", "sentiment"]).size()
    assert len(cells) == 2 * topics["topic"].nunique()
    assert (cells >= 25).all(), cells


def test_topics_have_no_duplicates_or_blanks() -> None:
    topics = load_topics()
    assert not topics.isna().any().any()
    assert (topics["text"].str.strip().str.len() > 0).all()
    assert not topics["text"].str.lower().duplicated().any()


def test_dataset_names() -> None:
    assert DATASET_NAMES == ("Word senses (all words)", "Topics", "Sentiment")
    assert set(DATASETS) == set(DATASET_NAMES)


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_load_dataset(name: str) -> None:
    frame = load_dataset(name)
    assert {"text", "label"} <= set(frame.columns)
    assert len(frame) > 0
    assert not frame.isna().any().any()
    assert frame["label"].nunique() >= 2


def test_word_senses_dataset_labels() -> None:
    frame = load_dataset("Word senses (all words)")
    assert list(frame.columns) == ["text", "label", "word"]
    assert "bank:river" in set(frame["label"])
    assert (frame["label"].str.split(":").str[0] == frame["word"]).all()


def test_topics_and_sentiment_datasets_share_texts() -> None:
    topics = load_dataset("Topics")
    sentiment = load_dataset("Sentiment")
    assert list(topics.columns) == ["text", "label"]
    assert topics["text"].equals(sentiment["text"])
    assert set(sentiment["label"]) == {"positive", "negative"}


def test_load_dataset_unknown_name() -> None:
    with pytest.raises(ValueError, match="Topics"):
        load_dataset("Nonexistent")
