"""Download bytes: .npy round-trips, CSVs load back and cannot smuggle in formulas."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from explorer.data import export


def test_npy_round_trip():
    array = np.random.default_rng(0).normal(size=(5, 7)).astype(np.float32)
    data = export.to_npy_bytes(array)
    back = np.load(io.BytesIO(data))
    assert back.dtype == np.float32
    np.testing.assert_array_equal(back, array)
    np.testing.assert_array_equal(export.from_npy_bytes(data), array)


def test_vectors_csv_round_trip():
    vectors = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    frame = export.vectors_frame(vectors, ["a", "b, with comma", 'c "quoted"'], [1, 2, 1], "xyz")
    assert list(frame.columns) == ["text", "word", "label", "dim_0", "dim_1", "dim_2", "dim_3"]
    back = pd.read_csv(io.BytesIO(export.to_csv_bytes(frame)))
    assert back["text"].tolist() == ["a", "b, with comma", 'c "quoted"']
    np.testing.assert_allclose(back.filter(like="dim_").to_numpy(), vectors, rtol=1e-6)
    coords = export.vectors_frame(vectors[:, :2], ["a", "b", "c"], prefix="x")
    assert list(coords.columns) == ["text", "x0", "x1"]


def test_csv_neutralises_formulas_but_not_numbers():
    frame = pd.DataFrame(
        {
            "text": ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\rx", "plain", "a=b"],
            "value": [-1.5, 2, -3, 4, 5, 6, 7, 8],
        }
    )
    back = pd.read_csv(io.BytesIO(export.to_csv_bytes(frame)), keep_default_na=False)
    assert back["text"].tolist()[:6] == ["'=1+1", "'+SUM(A1)", "'-2+3", "'@cmd", "'\tx", "'\rx"]
    assert back["text"].tolist()[6:] == ["plain", "a=b"]
    assert back["value"].tolist()[:3] == [-1.5, 2, -3]  # numbers stay numbers
    header = export.to_csv_bytes(pd.DataFrame({"=evil": [1]})).decode().splitlines()[0]
    assert header == '"\'=evil"'


def test_vectors_frame_checks_lengths():
    with pytest.raises(ValueError, match="2 vectors but 3 texts"):
        export.vectors_frame(np.zeros((2, 3)), ["a", "b", "c"])
    with pytest.raises(ValueError, match="labels"):
        export.vectors_frame(np.zeros((2, 3)), ["a", "b"], labels=["x"])
    with pytest.raises(ValueError, match=r"\(n, d\)"):
        export.vectors_frame(np.zeros(3), ["a", "b", "c"])


def test_full_width_and_other_compatibility_forms_of_formula_signs_are_neutralised():
    frame = pd.DataFrame({"text": ['＝HYPERLINK("x")', "＋1", "﹫cmd", "ａ=b"]})
    back = pd.read_csv(io.BytesIO(export.to_csv_bytes(frame)), keep_default_na=False)
    assert back["text"].tolist() == ['\'＝HYPERLINK("x")', "'＋1", "'﹫cmd", "ａ=b"]


def test_upload_limit_is_the_configs_number_in_the_same_unit():
    import tomllib
    from pathlib import Path

    from explorer.data import uploads, vectorfiles

    config = tomllib.loads((Path(__file__).parents[1] / ".streamlit/config.toml").read_text())
    assert vectorfiles.MAX_BYTES == config["server"]["maxUploadSize"] * 10**6
    assert vectorfiles.MAX_UPLOAD_MB * 10**6 == vectorfiles.MAX_BYTES
    # Texts have a smaller limit in the same unit, within the server's ceiling.
    assert uploads.MAX_UPLOAD_MB * 10**6 == uploads.MAX_BYTES < vectorfiles.MAX_BYTES
