"""Pasted lines and uploaded CSV files: parsing, limits and clear error messages."""

from __future__ import annotations

import pytest

from explorer.context.sentences import parse_sentences
from explorer.data import uploads


def test_lines_are_stripped_and_empty_lines_dropped():
    assert uploads.texts_from_lines("  one \n\n\t\ntwo\r\nthree  ") == ["one", "two", "three"]


@pytest.mark.parametrize("text", ["", "   \n\t\n", None])
def test_no_lines_is_an_error(text):
    with pytest.raises(ValueError, match="paste one sentence per line"):
        uploads.texts_from_lines(text)


def test_too_many_lines_is_an_error():
    with pytest.raises(ValueError, match="6 lines is too many: use at most 5"):
        uploads.texts_from_lines("\n".join("abcdef"), max_rows=5)
    assert len(uploads.texts_from_lines("\n".join("abcdef"), max_rows=None)) == 6


def test_every_text_box_uses_the_one_parser():
    """The pages' parsers of pasted lines differ only in their limit."""
    assert (
        parse_sentences(" a \n\n b")
        == uploads.texts_from_lines(" a \n\n b", max_rows=None)
        == ["a", "b"]
    )
    with pytest.raises(ValueError, match="at most 100"):
        parse_sentences("a\n" * 101)
    assert len(uploads.texts_from_lines("a\n" * 101, max_rows=None)) == 101
    with pytest.raises(ValueError, match="No sentences"):
        uploads.texts_from_lines(None, max_rows=None)


def test_good_csv_with_bom_and_quoted_commas():
    data = '\ufefftext,topic\n"Hello, world",a\nSecond one , b \n'.encode()
    frame = uploads.read_csv(data)
    assert list(frame.columns) == ["text", "topic"]
    assert frame["text"].tolist() == ["Hello, world", "Second one"]
    assert frame["topic"].tolist() == ["a", "b"]
    data = uploads.labelled_texts(frame, "text", "topic")
    assert data.texts == ("Hello, world", "Second one") and data.labels == ("a", "b")
    assert data.dropped == 0 and len(data) == 2


@pytest.mark.parametrize("separator", [";", "\t"])
def test_semicolon_and_tab_separated_files(separator):
    data = f"text{separator}label\nfirst, with a comma{separator}x\nsecond{separator}y\n"
    frame = uploads.read_csv(data.encode())
    assert frame["text"].tolist() == ["first, with a comma", "second"]


def test_cells_stay_text_nothing_is_evaluated_or_converted():
    data = b"text,label\n=SUM(A1:A9),1\n\"+cmd|' /C calc'!A0\",2\n007,NaN\n@import,\n"
    frame = uploads.read_csv(data)
    assert frame["text"].tolist() == ["=SUM(A1:A9)", "+cmd|' /C calc'!A0", "007", "@import"]
    assert frame["label"].tolist() == ["1", "2", "NaN", ""]
    labels = uploads.labelled_texts(frame, "text", "label").labels
    assert labels == ("1", "2", "NaN", uploads.NO_LABEL)


def test_empty_and_whitespace_only_text_cells_are_dropped_and_counted():
    frame = uploads.read_csv(b"text,label\nkeep me,a\n,b\n   ,c\nme too,d\n")
    data = uploads.labelled_texts(frame, "text", "label")
    assert data.texts == ("keep me", "me too")
    assert data.labels == ("a", "d")
    assert data.dropped == 2


def test_a_text_column_without_any_text_is_an_error():
    frame = uploads.read_csv(b"text,label\n,a\n ,b\n")
    with pytest.raises(ValueError, match="'text' has no text in any row"):
        uploads.labelled_texts(frame, "text")


def test_missing_column_names_the_columns_there():
    frame = uploads.read_csv(b"sentence,label\nhello,a\n")
    with pytest.raises(ValueError, match=r"no column 'text'; the columns are: \['sentence'"):
        uploads.labelled_texts(frame, "text")
    with pytest.raises(ValueError, match="no column 'topic'"):
        uploads.labelled_texts(frame, "sentence", "topic")


@pytest.mark.parametrize("data", [b"", b"   \n\n", b"\xef\xbb\xbf"])
def test_empty_file(data):
    with pytest.raises(ValueError, match="The file is empty"):
        uploads.read_csv(data)


def test_header_without_rows():
    with pytest.raises(ValueError, match="header but no rows"):
        uploads.read_csv(b"text,label\n")


def test_latin1_bytes_are_reported_as_not_utf8():
    data = "text\nCafé crème brûlée\n".encode("latin-1")
    with pytest.raises(ValueError, match="not UTF-8 .*byte 0xe9 at position 8.*CSV UTF-8"):
        uploads.read_csv(data)


def test_more_than_max_rows():
    data = ("text\n" + "".join(f"row {i}\n" for i in range(11))).encode()
    with pytest.raises(ValueError, match="more than 10 rows; the limit is 10"):
        uploads.read_csv(data, max_rows=10)
    assert len(uploads.read_csv(data, max_rows=11)) == 11


def test_files_over_5_mb_are_rejected_before_parsing():
    data = b"text\n" + b"x" * (uploads.MAX_BYTES + 1)
    with pytest.raises(ValueError, match=r"The file is 5\.0 MB; the limit is 5 MB"):
        uploads.read_csv(data)
    # A caller with a larger limit (the texts of uploaded vectors) passes it.
    assert len(uploads.read_csv(data, max_bytes=2 * uploads.MAX_BYTES)) == 1


def test_malformed_csv():
    with pytest.raises(ValueError, match="not a readable CSV"):
        uploads.read_csv(b'text,label\n"never closed,a\nb,c\n' + b"x,y,z,w\n")


def test_guess_text_column():
    frame = uploads.read_csv(b"id,Sentence,label\n1,a long sentence here,x\n")
    assert uploads.guess_text_column(frame) == "Sentence"
    frame = uploads.read_csv(b"id,body,label\n1,a long sentence here,x\n2,and another,y\n")
    assert uploads.guess_text_column(frame) == "body"


def test_from_lists_checks_lengths():
    assert uploads.from_lists(["a", "b"], [1, 2]).labels == ("1", "2")
    with pytest.raises(ValueError, match="2 texts but 1 labels"):
        uploads.from_lists(["a", "b"], ["x"])


def test_pasted_lines_may_carry_a_label_before_a_tab():
    data = uploads.labelled_lines(
        "money\tThe bank raised rates.\nriver\tThe muddy bank.\nNo label here."
    )
    assert data.texts == ("The bank raised rates.", "The muddy bank.", "No label here.")
    assert data.labels == ("money", "river", uploads.NO_LABEL)
    plain = uploads.labelled_lines("One.\nTwo.")
    assert plain.texts == ("One.", "Two.") and plain.labels is None


def test_the_label_column_is_guessed_by_name_or_by_few_distinct_values():
    import pandas as pd

    named = pd.DataFrame({"review": ["a", "b", "c"], "Category": ["x", "y", "x"]})
    assert uploads.guess_label_column(named, "review") == "Category"
    few = pd.DataFrame(
        {"text": [f"t{i}" for i in range(10)], "id": list(range(10)), "kind": ["p", "n"] * 5}
    )
    assert uploads.guess_label_column(few, "text") == "kind"
    assert uploads.guess_label_column(few[["text", "id"]], "text") is None


def test_the_other_columns_come_with_the_texts_and_are_cut_with_them():
    frame = uploads.read_csv(b"text,label,stars,city\na,x,1,Oslo\n,y,2,Rome\nc,z,3,\n")
    data = uploads.labelled_texts(frame, "text", "label")
    assert data.texts == ("a", "c") and data.labels == ("x", "z")
    assert data.columns == (("stars", ("1", "3")), ("city", ("Oslo", "")))
    head = data.head(1)
    assert head.texts == ("a",) and head.labels == ("x",)
    assert head.columns == (("stars", ("1",)), ("city", ("Oslo",)))
    hash(data)  # still a cache key
    listed = uploads.from_lists(["a", "b"], None, {"n": [1, 2]})
    assert listed.columns == (("n", ("1", "2")),) and listed.head(1).labels is None
    with pytest.raises(ValueError, match="cells in 'n'"):
        uploads.from_lists(["a", "b"], None, {"n": [1]})


@pytest.mark.parametrize(
    ("header", "repeated"),
    [("text ,text", "'text'"), ("text,label,a ,a", "'a'"), ("text,a ,a", "'a'")],
)
def test_a_header_that_repeats_a_name_once_stripped_says_which(header, repeated):
    """Issue 32: these headers crashed the page (AttributeError, "truth value ... ambiguous")."""
    width = header.count(",") + 1
    data = (header + "\n" + ",".join(["x"] * width) + "\n").encode()
    with pytest.raises(ValueError, match=f"names {repeated} more than once"):
        uploads.read_csv(data)
    assert list(uploads.read_csv(b"text,a,a\nx,y,z\n").columns) == ["text", "a", "a.1"]  # as before
