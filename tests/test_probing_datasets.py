"""Labelled tables: columns matched loosely, every cell checked, the row limit."""

from __future__ import annotations

import pandas as pd
import pytest

from explorer.probing.datasets import labelled_table, read_labelled_csv


def test_labelled_table_checks_columns():
    rows, task = labelled_table(pd.DataFrame({"Text": ["a b"], " Label ": ["x"]}))
    assert task == "sentence" and list(rows.columns) == ["text", "label"]
    rows, task = labelled_table(pd.DataFrame({"text": ["a"], "word": ["a"], "label": [1]}))
    assert task == "word" and rows.loc[0, "label"] == "1"
    with pytest.raises(ValueError, match="no 'label' column"):
        labelled_table(pd.DataFrame({"text": ["a"], "topic": ["x"]}))
    with pytest.raises(ValueError, match="empty 'text'"):
        labelled_table(pd.DataFrame({"text": ["a", " "], "label": ["x", "y"]}))
    with pytest.raises(ValueError, match="5,000"):
        read_labelled_csv(b"text,label\n" + b"a,b\n" * 5001)
